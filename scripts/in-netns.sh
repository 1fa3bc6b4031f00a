#!/bin/sh
# in-netns.sh CMD [ARG...]: runs CMD in a network namespace of its own,
# with only a loopback interface, up. make test runs the lab tests so: the
# ports their emulators bind (consoles, UDP tunnels, hypervisors) are
# then theirs alone, while the other tests run beside them. Needs root.
exec unshare --net sh -c 'ip link set lo up && exec "$@"' in-netns "$@"
