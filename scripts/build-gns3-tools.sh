#!/bin/sh
# Builds GNS3's ubridge and dynamips for make bench-gns3, from source
# archives (.tar.gz) or unpacked source folders, in OUT (cached: a tool
# whose binary is there is not built again; remove OUT to rebuild).
#
#   scripts/build-gns3-tools.sh UBRIDGE_SRC DYNAMIPS_SRC OUT
#
# Leaves OUT/ubridge and OUT/dynamips. Needs a C toolchain, cmake,
# libpcap-dev and libelf-dev (make bench-gns3 installs them with apt-get).
set -eu
ub_src=$1 dyn_src=$2 out=$3
mkdir -p "$out"

# unpack SRC NAME: a folder's copy or an archive's content in OUT/NAME-src.
unpack() {
	dst="$out/$2-src"
	rm -rf "$dst"
	mkdir -p "$dst"
	if [ -d "$1" ]; then
		cp -a "$1/." "$dst/"
	else
		tar -xzf "$1" -C "$dst" --strip-components=1
	fi
}

if [ ! -x "$out/ubridge" ]; then
	unpack "$ub_src" ubridge
	make -C "$out/ubridge-src" -j2 >"$out/ubridge-build.log" 2>&1 ||
		{ echo "ubridge did not build: see $out/ubridge-build.log" >&2; exit 1; }
	cp "$out/ubridge-src/ubridge" "$out/ubridge"
fi
if [ ! -x "$out/dynamips" ]; then
	unpack "$dyn_src" dynamips
	{ cmake -S "$out/dynamips-src" -B "$out/dynamips-build" -DDYNAMIPS_CODE=stable &&
		cmake --build "$out/dynamips-build" -j2; } >"$out/dynamips-build.log" 2>&1 ||
		{ echo "dynamips did not build: see $out/dynamips-build.log" >&2; exit 1; }
	cp "$out/dynamips-build/stable/dynamips" "$out/dynamips"
fi
"$out/ubridge" -v 2>&1 | head -1 || true
