#!/usr/bin/env bash
# Measures the export of a router lab with snapshots on the built server
# (make server): two c7200 routers on the stand-in IOS image
# (the shared folder's beside the checkout, ../shared/fake-ios, or FAKE_IOS) that have run (ghost RAM and
# scratch files in the project's folder), two snapshots, then an export
# with include_snapshots=yes: its wall time and size, the server's peak
# RSS (VmHWM), and that the archive imports back. Dynamips is
# build/dynamips/dynamips. Everything lives in a temporary folder.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${NODEDESK_BIN:-$ROOT/build/bin/nodedesk-server}
IOS=${FAKE_IOS:-$ROOT/../shared/fake-ios/fake-ios-c7200.image}
[[ -f "$IOS" ]] || { echo "no stand-in IOS image at $IOS: set FAKE_IOS=<path of fake-ios-c7200.image>" >&2; exit 1; }
TMP=$(mktemp -d /tmp/nodedesk-routers.XXXXXX)
PORT=$((20000 + RANDOM % 20000))
API=http://127.0.0.1:$PORT/v2
mkdir -p "$TMP/home" "$TMP/data/images/IOS"
cp "$IOS" "$TMP/data/images/IOS/c7200.image"
cleanup() {
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT
hwm() { awk '/VmHWM/ {print $2/1024 " MiB"}' "/proc/$SERVER/status"; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

PATH=$ROOT/build/dynamips:$PATH HOME=$TMP/home "$BIN" --headless --listen "127.0.0.1:$PORT" --db "$TMP/data/nodedesk.db" >"$TMP/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do curl -sf "$API/version" >/dev/null && break; sleep 0.1; done
echo "server $SERVER up: VmHWM $(hwm)"
PID=$(curl -sf -X POST "$API/projects" -d '{"name":"routers"}' | json '["project_id"]')
for r in R1 R2; do
  curl -sf -X POST "$API/projects/$PID/nodes" -d "{\"node_type\":\"dynamips\",\"name\":\"$r\",\"compute_id\":\"local\",\"properties\":{\"platform\":\"c7200\",\"image\":\"c7200.image\",\"idlepc\":\"0x80008040\"}}" >/dev/null
done
curl -sf -X POST "$API/projects/$PID/nodes/start" >/dev/null
echo "snapshot while running: HTTP $(curl -s -o /dev/null -w '%{http_code}' -X POST "$API/projects/$PID/snapshots" -d '{"name":"live"}')"
curl -sf -X POST "$API/projects/$PID/nodes/stop" >/dev/null
echo "project folder after a run: $(du -sm "$TMP/data/projects/$PID" | cut -f1) MiB on disk, $(du -sm --apparent-size "$TMP/data/projects/$PID" | cut -f1) MiB apparent"
for s in one two; do curl -sf -X POST "$API/projects/$PID/snapshots" -d "{\"name\":\"$s\"}" >/dev/null; done
echo "snapshots: $(du -sm --apparent-size "$TMP/data/projects/$PID/snapshots" | cut -f1) MiB apparent"
t0=$(date +%s.%N)
curl -sf -o "$TMP/out.gns3project" "$API/projects/$PID/export?include_snapshots=yes"
t1=$(date +%s.%N)
echo "export with snapshots: $(echo "$t1 - $t0" | bc) s, $(($(stat -c %s "$TMP/out.gns3project") >> 10)) KiB; VmHWM $(hwm)"
python3 - "$TMP/out.gns3project" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
ghosts = [i.filename for i in z.infolist() if i.filename.endswith('.ghost')]
print("entries:", len(z.infolist()), "ghost entries:", ghosts, "uncompressed MiB:", sum(i.file_size for i in z.infolist()) >> 20)
PY
NEW=$(python3 -c 'import uuid; print(uuid.uuid4())')
echo "import back: HTTP $(curl -s -o /dev/null -w '%{http_code}' -X POST -T "$TMP/out.gns3project" "$API/projects/$NEW/import")"
