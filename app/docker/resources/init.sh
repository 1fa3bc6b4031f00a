#!/nodedesk/bin/busybox sh
# nodedesk: the first process of a Docker node's container. It prepares
# the container as a lab node, then becomes the node's own command (its
# arguments). nodedesk mounts this folder read-only at /nodedesk and,
# once the container runs, creates its interfaces eth0, eth1, ... from
# outside. Its environment says what to do:
#   NODEDESK_ADAPTERS     how many interfaces to wait for
#   NODEDESK_VOLUMES      the kept folders, ":"-separated
#   NODEDESK_EXTRA_HOSTS  lines to add to /etc/hosts
#   NODEDESK_USER         the image's user, to run the command as

node_path=$PATH
PATH=/nodedesk/bin:$PATH
say() { echo "nodedesk init: $*" >&2; }

# Owners and modes of the kept folders, as the last stop recorded them
# (mode:uid:gid:path lines): nodedesk hands the files to its own user
# while the node is stopped, so that they can be edited.
old_ifs=$IFS
IFS=:
for vol in $NODEDESK_VOLUMES; do
	IFS=$old_ifs
	list="$vol/.gns3_perms"
	[ -s "$list" ] || continue
	while IFS=: read -r mode owner group file; do
		case $file in "$vol" | "$vol"/*) ;; *) continue ;; esac
		[ -e "$file" ] || [ -L "$file" ] || continue
		[ -L "$file" ] || chmod "$mode" "$file" 2>/dev/null
		chown -h "$owner:$group" "$file" 2>/dev/null
	done <"$list"
done
IFS=$old_ifs

# Names the node asked for, after Docker's own lines.
if [ -n "$NODEDESK_EXTRA_HOSTS" ]; then
	if [ ! -s /etc/hosts ]; then
		printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\t%s\n' "$(hostname)" >>/etc/hosts
	fi
	printf '%s\n' "$NODEDESK_EXTRA_HOSTS" >>/etc/hosts
fi

ip link set dev lo up

# The interfaces come from nodedesk once the container runs: wait for
# each (a minute at most, then go on with those there are).
n=${NODEDESK_ADAPTERS:-0}
tries=0
i=0
while [ "$i" -lt "$n" ]; do
	if [ -e "/sys/class/net/eth$i" ] || grep -q "^ *eth$i:" /proc/net/dev; then
		i=$((i + 1))
		continue
	fi
	tries=$((tries + 1))
	if [ "$tries" -gt 600 ]; then
		say "eth$i did not appear; going on without it"
		i=$((i + 1))
		continue
	fi
	usleep 100000
done
for dev in $(sed -n 's/^ *\(eth[0-9]*\):.*/\1/p' /proc/net/dev); do
	ip link set dev "$dev" up
done

# /etc/network/interfaces, which the node's folder keeps.
if [ -f /etc/network/interfaces ]; then
	mkdir -p /run /var/run /etc/network/if-pre-up.d /etc/network/if-up.d \
		/etc/network/if-down.d /etc/network/if-post-down.d 2>/dev/null
	# "inet dhcp" runs udhcpc, busybox's or the image's: the lease
	# script where busybox looks for it, unless the image has its own.
	if [ ! -e /etc/udhcpc/default.script ] && [ ! -e /usr/share/udhcpc/default.script ]; then
		mkdir -p /etc/udhcpc && ln -s /nodedesk/udhcpc.script /etc/udhcpc/default.script
	fi
	ifup -a -f || say "ifup -a failed; see /etc/network/interfaces"
fi

PATH=$node_path
if [ -n "$NODEDESK_USER" ]; then
	user=${NODEDESK_USER%%:*}
	case $user in
	*[!0-9]*) ;;
	*) user=$(/nodedesk/bin/busybox awk -F: -v id="$user" '$3 == id { print $1; exit }' /etc/passwd) ;;
	esac
	if [ -n "$user" ] && [ "$user" != root ]; then
		# su keeps the environment (-p) and runs the command through sh.
		exec /nodedesk/bin/busybox su -p -s /nodedesk/bin/sh "$user" -c 'exec "$@"' sh "$@"
	fi
	say "the image's user $NODEDESK_USER is not in /etc/passwd; running as root"
fi
exec "$@"
