#!/usr/bin/env bash
# gns3-interop.sh — the real GNS3 2.2.59 server as controller, nodedesk as
# its compute (issue 15, part 3). A developer's check, not CI: it needs the
# gns3-server source and the Python packages scripts/gns3server.sh names,
# and the vpcs simulator. Everything listens on 127.0.0.1 only; the script
# stops what it started.
#
#   GNS3SERVER_SRC=/path/to/gns3-server-2.2.59 scripts/gns3-interop.sh
#
# or, with a mirror of the gns3-server repository,
#
#   GNS3SERVER_GIT=/path/to/gns3-server.git scripts/gns3-interop.sh
#
# It adds nodedesk as compute "nd", creates a project with two VPCS, an
# Ethernet switch and a hub on it (PC1 — switch — hub — PC2), starts them,
# duplicates a VPCS, pings across over the VPCS consoles, suspends and resumes a link, captures
# through the controller's pcap proxy, closes and reopens the project (the
# controller makes every node and link again), exports it (the controller
# reads the compute's files) and deletes it.
set -euo pipefail

GNS3_PORT=${GNS3_PORT:-3180}
ND_PORT=${ND_PORT:-3390}
ND_UDP=${ND_UDP:-26000-27000}
work=$(mktemp -d /tmp/gns3-interop.XXXXXX)
# shellcheck source=scripts/gns3server.sh
. "$(dirname "$0")/gns3server.sh"
pids=()
cleanup() {
	stop_started
	echo "logs kept in $work"
}
trap cleanup EXIT

gns3_source

cd "$(dirname "$0")/.."
go build -o "$work/nodedesk" .
gns3_start "$work/home" "$work/gns3.log" --port "$GNS3_PORT"
"$work/nodedesk" --headless --listen "127.0.0.1:$ND_PORT" --db "$work/nd.db" --udp-ports "$ND_UDP" >"$work/nodedesk.log" 2>&1 &
pids+=($!)

SCRIPTS=$PWD/scripts WORK=$work /usr/bin/python3 - "$GNS3_PORT" "$ND_PORT" <<'EOF'
import os, re, socket, sys, time

sys.path.insert(0, os.environ["SCRIPTS"])
from gns3api import Server, wait_up

gns3 = Server("http://127.0.0.1:%s/v2" % sys.argv[1], timeout=60)
ND = int(sys.argv[2])
nd = Server("http://127.0.0.1:%d/v2" % ND, timeout=60)
call, must = gns3.call, gns3.must
wait_up(gns3, nd, seconds=30, log=os.environ["WORK"])

comp = must("POST", "/computes", {"compute_id": "nd", "protocol": "http", "host": "127.0.0.1", "port": ND})
print("compute nd: connected=%s version=%s" % (comp["connected"], comp["capabilities"].get("version")))
p = must("POST", "/projects", {"name": "nodedesk-interop-%d" % time.time()})["project_id"]
tmpl = {t["template_type"]: t["template_id"] for t in must("GET", "/templates")}

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port

nodes = {}
for name, typ in [("PC1", "vpcs"), ("PC2", "vpcs"), ("SW", "ethernet_switch"), ("HUB", "ethernet_hub")]:
    n = must("POST", "/projects/%s/templates/%s" % (p, tmpl[typ]), {"compute_id": "nd", "x": 0, "y": 0})
    if typ == "vpcs":  # a console port nothing else on this machine holds now
        n = must("PUT", "/projects/%s/nodes/%s" % (p, n["node_id"]), {"console": free_port()})
    nodes[name] = n
    print("node %s: %s on %s, console %s" % (name, n["node_type"], n["compute_id"], n["console"]))

def link(a, pa, b, pb):
    return must("POST", "/projects/%s/links" % p, {"nodes": [
        {"node_id": nodes[a]["node_id"], "adapter_number": 0, "port_number": pa},
        {"node_id": nodes[b]["node_id"], "adapter_number": 0, "port_number": pb}]})["link_id"]

dup = must("POST", "/projects/%s/nodes/%s/duplicate" % (p, nodes["PC1"]["node_id"]), {"x": 50, "y": 50, "z": 1})
print("duplicate of PC1: %s on %s" % (dup["name"], dup["compute_id"]))
must("DELETE", "/projects/%s/nodes/%s" % (p, dup["node_id"]))

l1 = link("PC1", 0, "SW", 0)
link("SW", 1, "HUB", 0)
link("PC2", 0, "HUB", 1)

def console(name):
    s = socket.create_connection(("127.0.0.1", nodes[name]["console"]), timeout=5)
    s.settimeout(0.5)
    return s

def read(s, secs):
    out, end = b"", time.time() + secs
    while time.time() < end:
        try:
            b = s.recv(4096)
            if not b:
                break
            out += b
        except socket.timeout:
            pass
    return re.sub(r"[\x00-\x08\x0b-\x1f\x7f-\xff]", "", out.decode("latin1").replace("\r", ""))

def cmd(s, line, secs=2):
    s.sendall(line.encode() + b"\r\n")
    return read(s, secs)

def ping(label, want):
    c1, c2 = console("PC1"), console("PC2")
    read(c1, 1); read(c2, 1)
    cmd(c1, "ip 10.0.0.1/24"); cmd(c2, "ip 10.0.0.2/24")
    out = cmd(c1, "ping 10.0.0.2 -c 3", 7)
    c1.close(); c2.close()
    replies = out.count("ttl=")
    print("--- %s (PC1 -> PC2), %d replies:\n%s" % (label, replies, "\n".join(l for l in out.splitlines() if "icmp_seq" in l or "not reachable" in l)))
    if (replies > 0) != want:
        sys.exit("FAIL: %s: %s" % (label, "no reply" if want else "replies crossed"))

must("POST", "/projects/%s/nodes/start" % p, {})
time.sleep(1)
ping("ping through nodedesk NIOs", True)
must("PUT", "/projects/%s/links/%s" % (p, l1), {"suspend": True})
ping("link suspended", False)
must("PUT", "/projects/%s/links/%s" % (p, l1), {"suspend": False})
ping("link resumed", True)

cap = must("POST", "/projects/%s/links/%s/start_capture" % (p, l1), {})
print("capture on compute %s" % cap.get("capture_compute_id"))
# curl, not urllib: when the capture ends, the controller's proxy (GNS3
# 2.2.59 under Debian's aiohttp 3.8.4) writes a second response head inside
# its chunked body, which Python's http.client refuses and curl ignores
# (raw.pcap.txt shows it).
import subprocess, os
work = os.environ["WORK"]
url = "%s/projects/%s/links/%s/pcap" % (gns3.base, p, l1)
follow = subprocess.Popen(["curl", "-s", "-N", "--max-time", "30", "-o", work + "/proxied.pcap", url])
raw = subprocess.Popen(["curl", "-s", "-N", "--raw", "--max-time", "30", "-o", work + "/raw.pcap.txt", url])
time.sleep(1)
ping("ping while capturing", True)
must("POST", "/projects/%s/links/%s/stop_capture" % (p, l1), {})
follow.wait(15); raw.wait(15)
pcap = open(work + "/proxied.pcap", "rb").read()
print("pcap proxied by the controller: %d bytes, magic %s" % (len(pcap), pcap[:4].hex()))
if len(pcap) <= 24:
    sys.exit("FAIL: no frame in the proxied pcap")

must("POST", "/projects/%s/close" % p, {})
must("POST", "/projects/%s/open" % p, {})
must("POST", "/projects/%s/nodes/start" % p, {})
time.sleep(1)
ping("ping after close and reopen", True)
must("POST", "/projects/%s/nodes/stop" % p, {})
st, blob = call("GET", "/projects/%s/export" % p)
import io, zipfile
names = zipfile.ZipFile(io.BytesIO(blob)).namelist() if st == 200 else []
scripts = [n for n in names if n.startswith("project-files/vpcs/") and n.endswith("startup.vpc")]
print("export by the controller: %d, %d files, VPCS scripts from nodedesk: %d" % (st, len(names), len(scripts)))
if len(scripts) != 2:
    sys.exit("FAIL: the export lacks the VPCS scripts")
must("DELETE", "/projects/%s" % p)
st, _ = nd.call("GET", "/projects/%s" % p)
print("project on nodedesk after DELETE: %d" % st)
print("PASS")
EOF
