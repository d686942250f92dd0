# Adventure Table — the shared entry point for people and CI.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BIN       := bin/adventure-table
APP       := webui/app
# -trimpath keeps file paths out of the build: the compiled test packages
# (minutes with -race) are then reused from Go's build cache by any clone
# of the same code, wherever it lives, instead of being rebuilt per path.
# go vet and lint's one Go test build with the same flags, so they compile
# the packages the tests then reuse rather than a second, plain set.
GOBUILD_TEST ?= -race -trimpath
GOFLAGS_TEST ?= $(GOBUILD_TEST) -count=1
# go test starts the packages in the order given, two at a time on CI's two
# cores: the slowest go first, so the others fill the second core beside
# them instead of leaving the slowest alone at the end (./... adds the rest,
# each package once).
GO_TEST_PKGS ?= ./webui ./gameplay/narrative ./cmd/adventure-table ./gameplay/table ./gameplay/scripting ./mcp ./...
# The PostgreSQL phase runs only the packages whose tests open a database
# (through models/modelstest): the others would run the very same code a
# second time. The slowest first again, then the rest of them.
GO_DB_TEST_PKGS ?= ./webui ./gameplay/narrative ./cmd/adventure-table ./gameplay/table ./mcp \
  $(shell go list -test -f '{{if .ForTest}}{{.ForTest}} {{join .Deps " "}}{{end}}' ./... | \
    grep -E ' github\.com/adventure-table/adventure-table/models/modelstest( |$$)' | cut -d' ' -f1 | sort -u)


.PHONY: help run build ui ui-deps test test-go test-postgres test-web test-e2e test-mcp lint certs migrate fuzz golden clean
.PHONY: api-types screenshots load-smoke soak-smoke load
.PHONY: load load-smoke

help: ## List the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

$(APP)/node_modules/.package-lock.json: $(APP)/package.json $(APP)/package-lock.json
	cd $(APP) && npm ci --no-audit --no-fund

ui-deps: $(APP)/node_modules/.package-lock.json ## Install the web app's npm packages if missing

ui: ui-deps ## Build the web app into webui/app/dist (embedded by the binary)
	cd $(APP) && npm run build

build: ui ## Build the web app and the binary into bin/
	go build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/adventure-table

run: build ## Build and start the server (local mode, SQLite in ./data)
	./$(BIN) serve

migrate: ## Bring the database schema up to date
	go run ./cmd/adventure-table migrate

certs: ## Create development TLS certificates in ./data/tls
	go run ./cmd/adventure-table certs

test: lint test-go test-postgres test-web test-e2e test-mcp load-smoke soak-smoke ## Everything: lint, Go on SQLite and PostgreSQL, web unit, browser, external MCP clients, load smoke
	@echo "== all test suites passed =="

test-go: ## Go tests on SQLite (no npm needed)
	@echo "== Go tests on SQLite =="
	AT_TEST_DB=sqlite go test $(GOFLAGS_TEST) $(GO_TEST_PKGS)

test-postgres: ## The Go tests that use a database, on PostgreSQL (AT_TEST_POSTGRES_DSN)
	@if [ -z "$${AT_TEST_POSTGRES_DSN:-}" ]; then \
	  if [[ ",$${AT_TEST_REQUIRE:-}," == *,postgres,* ]]; then \
	    echo "FAILED: PostgreSQL tests required (AT_TEST_REQUIRE) but AT_TEST_POSTGRES_DSN is not set" >&2; exit 1; \
	  fi; \
	  echo "SKIPPED: Go tests on PostgreSQL — AT_TEST_POSTGRES_DSN is not set"; \
	else \
	  echo "== Go tests on PostgreSQL ($$(echo "$$AT_TEST_POSTGRES_DSN" | sed -E 's#//([^:/@]+):[^@]*@#//\1:xxxxx@#')) =="; \
	  AT_TEST_DB=postgres go test $(GOFLAGS_TEST) $(GO_DB_TEST_PKGS); \
	fi

test-web: ui-deps ## Web unit tests (Vitest)
	@echo "== Web unit tests =="
	cd $(APP) && npm test

test-e2e: build ## Browser end-to-end tests against the real binary (Chromium)
	@echo "== Browser end-to-end tests =="
	cd $(APP) && AT_E2E_BIN=$(CURDIR)/$(BIN) npm run e2e

test-mcp: build ## External MCP clients over HTTPS: conformance (2026-07-28 and 2025-11-25), inspector --strict, the four-seat scene (TS SDK v2 and v1), and the scene again behind Caddy on two processes (PostgreSQL)
	@echo "== External MCP clients =="
	.ci/mcp-external
	@if [ -n "$${AT_TEST_POSTGRES_DSN:-}" ] && command -v caddy >/dev/null; then \
	  echo "== The four-seat MCP scene behind Caddy, two processes on PostgreSQL =="; \
	  .ci/mcp-external --behind-proxy; \
	elif [[ ",$${AT_TEST_REQUIRE:-}," == *,proxy,* ]]; then \
	  echo "FAILED: the scene behind the proxy is required (AT_TEST_REQUIRE) but caddy or AT_TEST_POSTGRES_DSN is missing" >&2; exit 1; \
	else \
	  echo "SKIPPED: the MCP scene behind Caddy (needs caddy and AT_TEST_POSTGRES_DSN)"; \
	fi

# The soak's one-minute smoke: two processes behind Caddy on a fresh PostgreSQL database, 4 tables
# and 2 solo players playing; a process killed with SIGKILL every 20 s, PostgreSQL restarted once
# (when pg_ctlcluster can); fails on a lost, duplicated or misdelivered event, a half-saved solo
# node, or an error outside the fault windows. The full soak: README "Load testing".
soak-smoke: build ## One-minute soak with faults behind Caddy on PostgreSQL (kill -9 every 20 s, a PostgreSQL restart)
	@if [ -n "$${AT_TEST_POSTGRES_DSN:-}" ] && command -v caddy >/dev/null; then \
	  echo "== Soak smoke: 60 s behind Caddy, two processes on PostgreSQL, with faults =="; \
	  restart=""; if command -v pg_ctlcluster >/dev/null && [ "$$(ls /etc/postgresql 2>/dev/null | wc -l)" = 1 ]; then restart="$$(ls /etc/postgresql) main"; fi; \
	  go run ./cmd/atload -bin $(BIN) -pg "$$AT_TEST_POSTGRES_DSN" -soak 60s -soak-tables 4 -soak-solo 2 -soak-kill-every 20s -soak-pg-restart "$$restart"; \
	elif [[ ",$${AT_TEST_REQUIRE:-}," == *,proxy,* ]]; then \
	  echo "FAILED: the soak smoke is required (AT_TEST_REQUIRE) but caddy or AT_TEST_POSTGRES_DSN is missing" >&2; exit 1; \
	else \
	  echo "SKIPPED: the soak smoke (needs caddy and AT_TEST_POSTGRES_DSN)"; \
	fi

LOAD_FLAGS ?=
load-smoke: build ## Load smoke: 200 HTTP long polls + 50 MCP waiters on the real binary (SQLite, and PostgreSQL when AT_TEST_POSTGRES_DSN is set); fails on a missed or leaked event
	@echo "== Load smoke on SQLite =="
	go run ./cmd/atload -smoke -bin $(BIN) $(LOAD_FLAGS)
	@if [ -n "$${AT_TEST_POSTGRES_DSN:-}" ]; then \
	  echo "== Load smoke on PostgreSQL =="; \
	  go run ./cmd/atload -smoke -bin $(BIN) -pg "$$AT_TEST_POSTGRES_DSN" $(LOAD_FLAGS); \
	elif [[ ",$${AT_TEST_REQUIRE:-}," == *,postgres,* ]]; then \
	  echo "FAILED: load smoke on PostgreSQL required (AT_TEST_REQUIRE) but AT_TEST_POSTGRES_DSN is not set" >&2; exit 1; \
	else echo "SKIPPED: load smoke on PostgreSQL — AT_TEST_POSTGRES_DSN is not set"; fi

load: build ## Full load run (1000 HTTP + 100 MCP waiters; LOAD_FLAGS="-http 10000 -json" etc.) on SQLite, and PostgreSQL when AT_TEST_POSTGRES_DSN is set
	go run ./cmd/atload -bin $(BIN) $(LOAD_FLAGS)
	@if [ -n "$${AT_TEST_POSTGRES_DSN:-}" ]; then \
	  go run ./cmd/atload -bin $(BIN) -pg "$$AT_TEST_POSTGRES_DSN" $(LOAD_FLAGS); \
	fi

lint: ui-deps ## gofmt, go vet and the TypeScript checker
	@bad=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$bad" ]; then echo "gofmt would change:"; echo "$$bad"; exit 1; fi
	go vet $(GOBUILD_TEST) ./...
	cd $(APP) && npm run typecheck
	go test $(GOFLAGS_TEST) -run '^TestOpenAPIFileIsCurrent$$' ./webui
	cd $(APP) && npm run check:api
	cd $(APP) && npm run lint:api

FUZZTIME ?= 30s
fuzz: ## Run every fuzz target (each Fuzz… function, found with go test -list) for FUZZTIME; new corpus entries: copy from $(go env GOCACHE)/fuzz into testdata/fuzz
	@for pkg in $$(go list ./...); do \
	  for target in $$(go test -list '^Fuzz' "$$pkg" | grep '^Fuzz'); do \
	    echo "== $$pkg $$target"; \
	    go test -run '^$$' -fuzz "^$$target$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 50x "$$pkg" || exit 1; \
	  done; \
	done

api-types: ui-deps ## Regenerate the OpenAPI document (webui/app/src/api/openapi.json) and the web app's API types from it
	go test -count=1 -run '^TestOpenAPIFileIsCurrent$$' ./webui -update
	cd $(APP) && npm run gen:api

SHOTS := $(APP)/e2e/screenshots
screenshots: build ## Remake README's pictures with the journeys: the DM's table, the solo reader and the operator's dashboard, desktop and phone, light and dark
	rm -rf $(SHOTS) /tmp/at-solo-shots && mkdir -p $(SHOTS)
	cd $(APP) && AT_E2E_BIN=$(CURDIR)/$(BIN) AT_TABLE_SHOTS=$(CURDIR)/$(SHOTS) AT_SOLO_SHOTS=/tmp/at-solo-shots \
	  AT_OPERATOR_SHOTS=$(CURDIR)/$(SHOTS) node --test --test-concurrency=1 e2e/a11y.test.mjs e2e/solo-firstrun.test.mjs e2e/operator.test.mjs
	cp /tmp/at-solo-shots/solo-reader-1366x768-*.png /tmp/at-solo-shots/solo-reader-390x844-*.png $(SHOTS)/

golden: ## Refresh golden files
	go test ./mcp -run Golden -update

clean: ## Remove build output
	rm -rf bin $(APP)/dist/assets $(APP)/dist/index.html
