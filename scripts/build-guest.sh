#!/usr/bin/env bash
# build-guest.sh: builds the tiny QEMU guest nodedesk's tests boot, from
# Debian packages only, into build/guest/ (see build/guest/README once built,
# and docs/decisions/0033-test-guest.md for why it is made this way).
#
#   build/guest/vmlinuz     the Debian kernel linux-image-amd64 depends on
#   build/guest/vmlinux     the same kernel uncompressed (ELF, PVH entry):
#                           QEMU's -kernel boots it ~2 s sooner under TCG
#   build/guest/initrd.img  a busybox-static initramfs with the NIC and disk
#                           modules; its init reads nd.* from the kernel line
#   build/guest/disk.qcow2  a 32 MiB disk booting the same kernel and initrd
#                           by SeaBIOS and syslinux, with a scratch partition
#   build/guest/README      what these are and the kernel arguments
#
# Nothing is installed system-wide and nothing needs root: the kernel package
# is fetched with `apt-get download` into build/guest/debs and unpacked with
# `dpkg-deb -x`; the initramfs is a cpio archive made with owner 0:0; the disk
# is a file written by mkfs.fat, syslinux and mcopy, without mounting it.
# The tools it uses come from Debian packages that `make guest` installs.
#
# Re-running it does nothing while every output is newer than this script.
# Usage: scripts/build-guest.sh [OUTDIR]   (default: build/guest)
set -euo pipefail

script=$(readlink -f "${BASH_SOURCE[0]}")
root=$(cd "$(dirname "$script")/.." && pwd)
out=${1:-$root/build/guest}
mkdir -p "$out"
out=$(cd "$out" && pwd)
outputs=(vmlinuz vmlinux initrd.img disk.qcow2 README)

# Kernel arguments that shorten the boot under TCG (measured: see README).
FAST_ARGS="console=ttyS0 quiet nokaslr mitigations=off tsc=reliable cryptomgr.notests"
# The disk: 32 MiB, partition 1 (FAT16, boot) from 1 MiB to 24 MiB, partition
# 2 (the scratch region tests overwrite) from 24 MiB to the end.
DISK_MIB=32
BOOT_START=2048       # sectors of 512 bytes
SCRATCH_START=49152   # 24 MiB
DISK_SECTORS=$((DISK_MIB * 2048))
SCRATCH_MARK="nodedesk-guest scratch partition: tests may overwrite it"
# The kernel modules the guest loads, in the order given, each after the
# modules it depends on. First the NICs (e1000 is GNS3's default QEMU
# adapter): the guest brings their links up before it loads the others, for
# e1000's first link-up takes up to 2 s under TCG. Then the disks (IDE as
# /dev/sda, virtio as /dev/vda) and the ACPI power button with its input
# events, so that an ACPI shutdown request powers the guest off.
NET_MODULES=(e1000 virtio_pci virtio_net)
MORE_MODULES=(ata_piix sd_mod virtio_blk button evdev)

up_to_date() {
	local f
	for f in "${outputs[@]}"; do
		[[ -s $out/$f && $out/$f -nt $script ]] || return 1
	done
}

if up_to_date; then
	exit 0
fi

die() {
	echo "build-guest: $*" >&2
	exit 1
}

# One build at a time in one output folder; the second waits, then finds the
# outputs made.
exec 9>"$out/.lock"
flock 9
if up_to_date; then
	exit 0
fi

need=()
for tool in apt-get apt-cache dpkg-deb cpio gzip xz mkfs.fat syslinux mcopy qemu-img; do
	command -v "$tool" >/dev/null 2>&1 || need+=("$tool")
done
busybox=$(dpkg -L busybox-static 2>/dev/null | grep -m1 '/bin/busybox$' || true)
[[ -n $busybox && -x $busybox ]] || need+=(busybox-static)
mbr=/usr/lib/syslinux/mbr/mbr.bin
[[ -f $mbr ]] || need+=(syslinux-common)
if ((${#need[@]})); then
	die "missing ${need[*]}: run \`make guest\` (it installs them) or" \
		"\`sudo apt-get install busybox-static syslinux syslinux-common mtools dosfstools cpio xz-utils qemu-utils\`"
fi

work=$(mktemp -d "$out/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT

# --- the kernel package -----------------------------------------------------

sudo_cmd() {
	if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# The version linux-image-amd64 depends on, e.g. linux-image-6.1.0-56-amd64.
kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}
pkg=$(kernel_pkg)
if [[ -z $pkg ]]; then
	echo "build-guest: apt knows no linux-image-amd64; running apt-get update" >&2
	sudo_cmd apt-get update -qq
	pkg=$(kernel_pkg)
fi
[[ -n $pkg ]] || die "apt-cache cannot resolve linux-image-amd64: check /etc/apt/sources.list"
kver=${pkg#linux-image-}

debs=$out/debs
mkdir -p "$debs"
deb=$(ls "$debs/${pkg}"_*.deb 2>/dev/null | tail -n1 || true)
if [[ -z $deb ]]; then
	echo "build-guest: downloading $pkg"
	sandbox=()
	[[ $(id -u) -ne 0 ]] || sandbox=(-o APT::Sandbox::User=root)
	(cd "$work" && apt-get download -q "${sandbox[@]}" "$pkg")
	mv "$work/${pkg}"_*.deb "$debs/"
	deb=$(ls "$debs/${pkg}"_*.deb | tail -n1)
fi

echo "build-guest: unpacking $(basename "$deb")"
kroot=$work/kernel
dpkg-deb -x "$deb" "$kroot"
moddir=$kroot/lib/modules/$kver
[[ -f $kroot/boot/vmlinuz-$kver && -d $moddir ]] || die "$deb holds no vmlinuz-$kver or modules"
# The package leaves modules.dep to its postinst; busybox depmod makes it.
[[ -f $moddir/modules.dep ]] || "$busybox" depmod -b "$kroot" "$kver"

# --- the initramfs ----------------------------------------------------------

declare -A dep_of=() path_of=() loaded=()
while IFS= read -r line; do
	mod=${line%%:*}
	name=$(basename "$mod")
	name=${name%%.ko*}
	name=${name//-/_}
	path_of[$name]=$mod
	dep_of[$name]=${line#*:}
done <"$moddir/modules.dep"

order=()
add_module() { # name: queue it after everything it depends on
	local name=${1//-/_} dep d
	[[ -n ${loaded[$name]:-} ]] && return 0
	[[ -n ${path_of[$name]:-} ]] || die "no module $name in $pkg"
	for dep in ${dep_of[$name]}; do
		d=$(basename "$dep")
		add_module "${d%%.ko*}"
	done
	loaded[$name]=1
	order+=("$name")
}
for m in "${NET_MODULES[@]}"; do add_module "$m"; done
net_count=${#order[@]}
for m in "${MORE_MODULES[@]}"; do add_module "$m"; done

ir=$work/initramfs
mkdir -p "$ir"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,root,var/log,etc/acpi/PWRF,lib/modules}
ln -s ../run "$ir/var/run"
cp "$busybox" "$ir/bin/busybox"
for applet in $("$busybox" --list-full); do
	[[ $applet == bin/busybox || -e $ir/$applet ]] && continue
	ln -s /bin/busybox "$ir/$applet"
done

printf '%s\n' "${order[@]:0:net_count}" >"$ir/lib/modules/net.order"
printf '%s\n' "${order[@]:net_count}" >"$ir/lib/modules/more.order"
for name in "${order[@]}"; do
	src=$moddir/${path_of[$name]}
	case $src in
	*.ko) cp "$src" "$ir/lib/modules/$name.ko" ;;
	*.ko.xz) xz -dc "$src" >"$ir/lib/modules/$name.ko" ;;
	*.ko.zst) zstd -qdc "$src" >"$ir/lib/modules/$name.ko" ;;
	*.ko.gz) gzip -dc "$src" >"$ir/lib/modules/$name.ko" ;;
	*) die "unknown module format: $src" ;;
	esac
done

cat >"$ir/init" <<'EOF'
#!/bin/sh
# nodedesk test guest: prepares the machine, then hands over to busybox init
# (/etc/inittab), which runs a root shell on ttyS0 and respawns it on exit.
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts
mount -t devpts devpts /dev/pts
exec </dev/console >/dev/console 2>&1

load() { # list: insmod the modules it names, in order
	while read -r m; do
		insmod "/lib/modules/$m.ko" || echo "nodedesk-guest: cannot load $m"
	done <"/lib/modules/$1"
}
load net.order
for dev in /sys/class/net/eth*; do
	[ -e "$dev" ] && ip link set "${dev##*/}" up
done
load more.order

hostname guest
ip link set lo up
gw=
for arg in $(cat /proc/cmdline); do
	case $arg in
	nd.name=?*) hostname "${arg#nd.name=}" ;;
	nd.gw=?*) gw=${arg#nd.gw=} ;;
	nd.ip=?* | nd.ip[0-9]*=?*)
		key=${arg%%=*}
		n=${key#nd.ip}
		dev=eth${n:-0}
		ip addr add "${arg#*=}" dev "$dev" || echo "nodedesk-guest: cannot give $dev ${arg#*=}"
		;;
	esac
done
# Wait (at most 3 s) for the links that have an address to carry, so that a
# ping sent after the ready line goes out.
for dev in $(ip -o addr show | awk '$2 != "lo" && $3 == "inet" { print $2 }'); do
	i=0
	while [ "$(cat "/sys/class/net/$dev/carrier" 2>/dev/null)" != 1 ] && [ $i -lt 30 ]; do
		sleep 0.1
		i=$((i + 1))
	done
done
[ -n "$gw" ] && { ip route add default via "$gw" || echo "nodedesk-guest: cannot add route via $gw"; }
acpid
exec /sbin/init
EOF
chmod 755 "$ir/init"

cat >"$ir/etc/inittab" <<'EOF'
ttyS0::respawn:-/bin/sh
::ctrlaltdel:/sbin/reboot
::shutdown:/bin/sync
EOF

cat >"$ir/etc/profile" <<'EOF'
export PATH=/sbin:/bin:/usr/sbin:/usr/bin HOME=/root
export PS1="$(hostname)# "
cd /root
if [ ! -e /run/ready ]; then
	: >/run/ready
	echo "nodedesk-guest: ready"
fi
EOF

# busybox acpid runs /etc/acpi/PWRF/00000080 on the ACPI power button.
printf '#!/bin/sh\npoweroff\n' >"$ir/etc/acpi/PWRF/00000080"
chmod 755 "$ir/etc/acpi/PWRF/00000080"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$ir/etc/passwd"
printf 'root:x:0:\n' >"$ir/etc/group"

echo "build-guest: initramfs with ${order[*]}"
find "$ir" -exec touch -h -d @0 {} + # the same archive from the same inputs
(cd "$ir" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc --owner 0:0 --reproducible) | gzip -9n >"$work/initrd.img"
cp "$kroot/boot/vmlinuz-$kver" "$work/vmlinuz"

# The bzImage's payload is the compressed ELF kernel; its place is in the boot
# header (boot protocol 2.08+: setup_sects, payload_offset, payload_length).
# Under TCG, decompressing it in the guest takes about 2 s.
header() { od -An -tu"$2" -j "$1" -N"$2" "$work/vmlinuz" | tr -d ' '; }
setup_sects=$(header $((0x1f1)) 1)
((setup_sects)) || setup_sects=4
payload_at=$(((setup_sects + 1) * 512 + $(header $((0x248)) 4)))
payload_len=$(header $((0x24c)) 4)
dd if="$work/vmlinuz" of="$work/payload" iflag=skip_bytes,count_bytes \
	skip="$payload_at" count="$payload_len" bs=64K status=none
case $(od -An -tx1 -N4 "$work/payload" | tr -d ' ') in
fd377a58) xz -dc --single-stream <"$work/payload" >"$work/vmlinux" ;;
1f8b*) gzip -dc <"$work/payload" >"$work/vmlinux" ;;
28b52ffd) zstd -qdc <"$work/payload" >"$work/vmlinux" ;;
*) die "vmlinuz-$kver: unknown payload compression" ;;
esac
rm -f "$work/payload"
[[ $(od -An -c -j1 -N3 "$work/vmlinux" | tr -d ' ') == ELF ]] || die "vmlinuz-$kver: its payload is no ELF kernel"
rm -rf "$kroot"

# --- the disk ---------------------------------------------------------------

le32() { # n: the 4 little-endian bytes of n, as printf escapes
	printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255))
}
part() { # boot-flag type start sectors: one MBR partition entry (LBA only)
	printf '%b' "\\x$1\\xfe\\xff\\xff\\x$2\\xfe\\xff\\xff$(le32 "$3")$(le32 "$4")"
}

raw=$work/disk.raw
truncate -s "${DISK_MIB}M" "$raw"
boot_sectors=$((SCRATCH_START - BOOT_START))
{
	cat "$mbr"
	printf '%b' '\x6e\x64\x67\x31\x00\x00' # disk signature "ndg1", then 2 reserved bytes
	part 80 0e "$BOOT_START" "$boot_sectors"
	part 00 da "$SCRATCH_START" $((DISK_SECTORS - SCRATCH_START))
	head -c 32 /dev/zero
	printf '%b' '\x55\xaa'
} | dd of="$raw" conv=notrunc status=none
[[ $(head -c 512 "$raw" | wc -c) -eq 512 ]] || die "the MBR is not 512 bytes"

# (mkfs.fat warns that the file is larger than the file system: it is meant.)
mkfs.fat -F 16 -n NDGUEST -i 6e646731 --offset "$BOOT_START" -h "$BOOT_START" \
	"$raw" $((boot_sectors / 2)) >"$work/mkfs.log" 2>&1 || { cat "$work/mkfs.log" >&2; die "mkfs.fat failed"; }
syslinux --offset $((BOOT_START * 512)) --install "$raw"
cat >"$work/syslinux.cfg" <<EOF
SERIAL 0 115200
DEFAULT guest
PROMPT 0
TIMEOUT 0
LABEL guest
  LINUX /vmlinuz
  INITRD /initrd.img
  APPEND $FAST_ARGS
EOF
MTOOLS_SKIP_CHECK=1 mcopy -i "$raw@@$((BOOT_START * 512))" \
	"$work/vmlinuz" "$work/initrd.img" "$work/syslinux.cfg" ::/
printf '%s\n' "$SCRATCH_MARK" | dd of="$raw" bs=512 seek="$SCRATCH_START" conv=notrunc status=none
qemu-img convert -q -f raw -O qcow2 "$raw" "$work/disk.qcow2"
rm -f "$raw"

# --- the README -------------------------------------------------------------

cat >"$work/README" <<EOF
nodedesk test guest, made by scripts/build-guest.sh (\`make guest\`; \`make test\`
runs it) from Debian packages only. Do not edit: delete this folder, or touch
the script, and run it again.

vmlinuz      the Debian kernel $kver (bzImage), from $(basename "$deb"),
             the version linux-image-amd64 depends on, unpacked with dpkg-deb -x.
vmlinux      the same kernel, its payload decompressed: an ELF with a PVH entry
             that QEMU's -kernel boots directly, about 2 s sooner under TCG
             than vmlinuz (which the guest decompresses itself).
initrd.img   a gzip'd newc cpio (owner 0:0) of busybox-static and the modules
               ${order[*]}
             Its /init mounts proc, sysfs, devtmpfs and devpts, insmods the NIC
             modules and brings every ethN up, insmods the others, brings lo
             up, reads the nd.* arguments below, waits (at most 3 s) for the
             links it gave an address to carry, starts acpid, then busybox
             init, which runs a root shell with job control on ttyS0 and a new
             one when it exits.
disk.qcow2   a ${DISK_MIB} MiB disk that SeaBIOS boots: syslinux's MBR; partition 1
             (FAT16, bootable, sectors $BOOT_START-$((SCRATCH_START - 1))) holds syslinux, vmlinuz,
             initrd.img and syslinux.cfg, which boots them with
               $FAST_ARGS
             (no nd.ip: type the addresses at the shell); partition 2 is the
             scratch region below. Made without mounting or loop devices:
             mkfs.fat --offset, syslinux --install --offset and mcopy on a raw
             file, then qemu-img convert -O qcow2. Use it as the base of
             linked clones (qemu-img create -f qcow2 -F qcow2 -b disk.qcow2 ...).

Kernel command line, for -kernel vmlinux (or vmlinuz) -initrd initrd.img:
  $FAST_ARGS
      the console on ttyS0, and what shortens the boot under TCG; then
  nd.ip=ADDR/LEN      the address of eth0 (e.g. nd.ip=10.9.0.1/24)
  nd.ip1=ADDR/LEN     of eth1; nd.ip2= of eth2, and so on
  nd.gw=ADDR          a default route via ADDR
  nd.name=NAME        the host name, and so the prompt (default: guest)
Memory: 88 MiB is the least it boots with (-m 84 runs out); give it 128.

Console (ttyS0): once per boot, right before the first prompt, the line
  nodedesk-guest: ready
then the prompt "NAME# " ("guest# " unless nd.name= says otherwise). busybox's
line editing follows each prompt with ESC [ 6 n (a cursor position query) that
a terminal answers and a test may ignore. ping, ip, dd, poweroff... are busybox
applets; the shell runs as root. The ACPI power button (QMP system_powerdown)
powers the guest off.

Scratch region: partition 2 (type 0xda), the disk's last $(((DISK_SECTORS - SCRATCH_START) / 2048)) MiB:
  byte offset $((SCRATCH_START * 512)) (sector $SCRATCH_START) to $((DISK_SECTORS * 512)), /dev/sda2 on IDE, /dev/vda2 on virtio.
Nothing reads it; tests may write it with dd from inside the guest. In the base
image it starts with the line "$SCRATCH_MARK"
and the rest is zeros; read it without writing the image with
  qemu-io -r -c 'read -v $((SCRATCH_START * 512)) 64' disk.qcow2
EOF

for f in "${outputs[@]}"; do
	[[ $f == disk.qcow2 ]] || mv -f "$work/$f" "$out/$f"
done
mv -f "$work/disk.qcow2" "$out/disk.qcow2" # last: its presence means the set is whole
echo "build-guest: made $out (kernel $kver)"
