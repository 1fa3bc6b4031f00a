# gns3server.sh — sourced by the developer scripts that run the real
# gns3-server 2.2.59 (gns3-interop.sh, record-gns3-dynamips.sh,
# author-campus88.sh). It needs Debian's python3-aiohttp
# python3-aiohttp-cors python3-aiofiles python3-jinja2
# python3-platformdirs python3-psutil python3-jsonschema python3-distro.

# gns3_source sets src to a gns3-server 2.2.59 tree: GNS3SERVER_SRC, or
# v2.2.59 archived from the repository GNS3SERVER_GIT into $work. Without
# either, the script says it is skipped and ends (exit 0).
gns3_source() {
	src=${GNS3SERVER_SRC:-}
	if [[ -z "$src" && -n "${GNS3SERVER_GIT:-}" ]]; then
		src=$work/gns3-server
		mkdir -p "$src"
		git -C "$GNS3SERVER_GIT" archive v2.2.59 | tar -x -C "$src"
	fi
	if [[ -z "$src" || ! -d "$src/gns3server" ]]; then
		echo "skipped: set GNS3SERVER_SRC (a gns3-server 2.2.59 tree) or GNS3SERVER_GIT (its repository)" >&2
		exit 0
	fi
}

# gns3_config PORT UBRIDGE DYNAMIPS [LINE...] writes $work/gns3_server.conf:
# gns3-server on 127.0.0.1:PORT with its folders (images, projects, …)
# under $work, no error reports, those ubridge and dynamips binaries, and
# each LINE (key = value) added to its [Server] section.
gns3_config() {
	local port=$1 ubridge=$2 dynamips=$3
	shift 3
	{
		printf '[Server]\nhost = 127.0.0.1\nport = %s\n' "$port"
		for d in images projects configs appliances symbols; do printf '%s_path = %s\n' "$d" "$work/$d"; done
		printf 'report_errors = False\nubridge_path = %s\n' "$ubridge"
		if [[ $# -gt 0 ]]; then printf '%s\n' "$@"; fi
		printf '\n[Dynamips]\ndynamips_path = %s\n' "$dynamips"
	} >"$work/gns3_server.conf"
}

# gns3_start HOME LOG ARGS... starts gns3-server from $src on 127.0.0.1
# with HOME as its home, its output in LOG, and ARGS (--port, --config…);
# its pid joins pids, which the script's cleanup stops.
gns3_start() {
	local home=$1 log=$2
	shift 2
	mkdir -p "$home"
	(cd "$src" && HOME=$home LANG=C.UTF-8 exec /usr/bin/python3 -m gns3server --host 127.0.0.1 --local "$@") >"$log" 2>&1 &
	pids+=($!)
}

# stop_started stops what the script started (pids) and their children
# (gns3-server's dynamips and ubridge), the children by their ids in case
# a parent left them.
stop_started() {
	local kids=() p
	for p in "${pids[@]}"; do kids+=($(pgrep -P "$p" || true)); done
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	for p in "${kids[@]}"; do kill "$p" 2>/dev/null || true; done
}
