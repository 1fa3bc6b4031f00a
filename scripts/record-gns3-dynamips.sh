#!/usr/bin/env bash
# record-gns3-dynamips.sh — records the Dynamips hypervisor commands that the
# real gns3-server 2.2.59 sends for a router of each platform (issues 24, 37).
# A developer's tool, not CI. It needs:
#   - the gns3-server source and the Python packages scripts/gns3server.sh
#     names: GNS3SERVER_SRC (a 2.2.59 tree) or GNS3SERVER_GIT (a mirror of
#     its repository; v2.2.59 is archived from it);
#   - a dynamips binary: DYNAMIPS=/path, or it builds 0.2.24 from
#     ../shared/third_party or THIRD_PARTY (needs cmake build-essential
#     libelf-dev libpcap-dev);
#   - a ubridge binary (gns3-server 2.2 puts a ubridge between every router
#     NIO and its link): UBRIDGE=/path, or it builds 0.9.19 from there;
#   - the stand-in images in FAKE_IOS (default ../shared/fake-ios).
# Builds and logs stay in a /tmp/record-gns3-dynamips.* folder, named at the
# end.
# Everything listens on 127.0.0.1; the script stops what it started.
#
#   GNS3SERVER_GIT=/path/to/gns3-server.git scripts/record-gns3-dynamips.sh [OUTDIR]
#
# OUTDIR (default app/dynamips/testdata/gns3-2.2.59) gets a <case>.log for each
# case in CASES (default all: c7200 c3725 c3640 c3660 c2691 c2610 c2651xm)
# and, with IDLEPC=1, c7200-idlepc.log: for each router, a header of '#' lines
# (the template and node JSON as created, links, ports, folders) and then only
# the "HYPERVISOR: exec_cmd:" lines of the dynamips log gns3-server made it
# write with -l, in order; beside each, a .wire.txt with the same commands as
# gns3-server sent them (quoted) and Dynamips' answers.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/app/dynamips/testdata/gns3-2.2.59}")
GNS3_PORT=${GNS3_PORT:-3186}
shared=${SHARED:-$root/../shared} # beside the checkout, or SHARED=<folder>
FAKE_IOS=${FAKE_IOS:-$shared/fake-ios}
THIRD_PARTY=${THIRD_PARTY:-$shared/third_party}
work=$(mktemp -d /tmp/record-gns3-dynamips.XXXXXX)
# shellcheck source=scripts/gns3server.sh
. "$root/scripts/gns3server.sh"
pids=()
cleanup() {
	stop_started
	echo "work files kept in $work" >&2
}
trap cleanup EXIT

gns3_source

dynamips=${DYNAMIPS:-}
if [[ -z "$dynamips" ]]; then
	b=$work/dynamips-build
	mkdir -p "$b"
	tar -xzf "$THIRD_PARTY/dynamips-0.2.24.tar.gz" -C "$b"
	cmake -S "$b/dynamips-0.2.24" -B "$b/build" -DDYNAMIPS_CODE=stable >"$b/cmake.log"
	cmake --build "$b/build" -j2 >"$b/build.log"
	dynamips=$b/build/stable/dynamips
fi
dynamips=$(realpath "$dynamips")
ubridge=${UBRIDGE:-}
if [[ -z "$ubridge" ]]; then
	b=$work/ubridge-build
	mkdir -p "$b"
	tar -xzf "$THIRD_PARTY/ubridge-0.9.19.tar.gz" -C "$b"
	make -C "$b/ubridge-0.9.19" >"$b/build.log"
	ubridge=$b/ubridge-0.9.19/ubridge
fi
ubridge=$(realpath "$ubridge")

home=$work/home
mkdir -p "$home" "$work/images/IOS" "$work/projects" "$out"
for p in c7200 c3725 c3600 c2691 c2600; do cp "$FAKE_IOS/fake-ios-$p.image" "$work/images/IOS/"; done
gns3_config "$GNS3_PORT" "$ubridge" "$dynamips" "console_start_port_range = 47000" "console_end_port_range = 47500" \
	"udp_start_port_range = 47500" "udp_end_port_range = 48500"
gns3_start "$home" "$work/gns3.log" --config "$work/gns3_server.conf" --port "$GNS3_PORT" --debug

CASES=${CASES:-c7200 c3725 c3640 c3660 c2691 c2610 c2651xm} SCRIPTS=$root/scripts WORK=$work OUT=$out DYNAMIPS_BIN=$dynamips IDLEPC=${IDLEPC:-0} /usr/bin/python3 - "$GNS3_PORT" <<'EOF'
import glob, json, os, re, sys, time

sys.path.insert(0, os.environ["SCRIPTS"])
from gns3api import Server, wait_up

WORK, OUT = os.environ["WORK"], os.environ["OUT"]
gns3 = Server("http://127.0.0.1:%s/v2" % sys.argv[1])
call, must = gns3.call, gns3.must
wait_up(gns3, log=WORK + "/gns3.log")
version = must("GET", "/version")["version"]

# What the GUI's IOS router wizard posts as a template (getSettings() of
# gns3/modules/dynamips/dialogs/ios_router_wizard.py in gns3-gui 2.2.59),
# plus template_type, which the GUI's template manager adds.
TEMPLATES = {
    "c7200": {"name": "c7200", "template_type": "dynamips", "compute_id": "local", "platform": "c7200",
              "image": "fake-ios-c7200.image", "startup_config": "ios_base_startup-config.txt",
              "ram": 512, "nvram": 512, "idlepc": "0xffffffff80008040", "auto_delete_disks": True,
              "slot0": "C7200-IO-FE", "slot1": "PA-FE-TX", "npe": "npe-400", "midplane": "vxr"},
    "c3725": {"name": "c3725", "template_type": "dynamips", "compute_id": "local", "platform": "c3725",
              "image": "fake-ios-c3725.image", "startup_config": "ios_base_startup-config.txt",
              "ram": 128, "nvram": 256, "idlepc": "0xffffffff80008040", "auto_delete_disks": True,
              "slot0": "GT96100-FE", "slot1": "NM-1FE-TX", "wic0": "WIC-1T"},
    # The wizard sends every slot and WIC its chassis has, "" for one left
    # empty; the stand-in's Ethernet is the first port of slot 0.
    "c3640": {"name": "c3640", "template_type": "dynamips", "compute_id": "local", "platform": "c3600",
              "chassis": "3640", "image": "fake-ios-c3600.image", "startup_config": "ios_base_startup-config.txt",
              "ram": 192, "nvram": 256, "idlepc": "0xffffffff80008040", "auto_delete_disks": True,
              "slot0": "NM-1FE-TX", "slot1": "NM-4E", "slot2": "", "slot3": ""},
    "c3660": {"name": "c3660", "template_type": "dynamips", "compute_id": "local", "platform": "c3600",
              "chassis": "3660", "image": "fake-ios-c3600.image", "startup_config": "ios_base_startup-config.txt",
              "ram": 192, "nvram": 256, "idlepc": "0xffffffff80008040", "auto_delete_disks": True,
              "slot0": "Leopard-2FE", "slot1": "NM-1FE-TX", "slot2": "", "slot3": "", "slot4": "", "slot5": "", "slot6": ""},
    "c2691": {"name": "c2691", "template_type": "dynamips", "compute_id": "local", "platform": "c2691",
              "image": "fake-ios-c2691.image", "startup_config": "ios_base_startup-config.txt",
              "ram": 192, "nvram": 256, "idlepc": "0xffffffff80008040", "auto_delete_disks": True,
              "slot0": "GT96100-FE", "slot1": "", "wic0": "WIC-2T", "wic1": "", "wic2": ""},
    "c2610": {"name": "c2610", "template_type": "dynamips", "compute_id": "local", "platform": "c2600",
              "chassis": "2610", "image": "fake-ios-c2600.image", "startup_config": "ios_base_startup-config.txt",
              "ram": 160, "nvram": 128, "idlepc": "0x80008040", "auto_delete_disks": True,
              "slot0": "C2600-MB-1E", "slot1": "", "wic0": "", "wic1": "", "wic2": ""},
    "c2651xm": {"name": "c2651xm", "template_type": "dynamips", "compute_id": "local", "platform": "c2600",
                "chassis": "2651XM", "image": "fake-ios-c2600.image", "startup_config": "ios_base_startup-config.txt",
                "ram": 160, "nvram": 128, "idlepc": "0x80008040", "auto_delete_disks": True,
                "slot0": "C2600-MB-2FE", "slot1": "NM-1FE-TX", "wic0": "WIC-1T", "wic1": "", "wic2": ""},
}
# The peers each link goes to: Dynamips-backed switches on the same server
# (no ubridge needed), each in its own hypervisor, so the router's log holds
# only the router's commands.
LINKS = {
    "c7200": [(1, 0, "ethernet_switch", {"name": "SW1"}, 0, 0)],                 # f1/0 -- SW1 port 0
    "c3725": [(0, 16, "frame_relay_switch", {"name": "FR1", "properties": {"mappings": {"0:102": "1:201"}}}, 0, 0),  # s0/0 -- FR1 port 0
              (0, 0, "ethernet_switch", {"name": "SW1"}, 0, 0)],                # f0/0 -- SW1 port 0
    "c3640": [(0, 0, "ethernet_switch", {"name": "SW1"}, 0, 0)],
    "c3660": [(0, 0, "ethernet_switch", {"name": "SW1"}, 0, 0)],
    "c2691": [(0, 0, "ethernet_switch", {"name": "SW1"}, 0, 0)],
    "c2610": [(0, 0, "ethernet_switch", {"name": "SW1"}, 0, 0)],
    "c2651xm": [(0, 0, "ethernet_switch", {"name": "SW1"}, 0, 0)],
}

def router_log(project_id, name):
    """The dynamips -l log holding `vm create "<name>"`."""
    d = os.path.join(WORK, "projects", project_id, "project-files", "dynamips")
    for f in sorted(glob.glob(os.path.join(d, "dynamips_i*_log.txt"))):
        with open(f, errors="replace") as fh:
            text = fh.read()
        if 'vm create "%s"' % name in text or "vm create %s " % name in text or 'exec_cmd: vm create %s' % name in text:
            return f, text
    sys.exit("no dynamips log for %s in %s: %s" % (name, d, os.listdir(d) if os.path.isdir(d) else "missing"))

def write_wire(path, cmds, hdr):
    """The same commands as gns3-server wrote them on the socket (its --debug
    log: 'sending ...' then 'returned result [...]'), matched in order to the
    exec_cmd lines, since other hypervisors' commands interleave there."""
    sent = []
    with open(os.path.join(WORK, "gns3.log"), errors="replace") as fh:
        for line in fh:
            m = re.search(r"dynamips_hypervisor\.py:\d+ (sending|returned result|.*error.*?) ?(.*)$", line.rstrip("\n"))
            if not m:
                continue
            if m.group(1) == "sending":
                sent.append([m.group(2), None])
            elif sent and sent[-1][1] is None:
                sent[-1][1] = (m.group(1) + " " + m.group(2)).strip()
    out, i = [], 0
    for c in cmds:
        want = c.split("exec_cmd: ", 1)[1].strip()
        while i < len(sent) and " ".join(sent[i][0].replace('"', "").split()) != " ".join(want.split()):
            i += 1
        if i == len(sent):
            sys.exit("wire log: %r not found in order in gns3.log" % want)
        out.append("%s\n    -> %s" % (sent[i][0], sent[i][1]))
        i += 1
    with open(path, "w") as fh:
        for h in hdr[:1]:
            fh.write("# " + h + "; the exec_cmd lines of the .log beside this one, as sent (quotes) and answered\n")
        for o in out:
            fh.write(o.replace(WORK, "<work>") + "\n")

def record(case, idlepc_steps=False):
    tpl = TEMPLATES[case]
    t = must("POST", "/templates", tpl)
    p = must("POST", "/projects", {"name": "record-%s-%d" % (case, time.time())})
    pid = p["project_id"]
    node = must("POST", "/projects/%s/templates/%s" % (pid, t["template_id"]), {"compute_id": "local", "x": 0, "y": 0})
    nid = node["node_id"]
    links = []
    for adapter, port, peer_type, peer_body, peer_adapter, peer_port in LINKS[case]:
        if idlepc_steps:
            break
        body = dict(peer_body, node_type=peer_type, compute_id="local")
        peer = must("POST", "/projects/%s/nodes" % pid, body)
        link = must("POST", "/projects/%s/links" % pid, {"nodes": [
            {"node_id": nid, "adapter_number": adapter, "port_number": port},
            {"node_id": peer["node_id"], "adapter_number": peer_adapter, "port_number": peer_port}]})
        links.append({"router_port": "%d/%d" % (adapter, port), "peer": peer["name"], "peer_type": peer_type,
                      "peer_port": "%d/%d" % (peer_adapter, peer_port), "link_type": link.get("link_type")})
    steps = []
    if idlepc_steps:
        # The node page's "Idle-PC" → "Auto Idle-PC" and "Idle-PC proposals":
        # auto_idlepc starts a stopped router itself, sleeps 20 s, asks
        # get_idle_pc_prop, tries each proposal for 3 s and stops it again.
        st, res = call("GET", "/projects/%s/nodes/%s/dynamips/auto_idlepc" % (pid, nid))
        steps.append("GET auto_idlepc (stopped router) -> %s %s" % (st, json.dumps(res) if not isinstance(res, bytes) else res))
        must("POST", "/projects/%s/nodes/%s/start" % (pid, nid))
        time.sleep(2)
        st, res = call("GET", "/projects/%s/nodes/%s/dynamips/idlepc_proposals" % (pid, nid))
        steps.append("GET idlepc_proposals (running) -> %s %s" % (st, json.dumps(res) if not isinstance(res, bytes) else res))
        must("POST", "/projects/%s/nodes/%s/stop" % (pid, nid))
    else:
        must("POST", "/projects/%s/nodes/%s/start" % (pid, nid))
        time.sleep(2)
        started = must("GET", "/projects/%s/nodes/%s" % (pid, nid))
        steps.append("start -> status %s" % started["status"])
        must("POST", "/projects/%s/nodes/%s/stop" % (pid, nid))
        steps.append("stop -> status %s" % must("GET", "/projects/%s/nodes/%s" % (pid, nid))["status"])
    must("DELETE", "/projects/%s/nodes/%s" % (pid, nid))
    steps.append("delete node")
    time.sleep(1)
    logfile, text = router_log(pid, node["name"])
    cmds = [l for l in text.splitlines() if "HYPERVISOR: exec_cmd:" in l]
    name = case + ("-idlepc" if idlepc_steps else "") + ".log"
    with open(os.path.join(OUT, name), "w") as fh:
        hdr = [
            "gns3-server %s driving dynamips (%s), recorded by scripts/record-gns3-dynamips.sh" % (version, os.path.basename(os.environ["DYNAMIPS_BIN"])),
            "steps: %s" % "; ".join(steps),
            "template POSTed: %s" % json.dumps(tpl, sort_keys=True),
            "node as created (POST /v2/projects/{p}/templates/{t}): %s" % json.dumps(node, sort_keys=True),
            "links: %s" % json.dumps(links, sort_keys=True),
            "images dir: <work>/images/IOS; project dir: <work>/projects/<project_id>; log: %s" % os.path.relpath(logfile, os.path.join(WORK, "projects", pid)),
            "project_id %s node_id %s" % (pid, nid),
        ]
        for h in hdr:
            fh.write("# " + h.replace(WORK, "<work>") + "\n")
        for c in cmds:
            fh.write(c.replace(WORK, "<work>") + "\n")
    write_wire(os.path.join(OUT, name.replace(".log", ".wire.txt")), cmds, hdr)
    print("%s: %d commands (%s)" % (name, len(cmds), "; ".join(steps)))
    must("DELETE", "/projects/%s" % pid)
    must("DELETE", "/templates/%s" % t["template_id"])

for case in os.environ["CASES"].split():
    record(case)
if os.environ.get("IDLEPC") == "1":
    record("c7200", idlepc_steps=True)
EOF
