#!/bin/sh
# test-dockerd.sh: a private Docker Engine for nodedesk's tests, and the
# test image they run, built offline (no registry is reachable in CI).
#
#   test-dockerd.sh start DIR   start dockerd with its data, run folder and
#                               socket under DIR (unless one already runs
#                               there), import the test image, and print
#                               the DOCKER_HOST to use
#   test-dockerd.sh stop DIR    stop that dockerd and its containers
#
# The engine uses no bridge and no iptables rules: the tests' containers
# have network none and get their interfaces from nodedesk. Needs root
# and Debian's docker.io and busybox-static.
set -eu

IMAGE=nodedesk-test/busybox:latest

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
sock="$dir/docker.sock"
export DOCKER_HOST="unix://$sock"

running() { [ -f "$dir/dockerd.pid" ] && kill -0 "$(cat "$dir/dockerd.pid")" 2>/dev/null; }

case $cmd in
start)
	if ! running; then
		command -v dockerd >/dev/null || { echo "dockerd is missing: sudo apt-get install docker.io" >&2; exit 1; }
		mkdir -p "$dir/root" "$dir/exec"
		# setsid: the engine outlives this script but not the caller's
		# clean-up, which stops it by its pid file.
		setsid dockerd --data-root "$dir/root" --exec-root "$dir/exec" --pidfile "$dir/dockerd.pid" \
			-H "$DOCKER_HOST" --bridge=none --iptables=false --ip6tables=false --ip-masq=false \
			--userland-proxy=false >"$dir/dockerd.log" 2>&1 </dev/null &
		i=0
		until docker version >/dev/null 2>&1; do
			i=$((i + 1))
			if [ $i -gt 120 ]; then
				echo "dockerd did not answer within 60 s; its log:" >&2
				tail -20 "$dir/dockerd.log" >&2
				exit 1
			fi
			sleep 0.5
		done
	fi
	if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
		bb=$(command -v busybox || true)
		[ -n "$bb" ] || { echo "busybox is missing: sudo apt-get install busybox-static" >&2; exit 1; }
		rootfs=$(mktemp -d)
		trap 'rm -rf "$rootfs"' EXIT
		mkdir -p "$rootfs/bin" "$rootfs/sbin" "$rootfs/etc/network" "$rootfs/tmp" "$rootfs/root" "$rootfs/var/run"
		cp "$bb" "$rootfs/bin/busybox"
		for a in $("$bb" --list); do
			[ -e "$rootfs/bin/$a" ] || ln -s busybox "$rootfs/bin/$a"
		done
		echo 'root:x:0:0:root:/root:/bin/sh' >"$rootfs/etc/passwd"
		echo 'root:x:0:' >"$rootfs/etc/group"
		tar -C "$rootfs" -c . | docker import -c 'CMD ["/bin/sh"]' -c 'ENV PATH=/bin:/sbin' - "$IMAGE" >/dev/null
	fi
	echo "$DOCKER_HOST"
	;;
stop)
	if running; then
		docker ps -aq | xargs -r docker rm -f >/dev/null 2>&1 || true
		pid=$(cat "$dir/dockerd.pid")
		kill "$pid" 2>/dev/null || true
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 60 ]; do i=$((i + 1)); sleep 0.5; done
		kill -9 "$pid" 2>/dev/null || true
	fi
	# containerd-shim processes left by a killed engine
	pkill -f -- "$dir/exec" 2>/dev/null || true
	;;
*) usage ;;
esac
