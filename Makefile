# `make` runs the main job on the embedded engine (no Redis to install):
# lint, test, bundle and generate the scripts in lua/.
# `make test` runs every test, race detector on; tests that claim Redis
# behaviour start their own redis-server (apt-get install redis-server redis-tools).

GO        ?= go
SCRIPTGEN := bin/scriptgen

.PHONY: all build lint test-lua bundle generate plots test peers peers-txn redis-suite bench bench-foreign pgo fmt vet forks realworld clean

all: lint test-lua bundle generate

build:
	$(GO) build -o $(SCRIPTGEN) ./cmd/scriptgen

lint: build
	$(SCRIPTGEN) lint lua

test-lua: build
	$(SCRIPTGEN) test lua

bundle: build
	$(SCRIPTGEN) bundle -o generated/bundle lua

generate: build
	$(SCRIPTGEN) gen -pkg ratelimit -o generated/ratelimit lua/ratelimit
	$(SCRIPTGEN) doc -pkg ratelimit -o generated/ratelimit/README.md lua/ratelimit
	$(GO) generate ./...

# The limiters of lua/ratelimit, tuned to the same promise: 5 requests/s
# sustained, bursts of 10. `make plots` renders docs/*.png and *.svg (the
# README's figures) and the tables beside them.
SIM_LIMITERS := 'token_bucket:capacity=10,rate=5,period_ms=1000' \
	'gcra:rate=5,burst=10,period_ms=1000' \
	'window:limits=[[2000,10]],label=fixed window' \
	'window:limits=[[2000,10,200]],label=sliding window' \
	'log:limits=[[2000,10]],label=sliding log' \
	'credits:credits=10,window_ms=2000'

plots: build
	$(SCRIPTGEN) sim -duration 20s -interval 500ms -rate 20 -o docs/steady $(SIM_LIMITERS) > docs/steady.txt
	$(SCRIPTGEN) sim -duration 30s -interval 500ms -caller name=steady,rate=3,poisson=1 -caller name=bursty,burst=40,every=10s,start=5s -shared -o docs/bursts $(SIM_LIMITERS) > docs/bursts.txt
	$(SCRIPTGEN) sim -duration 20s -interval 1s -callers 4 -rate 5 -poisson -shared -o docs/shared $(SIM_LIMITERS) 'gate:interval_ms=200' > docs/shared.txt
	$(SCRIPTGEN) sim -duration 20s -interval 1s -caller name=on-time,rate=10,poisson=1 -caller name=ahead,rate=10,skew=700ms,poisson=1 -caller name=behind,rate=10,skew=-700ms,poisson=1 -shared -o docs/skew $(SIM_LIMITERS) > docs/skew.txt

# The race detector slows the heaviest loads ~10x: under it they run at
# -short size, then the library's exactness tests run again at full size
# (64 goroutines x 2,000 requests per limiter) without it, as does Lua
# 5.1's own test suite (constructs.lua: 40 s under the race detector),
# and serve's load test, whose RSS bound the detector's memory would hide.
# Then other projects' own tests and our BullMQ and Bull scenarios against
# serve and a real redis-server (the peers harness, internal/peers).
# Redis's own test suite (scripting and functions units, against serve
# and redis-server) fails on any test not in its known-failures list.
# Last, a minute of random client streams against serve (FuzzServe).
# Minimizing a new input is capped at 5s (Go's default is 60s): a 100 KB
# input shrinks at ~100 execs/s over a socket, which the fuzzer does not
# count as execs, and took most of the minute (0 execs/s in the log).
test: vet fmt
	$(GO) test -race -short -timeout 25m ./...
	$(GO) test -count=1 -timeout 10m -run '^TestRedisSuite$$' ./internal/redissuite
	$(GO) test -count=1 -timeout 15m ./internal/libtest
	$(GO) test -count=1 -run '^TestLua$$' ./internal/third_party/gopher-lua
	$(GO) test -count=1 -short -run '^TestServeLoad$$' ./internal/cli
	$(GO) test -count=1 -timeout 30m -v -run '^TestPeers$$' ./internal/peers -args -peers.node
	$(GO) test -run '^$$' -fuzz '^FuzzServe$$' -fuzztime 60s -fuzzminimizetime 5s ./transactional

# The peers harness with upstream miniredis as a third column: asynq,
# redis_rate and ulule/limiter's own tests and the BullMQ and Bull scenarios,
# pinned and downloaded at run time, on serve, redis-server and miniredis.
peers:
	$(GO) test -count=1 -timeout 40m -v -run '^TestPeers$$' ./internal/peers -args -peers.node -peers.miniredis

# The peers' suites through a RESP proxy that ships every script they send
# as its transactional bundle (in front of redis-server and of serve),
# beside a direct run on redis-server; then the recorded script calls
# replayed with failures injected. A table of the suites, one of their
# scripts; the last line reads `peers-txn: D differences, R× median`. About 10 minutes
# on a shared 2-core machine, most of it asynq's top-level tests asleep;
# the replay bounds each suite's share by its own budget.
peers-txn:
	$(GO) test -count=1 -timeout 60m -v -run '^TestPeersTxn$$' ./internal/peers -args -peers.node

vet:
	$(GO) vet ./...

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

# Redis's own test suite for the installed redis-server's version (Debian's
# source package, fetched with apt-get into the user cache), every unit of
# issue 28 against serve and against redis-server, each on a fresh server:
# one table of ok / fail / error / never reached, then each test passing on
# redis-server and not on serve. Needs tcl and dpkg-dev.
redis-suite:
	$(GO) test -count=1 -timeout 120m -v -run '^TestRedisSuite$$' ./internal/redissuite -args -units all

# Benchmarks build with the CLI's profile (below), so that they measure
# the code `scriptgen` runs.
bench:
	$(GO) test -pgo=$(CURDIR)/cmd/scriptgen/default.pgo -run '^$$' -bench . -benchmem ./...

# The rollback journal's server time on asynq's and BullMQ's own scripts
# (transactional/prelude's doc, "Cost on other projects' scripts"): it
# downloads them from the module proxy and npm.
bench-foreign:
	$(GO) test -run '^$$' -bench '^BenchmarkForeignServerTime$$' -benchtime 300x -count 3 -timeout 30m ./transactional/prelude

# cmd/scriptgen/default.pgo is the CPU profile `go build` and `go install`
# optimize the CLI with (profile-guided optimization, on by default since
# Go 1.21): the simulator running every limiter of the library, its
# hottest job. A stale profile still helps; refresh it after the engine's
# hot paths change.
pgo:
	$(GO) test -pgo=$(CURDIR)/cmd/scriptgen/default.pgo -run '^$$' -bench 'Request$$|Limiters' -benchtime 100000x -cpuprofile $(CURDIR)/cmd/scriptgen/default.pgo.new ./sim
	mv cmd/scriptgen/default.pgo.new cmd/scriptgen/default.pgo

# The copies of gopher-lua and miniredis under internal/third_party against
# the upstream releases they came from, downloaded from the module proxy:
# which files differ, which are ours alone, then the patch.
forks:
	@GO=$(GO) sh internal/third_party/forkdiff.sh

# Scripts other projects ship, as a new user brings them: pinned releases
# of asynq and redis_rate (module proxy), BullMQ and Bull (npm),
# downloaded at run time into the user cache, none of their code
# committed; every script linted, annotated, bundled and generated, the Go
# built and vetted, asynq's and BullMQ's wrappers run on a real
# redis-server and checked against the projects' own clients (asynq's in
# Go; BullMQ's under node, so node and npm are needed) on a second one.
# Prints per project: scripts, analysed, crashes, time, peak heap,
# findings by rule. About 1.5 minutes on 2 cores; not part of
# `make test`, which needs no network.
realworld:
	SCRIPTGEN_REALWORLD=1 $(GO) test -count=1 -v -run '^TestRealWorld$$' -timeout 20m ./internal/realworld

clean:
	rm -rf bin
