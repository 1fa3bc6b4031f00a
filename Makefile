# nodedesk — the two commands: `make run` and `make test`.
# Both install what they need on a fresh Debian/Ubuntu machine.

GO      ?= go
BIN     := build/bin/nodedesk
LISTEN  ?= 127.0.0.1:3080
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
SUDO    := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
# Debian packages: a C compiler (the Go race detector needs one) and the
# VPCS simulator that VPCS nodes run.
APT_PKGS := build-essential vpcs

FUZZTIME ?= 60s
CRASH_KILLS ?= 200

.PHONY: run test build deps deps-apt deps-go vet fmt-check fuzz crash

run: deps-apt build
	./$(BIN) --listen $(LISTEN)

build: deps-go
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) .

test: deps fmt-check vet
	$(GO) test -race -count=1 -timeout 10m ./...

# Longer runs than make test's: each fuzz target for FUZZTIME, and the
# kill -9 crash test with CRASH_KILLS kills.
fuzz: deps-go
	$(GO) test -run '^$$' -fuzz '^FuzzRoutes$$' -fuzztime $(FUZZTIME) ./api
	$(GO) test -run '^$$' -fuzz '^FuzzNodeBody$$' -fuzztime $(FUZZTIME) ./api

crash: deps
	NODEDESK_CRASH_KILLS=$(CRASH_KILLS) $(GO) test -race -count=1 -run 'TestCrash_KillNine' -v -timeout 30m . | grep -E 'kills survived|^(ok|FAIL|---)'

deps: deps-apt deps-go

deps-apt:
	@if ! command -v gcc >/dev/null 2>&1 || ! command -v vpcs >/dev/null 2>&1; then \
		echo "installing Debian packages: $(APT_PKGS)"; \
		$(SUDO) apt-get update && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y --no-install-recommends $(APT_PKGS); \
	fi

deps-go:
	@command -v $(GO) >/dev/null 2>&1 || { echo "Go 1.21 or newer is needed (https://go.dev/dl); it fetches the Go version go.mod names by itself"; exit 1; }
	$(GO) mod download

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
