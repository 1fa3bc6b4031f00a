#!/usr/bin/env bash
# Measures an export with images and its import on the built server
# (make server): wall time of each, and the server's peak RSS (VmHWM)
# after start, after the export and after the import, for a project whose
# QEMU node carries an image of SIZE_MB (default 1024) MiB of random
# bytes (incompressible, as a qcow2 is). Everything lives in a temporary
# folder (HOME too, so no ~/GNS3/images is read), removed at the end.
#   scripts/measure-travel.sh [SIZE_MB] [compression: zip|none]
set -euo pipefail
SIZE_MB=${1:-1024}
COMPRESSION=${2:-zip}
BIN=${NODEDESK_BIN:-$(cd "$(dirname "$0")/.." && pwd)/build/bin/nodedesk-server}
TMP=$(mktemp -d /tmp/nodedesk-travel.XXXXXX)
PORT=$((20000 + RANDOM % 20000))
API=http://127.0.0.1:$PORT/v2
mkdir -p "$TMP/home" "$TMP/data/images/QEMU"
cleanup() {
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT
hwm() { awk '/VmHWM/ {print $2/1024 " MiB"}' "/proc/$SERVER/status"; }
rss() { awk '/VmRSS/ {print $2/1024 " MiB"}' "/proc/$SERVER/status"; }

head -c "$((SIZE_MB << 20))" /dev/urandom >"$TMP/data/images/QEMU/big.qcow2"
HOME=$TMP/home "$BIN" --headless --listen "127.0.0.1:$PORT" --db "$TMP/data/nodedesk.db" >"$TMP/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do curl -sf "$API/version" >/dev/null && break; sleep 0.1; done
echo "server $SERVER up: VmHWM $(hwm)"

PID=$(curl -sf -X POST "$API/projects" -d '{"name":"travel-measure"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["project_id"])')
curl -sf -X POST "$API/projects/$PID/nodes" \
  -d '{"node_type":"qemu","name":"Q1","compute_id":"local","properties":{"hda_disk_image":"big.qcow2","ram":64}}' >/dev/null

t0=$(date +%s.%N)
curl -sf -o "$TMP/out.gns3project" "$API/projects/$PID/export?include_images=yes&compression=$COMPRESSION"
t1=$(date +%s.%N)
echo "export ($COMPRESSION, ${SIZE_MB} MiB image): $(echo "$t1 - $t0" | bc) s, archive $(($(stat -c %s "$TMP/out.gns3project") >> 20)) MiB; VmHWM $(hwm), VmRSS $(rss)"

curl -sf -X DELETE "$API/projects/$PID" >/dev/null
rm -f "$TMP/data/images/QEMU/big.qcow2" "$TMP/data/images/QEMU/big.qcow2.md5sum"
NEW=$(python3 -c 'import uuid; print(uuid.uuid4())')
t0=$(date +%s.%N)
curl -sf -X POST -H 'Content-Type: application/octet-stream' -T "$TMP/out.gns3project" "$API/projects/$NEW/import" >/dev/null
t1=$(date +%s.%N)
echo "import: $(echo "$t1 - $t0" | bc) s; image back: $(($(stat -c %s "$TMP/data/images/QEMU/big.qcow2") >> 20)) MiB; VmHWM $(hwm), VmRSS $(rss)"
