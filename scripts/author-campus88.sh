#!/usr/bin/env bash
# author-campus88.sh — builds the big lab of the canvas tests (issue 25) in the
# real gns3-server 2.2.59 and keeps GNS3's own export of it as
# frontend/e2e/fixtures/campus88.gns3project. No public 60–90-node GNS3
# project with shapes may be copied into this repository (each one found has
# no licence), so this lab is drawn here, through gns3-server's REST API as a
# GNS3 client draws one, and the file is the one gns3-server writes: its
# nodes, labels, symbols, console ports, port names, drawings, link styles
# and project-files are GNS3's, not ours.
#
# A developer's tool, not CI. It needs:
#   - the gns3-server source and the Python packages scripts/gns3server.sh
#     names: GNS3SERVER_SRC (a 2.2.59 tree) or GNS3SERVER_GIT (a mirror of
#     its repository; v2.2.59 is archived from it);
#   - qemu-system-x86 (GNS3 looks the binary up for a QEMU node) and vpcs;
#   - a dynamips binary: DYNAMIPS=/path (default build/dynamips/dynamips,
#     which `make dynamips` builds); GNS3's Ethernet switches run in it;
#   - a ubridge binary (gns3-server 2.2 links every router through one):
#     UBRIDGE=/path (default build/bench-gns3/ubridge, which
#     `make bench-gns3` builds);
#   - the stand-in images in FAKE_IOS (default ../shared/fake-ios);
#   - root, for an empty bridge named virbr0 (as libvirt makes one) while
#     it runs, when the machine has none: GNS3's NAT node refuses to exist
#     without it.
# Everything listens on 127.0.0.1; the script stops what it started and
# removes the interface it added.
#
#   GNS3SERVER_GIT=/path/to/gns3-server.git scripts/author-campus88.sh
#
# The lab: four sites, each in a filled rectangle at z=0 with a black title
# note, around a core of four Dynamips c7200s in an ellipse; per site a
# distribution switch, two access switches, 16 VPCS and a QEMU server; a
# cloud bound to a host interface no machine has (nd-missing0), a NAT, and
# two IOU switches nodedesk keeps but does not run. 88 nodes, 86 links, 12
# drawings, about 4,400 × 2,300 px: at 1440×900 with the side panels shown it
# fits only below zoom 0.2. Positions are jittered a little, as a hand
# places them, and each node but the IOU ones gets the update gns3-gui sends
# when a node is moved (its label placed and styled).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/frontend/e2e/fixtures/campus88.gns3project
GNS3_PORT=${GNS3_PORT:-3187}
shared=${SHARED:-$root/../shared} # beside the checkout, or SHARED=<folder>
FAKE_IOS=${FAKE_IOS:-$shared/fake-ios}
dynamips=$(realpath "${DYNAMIPS:-$root/build/dynamips/dynamips}")
ubridge=$(realpath "${UBRIDGE:-$root/build/bench-gns3/ubridge}")
work=$(mktemp -d /tmp/author-campus88.XXXXXX)
# shellcheck source=scripts/gns3server.sh
. "$root/scripts/gns3server.sh"
pids=()
dummy=
cleanup() {
	stop_started
	[[ -n "$dummy" ]] && ip link del "$dummy" 2>/dev/null || true
	echo "work files kept in $work" >&2
}
trap cleanup EXIT

gns3_source
[[ -x "$dynamips" ]] || { echo "no dynamips at $dynamips: run make dynamips or set DYNAMIPS" >&2; exit 1; }
[[ -x "$ubridge" ]] || { echo "no ubridge at $ubridge: run make bench-gns3 or set UBRIDGE" >&2; exit 1; }
if ! ip link show virbr0 >/dev/null 2>&1; then
	ip link add virbr0 type bridge
	dummy=virbr0
fi

mkdir -p "$work/images/IOS" "$work/images/IOU" "$work/projects"
cp "$FAKE_IOS/fake-ios-c7200.image" "$work/images/IOS/"
# IOU nodes only name their image until they start; a stand-in file will do.
printf 'not an IOU image\n' >"$work/images/IOU/iou-l2-stand-in.bin"
gns3_config "$GNS3_PORT" "$ubridge" "$dynamips"
gns3_start "$work/home" "$work/gns3.log" --config "$work/gns3_server.conf" --port "$GNS3_PORT"

SCRIPTS=$root/scripts OUT=$out WORK=$work /usr/bin/python3 - "$GNS3_PORT" <<'EOF'
import os, random, sys

sys.path.insert(0, os.environ["SCRIPTS"])
from gns3api import Server, wait_up

OUT, WORK = os.environ["OUT"], os.environ["WORK"]
gns3 = Server("http://127.0.0.1:%s/v2" % sys.argv[1])
call, must = gns3.call, gns3.must
wait_up(gns3, log=WORK + "/gns3.log")
print("gns3-server", must("GET", "/version")["version"])

pid = must("POST", "/projects", {"name": "campus88"})["project_id"]
P = "/projects/" + pid
rnd = random.Random(88)  # the same jitter every run
counts = {"nodes": 0, "links": 0, "drawings": 0}

LABEL_STYLE = "font-family: TypeWriter;font-size: 10.0;font-weight: bold;fill: #000000;fill-opacity: 1.0;"

def node(node_type, name, x, y, properties=None, placed=True, **extra):
    body = {"name": name, "node_type": node_type, "compute_id": "local",
            "x": round(x + rnd.uniform(-12, 12)), "y": round(y + rnd.uniform(-8, 8)),
            "properties": properties or {}}
    body.update(extra)
    counts["nodes"] += 1
    n = must("POST", P + "/nodes", body)
    if placed:
        # What gns3-gui sends when a node is dropped where the user wants it
        # (gns3/node.py setGraphics): the position and the label as drawn,
        # centred above the symbol in its default font.
        must("PUT", P + "/nodes/" + n["node_id"], {
            "x": n["x"], "y": n["y"], "z": n["z"], "symbol": n["symbol"], "locked": False,
            "label": {"text": name, "x": round(n["width"] / 2 - len(name) * 3.8), "y": -25, "rotation": 0,
                      "style": LABEL_STYLE}})
    return n["node_id"]

def end(node_id, adapter, port):
    return {"node_id": node_id, "adapter_number": adapter, "port_number": port}

def link(a, b, **extra):
    counts["links"] += 1
    must("POST", P + "/links", dict(nodes=[a, b], **extra))

def drawing(svg, x, y, z):
    counts["drawings"] += 1
    must("POST", P + "/drawings", {"svg": svg, "x": x, "y": y, "z": z})

def note(text, size=22):
    return ('<svg height="%d" width="%d"><text fill="#000000" fill-opacity="1.0" font-family="TypeWriter" '
            'font-size="%d.0" font-weight="bold">%s</text></svg>' % (size + 12, len(text) * size * 0.62, size, text))

SITE_W, SITE_H = 1900, 900
cx, cy = SITE_W + 300, SITE_H + 250

# The core: four routers in a ring, in an ellipse at the centre.
drawing('<svg height="420" width="700"><ellipse cx="350" cy="210" fill="#fde9c9" fill-opacity="1.0" rx="350" '
        'ry="210" stroke="#b7791f" stroke-width="2" /></svg>', cx - 350, cy - 210, 0)
drawing(note("CORE"), cx - 40, cy - 200, 1)
router = {"platform": "c7200", "image": "fake-ios-c7200.image", "ram": 512, "slot0": "C7200-IO-FE", "slot1": "PA-4E"}
R = [node("dynamips", "R%d" % (i + 1), x, y, dict(router))
     for i, (x, y) in enumerate([(cx - 200, cy - 120), (cx + 120, cy - 120), (cx + 120, cy + 80), (cx - 200, cy + 80)])]
ring = {"color": "#b7791f", "width": 3, "type": 1}
for i in range(4):
    link(end(R[i], 1, 0), end(R[(i + 1) % 4], 1, 1), link_style=ring)

# Four sites, one per corner, each in a filled rectangle at z=0.
FILL = ["#dbe9ff", "#dff5e3", "#f6e0f5", "#fff4cc"]
corners = [(0, 0), (SITE_W + 700, 0), (0, SITE_H + 600), (SITE_W + 700, SITE_H + 600)]
for s, (ox, oy) in enumerate(corners):
    drawing('<svg height="%d" width="%d"><rect fill="%s" fill-opacity="1.0" height="%d" stroke="#5d6778" '
            'stroke-width="2" width="%d" /></svg>' % (SITE_H, SITE_W, FILL[s], SITE_H, SITE_W), ox, oy, 0)
    drawing(note("SITE %d" % (s + 1)), ox + 24, oy + 16, 1)
    dist = node("ethernet_switch", "DSW%d" % (s + 1), ox + SITE_W / 2 - 40, oy + 120)
    link(end(dist, 0, 0), end(R[s], 0, 0))
    access = [node("ethernet_switch", "ASW%d-%d" % (s + 1, a + 1), ox + 380 + a * 1000, oy + 380) for a in range(2)]
    for a, sw in enumerate(access):
        link(end(sw, 0, 0), end(dist, 0, 1 + a))
    pc = 0
    for a, sw in enumerate(access):
        for p in range(7):
            pc += 1
            h = node("vpcs", "PC%d-%d" % (s + 1, pc), ox + 60 + a * 1000 + p * 125, oy + 640 + (p % 2) * 110)
            link(end(h, 0, 0), end(sw, 0, 1 + p))
    for p in range(2):
        pc += 1
        h = node("vpcs", "PC%d-%d" % (s + 1, pc), ox + SITE_W / 2 - 200 + p * 160, oy + 260)
        link(end(h, 0, 0), end(dist, 0, 3 + p))
    srv = node("qemu", "SRV%d" % (s + 1), ox + SITE_W / 2 + 120, oy + 260,
               {"platform": "x86_64", "adapters": 1, "ram": 256},
               symbol=":/symbols/server.svg")
    link(end(srv, 0, 0), end(dist, 0, 5))

# The edge: a cloud bound to a host interface no machine has, a NAT, and
# two IOU switches nodedesk keeps but does not run.
cloud = node("cloud", "Internet", cx - 420, cy - 360, {
    "ports_mapping": [{"interface": "nd-missing0", "name": "nd-missing0", "port_number": 0, "type": "ethernet"}]})
nat = node("nat", "NAT1", cx + 340, cy - 360)
link(end(R[0], 1, 2), end(cloud, 0, 0))
link(end(R[1], 1, 2), end(nat, 0, 0))
for i, x in enumerate([cx - 120, cx + 60]):
    node("iou", "IOU-L2-%d" % (i + 1), x, cy + 300,
         {"path": "iou-l2-stand-in.bin", "ethernet_adapters": 2, "serial_adapters": 0, "ram": 256, "nvram": 128},
         placed=False)  # never moved: GNS3 keeps their labels unplaced
drawing(note("Campus lab: 4 sites, 88 nodes", 28), 0, -80, 1)
drawing('<svg height="4" width="600"><line stroke="#5d6778" stroke-width="3" x1="0" x2="600" y1="2" y2="2" /></svg>',
        0, -30, 0)

if counts["nodes"] != 88:
    sys.exit("the lab has %d nodes, not 88" % counts["nodes"])
st, data = call("GET", P + "/export?include_images=no&include_snapshots=no")
if st != 200:
    sys.exit("export: %s %s" % (st, data))
with open(OUT, "wb") as f:
    f.write(data)
must("POST", P + "/close")
must("DELETE", P)
print("wrote %s (%d bytes): %d nodes, %d links, %d drawings, by gns3-server's export" %
      (OUT, len(data), counts["nodes"], counts["links"], counts["drawings"]))
EOF
