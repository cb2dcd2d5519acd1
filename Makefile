# `make` runs the main job on the embedded engine (no Redis to install):
# lint, test, bundle and generate the scripts in lua/.
# `make test` runs every test, race detector on; tests that claim Redis
# behaviour start their own redis-server (apt-get install redis-server redis-tools).

GO        ?= go
SCRIPTGEN := bin/scriptgen

.PHONY: all build lint test-lua bundle generate test bench fmt vet clean

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
	$(GO) generate ./...

test: vet fmt
	$(GO) test -race -timeout 20m ./...

vet:
	$(GO) vet ./...

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin
