# nodedesk — the two commands: `make run` and `make test`.
# Both install what they need on a fresh Debian/Ubuntu machine.

GO       ?= go
BIN      := build/bin/nodedesk
SERVER   := build/bin/nodedesk-server
LISTEN   ?= 127.0.0.1:3080
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X main.version=$(VERSION)
SUDO     := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
# The window: Wails v2 on GTK 3 and WebKitGTK 4.1.
DESKTOP_TAGS := desktop,production,webkit2_41
# Debian packages. To build: a C compiler, GTK and WebKit headers; to run
# VPCS nodes: the vpcs simulator; QEMU nodes: QEMU and qemu-img. To test: Xvfb and ImageMagick (the window
# test and its screenshot), Chromium (the browser tests), xdotool (the
# window's keys) and iproute2 (the cloud tests' namespaces and veth pairs).
APT_BUILD := build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev vpcs qemu-system-x86 qemu-utils busybox-static
APT_TEST  := xvfb xauth imagemagick chromium xdotool iproute2 docker.io
FUZZTIME ?= 60s
CRASH_KILLS ?= 200

.PHONY: run test build server frontend deps deps-apt deps-apt-test deps-go deps-npm vet fmt-check fuzz crash bench bench-dataplane bench-gns3 bench-projects

run: build
	./$(BIN) --listen $(LISTEN)

build: deps frontend
	$(GO) build -tags $(DESKTOP_TAGS) -ldflags "$(LDFLAGS)" -o $(BIN) .

# The same program without the window: pure Go, for servers and the tests.
server: deps-go frontend
	$(GO) build -ldflags "$(LDFLAGS)" -o $(SERVER) .

# The frontend is rebuilt only when its sources changed (frontend/dist's
# index.html older than one of them), its packages reinstalled only when
# package-lock.json changed (a stamp in node_modules): a second make run
# with nothing changed goes straight to go build, which is incremental.
# Its commands run with a Node that fits (scripts/node-path.sh: this
# PATH's, or a pinned Node 20 fetched into build/node).
WITH_NODE = np=$$($(CURDIR)/scripts/node-path.sh) && export PATH="$$np" &&
NPM_STAMP := frontend/node_modules/.nodedesk-npm-ci
UI_SOURCES := $(shell find frontend/src frontend/public frontend/wailsjs api/symbols -type f 2>/dev/null) \
	$(wildcard frontend/index.html frontend/vite.config.ts frontend/svelte.config.js frontend/tsconfig*.json frontend/package.json)
UI_BUILT := frontend/dist/index.html

frontend: $(UI_BUILT)
$(UI_BUILT): $(NPM_STAMP) $(UI_SOURCES)
	cd frontend && $(WITH_NODE) npm run build

test: deps deps-apt-test
	@rm -rf $(TEST_OUT) && mkdir -p $(TEST_OUT)
	@status=0; $(MAKE) --no-print-directory -j$(TEST_STREAMS) --output-sync=target test-lab test-rest test-e2e || status=$$?; \
	$(GO) run ./scripts/testskips $$(ls $(TEST_OUT)/*.json $(TEST_OUT)/*.tap 2>/dev/null); exit $$status

# Every go test of make test runs through gotestsum (a tool of go.mod): a
# line a package, a failed test's output in full, and all its events in
# $(TEST_OUT)/NAME.json; the browser tests also write their report to
# $(TEST_OUT)/e2e.tap. The log then ends with "Skipped tests: N" and each
# skipped Go and e2e test with its reason (scripts/testskips), even when
# a test failed.
TEST_OUT := build/test
gotest = $(GO) tool gotestsum --format $(or $(2),pkgname-and-test-fails) --format-icons text --hide-summary skipped --jsonfile $(TEST_OUT)/$(1).json --
E2E_REPORT := --test-reporter=spec --test-reporter-destination=stdout --test-reporter=tap --test-reporter-destination=$(CURDIR)/$(TEST_OUT)/e2e.tap

# Where make test runs as root with /dev/net/tun (as CI does), no test may
# skip for want of root, the tun device, a tmpfs, dockerd, io_uring or a
# tool make test installs: NODEDESK_REQUIRE_LABS=1 turns such a skip
# (kit.Unavailable) into a failure. NODEDESK_REQUIRE_LABS=0 allows them.
NODEDESK_REQUIRE_LABS ?= $(if $(shell [ "$$(id -u)" -eq 0 ] && [ -c /dev/net/tun ] && echo yes),1,0)
test: export NODEDESK_REQUIRE_LABS := $(NODEDESK_REQUIRE_LABS)

# make test runs three streams at once, mostly waiting for emulators and
# browsers: the lab tests of api/labtest (the longest, about 16 minutes),
# the other Go tests with the frontend's checks and the window's test, and
# the browser tests. Each builds only what it needs first, so the lab
# tests begin while the frontend and the server are built. As root the lab
# and browser tests each get a network namespace of their own
# (scripts/in-netns.sh), so the streams' consoles and UDP ports never
# meet; without root they run one after the other.
TEST_STREAMS := $(if $(shell [ "$$(id -u)" -eq 0 ] && unshare -n true 2>/dev/null && echo yes),3,1)
TEST_NETNS   := $(if $(filter 3,$(TEST_STREAMS)),scripts/in-netns.sh)
.PHONY: test-lab test-rest test-e2e
test-lab: dynamips guest
	$(TEST_NETNS) $(call gotest,lab) -race -vet=off -count=1 -timeout 20m ./api/labtest
test-rest: fmt-check vet frontend dynamips guest
	# -p 1: packages that run real VPCS share this host's console and UDP ports.
	# -vet=off here and in the other streams: make test's vet (test-rest's
	# prerequisite) has run go vet on every package already.
	$(call gotest,rest) -race -vet=off -p 1 -count=1 -timeout 20m $$($(GO) list ./... | grep -v '/api/labtest$$')
	cd frontend && $(WITH_NODE) npm run check && npm test
	$(call gotest,desktop,standard-verbose) -vet=off -count=1 -tags desktoptest -run '^TestDesktop$$' -timeout 5m .
test-e2e: server dynamips guest
	mkdir -p $(TEST_OUT) && cd frontend && $(WITH_NODE) NODEDESK_BIN=$(CURDIR)/$(SERVER) NODE_OPTIONS='$(E2E_REPORT)' $(if $(TEST_NETNS),$(CURDIR)/$(TEST_NETNS)) npm run e2e

deps: deps-apt deps-go

deps-apt:
	@missing=$$(for p in $(APT_BUILD); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:" $$missing; \
		$(SUDO) apt-get -o DPkg::Lock::Timeout=600 update && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends $$missing; \
	fi

deps-apt-test:
	@missing=$$(for p in $(APT_TEST); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:" $$missing; \
		$(SUDO) apt-get -o DPkg::Lock::Timeout=600 update && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends $$missing; \
	fi

deps-go:
	@command -v $(GO) >/dev/null 2>&1 || { echo "Go 1.21 or newer is needed (https://go.dev/dl); it fetches the Go version go.mod names by itself"; exit 1; }
	$(GO) mod download

deps-npm: $(NPM_STAMP)
$(NPM_STAMP): frontend/package-lock.json frontend/package.json
	cd frontend && $(WITH_NODE) npm ci --no-audit --no-fund
	touch $@

vet:
	$(GO) vet ./...
	$(GO) vet -tags desktoptest .

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi

# Longer runs than make test's: each fuzz target for FUZZTIME, and the
# kill -9 crash test with CRASH_KILLS kills.
fuzz: deps-go
	$(GO) test -run '^$$' -fuzz '^FuzzRoutes$$' -fuzztime $(FUZZTIME) ./api
	$(GO) test -run '^$$' -fuzz '^FuzzNodeBody$$' -fuzztime $(FUZZTIME) ./api
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./app/gns3file
	$(GO) test -run '^$$' -fuzz '^FuzzReadArchive$$' -fuzztime $(FUZZTIME) ./app/gns3file

crash: deps
	NODEDESK_CRASH_KILLS=$(CRASH_KILLS) $(GO) test -race -count=1 -run 'TestCrash_KillNine' -v -timeout 30m .

# The load benchmark: nodedesk against its ceilings on this machine, one
# table of ratios (BENCH_BIG=1 adds the 10,000- and 100,000-node rows); then
# the UI at size: 1,000 nodes and 1,000 links opened and dragged in chromium,
# and a 200-node, 300-link .gns3 opened with Open… (file to canvas, ≤ 1 s);
# GNS3 project files; QEMU guests; last the data plane (it fails, after printing its
# table, when a target is missed, so it runs after the others).
bench: deps deps-apt-test server
	NODEDESK_BENCH=1 NODEDESK_BENCH_BIG=$(BENCH_BIG) $(GO) test -count=1 -run '^TestLoadTable$$' -v -timeout 30m .
	cd frontend && $(WITH_NODE) NODEDESK_BIN=$(CURDIR)/$(SERVER) npm run perf
	cd frontend && $(WITH_NODE) NODEDESK_BIN=$(CURDIR)/$(SERVER) node e2e/import.perf.mjs
	$(MAKE) bench-projects
	$(MAKE) bench-qemu
	$(MAKE) bench-dataplane

# GNS3 project files over the real listener and store: POST /import of a
# 200-node, 300-link .gns3project (and POST /load of it as a .gns3 on
# disk), each followed by GET of its nodes and links; GET /export of it.
# Target: well under 1 s an op.
bench-projects: deps-go
	$(GO) test -count=1 -run '^$$' -bench '^BenchmarkProject(Import|Load|Export)$$' ./api

# The data-plane benchmark: CPU per frame, frames/s at <1% loss and round
# trip through nodedesk's relay and Ethernet switch against a bare Go UDP
# relay measured in the same run (one table of ratios), after the hot
# path's allocations per frame (go test -bench: allocs/op must be 0).
bench-dataplane: deps-go
	$(GO) test -count=1 -run '^$$' -bench '^BenchmarkFabricInput$$' -benchtime 20000x ./app/dataplane
	NODEDESK_BENCH=1 $(GO) test -count=1 -run '^TestRelayTable$$' -v -timeout 20m ./app/dataplane

# nodedesk's data plane against GNS3 2.2's own processes (bench/gns3): a
# UDP↔UDP hop (ubridge), a host–switch–host lab (ubridge, dynamips'
# Ethernet switch, ubridge) and a host–IOU L2 switch–host lab (ubridge,
# ubridge iol_bridge, ubridge; the switch is FAKE_IOL, a free stand-in
# image), built from UBRIDGE_SRC and DYNAMIPS_SRC (archives or source
# folders; built once in build/bench-gns3), and on the hop a bare Go relay
# (the least Go spends per frame: decision 0054), against NODEDESK_SIDES
# (nodedesk server binaries, PATH or NAME=PATH,...; default this tree's,
# built there); then iou-start, what nodedesk adds to an IOU image's own
# start. A developer's target, not part of make test or make bench; it
# runs under the lab lock (BENCH_LOCK= if you hold it). BENCH_GNS3_ARGS
# passes -rate, -iou-rate, -seconds, -rounds, -start-rounds, -labs
# (hop,lab,iou,iou-start), -sizes, -go=false.
UBRIDGE_SRC  ?= $(THIRD_PARTY)/ubridge-0.9.19.tar.gz
DYNAMIPS_SRC ?= $(THIRD_PARTY)/dynamips-0.2.24.tar.gz
FAKE_IOL     ?= $(SHARED)/fake-iol/fake-iol-x86_64.bin
BENCH_GNS3   := build/bench-gns3
NODEDESK_SIDES ?= nodedesk=$(BENCH_GNS3)/nodedesk-server
BENCH_GNS3_ARGS ?=
BENCH_LOCK ?= flock /tmp/nodedesk-lab.lock
APT_BENCH_GNS3 := build-essential cmake libpcap-dev libelf-dev linux-perf
bench-gns3: deps-go
	@for p in $(APT_BENCH_GNS3); do dpkg -s $$p >/dev/null 2>&1 || { $(SUDO) apt-get update && $(SUDO) apt-get install -y $(APT_BENCH_GNS3); break; }; done
	scripts/build-gns3-tools.sh $(UBRIDGE_SRC) $(DYNAMIPS_SRC) $(BENCH_GNS3)
	$(GO) build -o $(BENCH_GNS3)/nodedesk-server .
	$(GO) build -o $(BENCH_GNS3)/bench-gns3 ./bench/gns3
	$(BENCH_LOCK) $(BENCH_GNS3)/bench-gns3 -ubridge $(BENCH_GNS3)/ubridge -dynamips $(BENCH_GNS3)/dynamips -nodedesk $(NODEDESK_SIDES) -fake-iol $(FAKE_IOL) $(BENCH_GNS3_ARGS)

# The QEMU test guest (scripts/build-guest.sh): the Debian kernel package,
# fetched with apt-get download, a busybox initramfs and a bootable qcow2
# disk, in build/guest; a no-op once built. make test needs it and QEMU.
APT_TEST += qemu-system-x86 qemu-utils busybox-static syslinux syslinux-common mtools dosfstools cpio xz-utils
.PHONY: guest
guest: deps-apt-test
	scripts/build-guest.sh

# The QEMU benchmark (api/labtest/qemu_bench_test.go), part of make bench:
# the test guest's start to its first console byte through nodedesk
# against its command line run by hand (target: nodedesk adds ≤ 100 ms),
# the memory of a TCG guest with nodedesk's bounded translation cache
# against QEMU's default, and echoes/s, round trip and CPU per frame
# through a QEMU port; one table. It fails, after printing it, when the
# start target is missed. Then the page's paced Start all of six guests
# against all at once (decision 0077).
.PHONY: bench-qemu
bench-qemu: guest deps-go
	NODEDESK_BENCH=1 $(GO) test -count=1 -run '^(TestQEMUBench|TestQEMU_StartPace)$$' -v -timeout 30m ./api/labtest

# Dynamips (app/dynamips): built from the unmodified Dynamips 0.2.24
# source in THIRD_PARTY (GPL-2.0; run as a separate program, never
# linked) into build/dynamips, once; the tests run it on the free
# stand-in IOS images of FAKE_IOS (never a real IOS image). Both are in
# SHARED, the shared folder: ../shared beside the checkout, or the folder
# given as SHARED=<folder> (.ci/run passes this machine's when a fresh
# clone has none beside it).
SHARED      ?= $(abspath $(CURDIR)/../shared)
THIRD_PARTY ?= $(SHARED)/third_party
FAKE_IOS    ?= $(SHARED)/fake-ios
DYNAMIPS    := build/dynamips/dynamips
APT_TEST    += cmake build-essential libelf-dev libpcap-dev
.PHONY: dynamips
dynamips: $(DYNAMIPS)
$(DYNAMIPS):
	@[ -f $(THIRD_PARTY)/dynamips-0.2.24.tar.gz ] || { echo "dynamips-0.2.24.tar.gz is not in $(THIRD_PARTY): set THIRD_PARTY=<folder holding it>"; exit 1; }
	$(MAKE) deps-apt-test
	rm -rf build/dynamips/src && mkdir -p build/dynamips/src
	tar -xzf $(THIRD_PARTY)/dynamips-0.2.24.tar.gz -C build/dynamips/src
	cmake -S build/dynamips/src/dynamips-0.2.24 -B build/dynamips/src/build -DDYNAMIPS_CODE=stable >/dev/null
	cmake --build build/dynamips/src/build -j2 >/dev/null
	cp build/dynamips/src/build/stable/dynamips $@.tmp && mv $@.tmp $@
	rm -rf build/dynamips/src
# The tests' Dynamips and stand-in images (app/dynamips/dynamipstest), for make test only.
test: export NODEDESK_DYNAMIPS = $(CURDIR)/$(DYNAMIPS)
test: export NODEDESK_FAKE_IOS = $(FAKE_IOS)

# IOU (app/iou): the tests run the free stand-in IOU image of the shared
# fake-iol folder (an x86_64 ELF; never a real IOU image), with
# nodedesk's data plane as its bridge: no uBridge, no root.
test: export NODEDESK_FAKE_IOL = $(SHARED)/fake-iol
