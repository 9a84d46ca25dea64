# jobq — make demo shows jobs flowing, make test is the one test command, make bench measures.
#
#   make demo   the salon reference application against a throwaway local cluster (or DATABASE_URL):
#               stores with data, a burst of jobs, progress, and a summary. Ctrl-C stops it cleanly.
#   make bench  the benchmarks of bench/ against a throwaway cluster: jobq against River, graphile-worker,
#               pg-boss and PgQ at their best documented settings and against floors built as jobq works,
#               3 runs; writes BENCHMARKS.md (docs/benchmarks.md: the current results).
#   make fuzz   the SQL API fuzzer of make test (sql/fuzz/) for longer: JOBQ_FUZZ_CALLS calls (default
#               200,000) from JOBQ_FUZZ_SEED (default: the clock), against a throwaway cluster.
#   make test   install PostgreSQL 15, pgTAP, pg_prove, plpgsql_check, jq (the docs test), chromium (the
#               dashboard's browser test), Node, npm and psycopg 3 (the clients), Patroni, etcd and
#               PgBouncer (make test-ha) when missing, build
#               the release (make dist), start a
#               throwaway cluster (jobq sandbox), apply bootstrap and migrations, run the pgTAP
#               suites with pg_prove, the Go tests and the clients' tests (clients/test.sh), and
#               remove the cluster.

SHELL    := /bin/bash
PG_MAJOR ?= 15
GO       ?= go
BIN      := bin

.PHONY: test test-ha test-in-sandbox deps build dist vet schema-snapshot screenshots clean demo bench fuzz

test: deps build dist
	$(BIN)/jobq sandbox -- $(MAKE) --no-print-directory test-in-sandbox

# Runs inside the sandbox: PG* and JOBQ_*_DATABASE_URL point at the throwaway cluster.
# The root module's tests first, then those of the bench harness's report (bench/go.mod, no
# cluster) and of the salon, its own module (examples/salon/go.mod).
# The salon's tests run verbosely: they print the seed's non-functional figures (pickup, ready,
# shutdown, fan-out) and list the acceptance tests GWT-1..13 by name.
# The SQL API fuzzer runs 10,000 calls from a fixed seed here, so that a run is reproducible;
# make fuzz explores new seeds (JOBQ_FUZZ_SEED overrides both).
JOBQ_TEST_FUZZ_SEED ?= 20261123
test-in-sandbox:
	pg_prove --ext .sql --recurse --failures pgtap/
	JOBQ_FUZZ_SEED=$${JOBQ_FUZZ_SEED:-$(JOBQ_TEST_FUZZ_SEED)} $(GO) test -count=1 -timeout 12m ./...
	$(GO) test -C bench -count=1 -timeout 2m ./...
	JOBQ_BIN=$(CURDIR)/$(BIN)/jobq clients/test.sh
	set -o pipefail; $(GO) test -C examples/salon -count=1 -timeout 5m -v ./... 2>&1 | grep -E -v '^=== (RUN|PAUSE|CONT)'

# The Patroni scenarios of issue 36 (ha/, docs/high-availability.md): one etcd and three PostgreSQL
# 15 nodes under Patroni on loopback ports, a switchover, a failover by kill -9, the old primary
# rejoining, a frozen primary and an etcd outage, each under load, with synchronous_mode and without,
# then jobq through PgBouncer in transaction mode; prints each scenario's figures. 3.5 to 6 minutes
# on 2 cores: inside make test (4 to 7) it would leave little of the 15-minute budget, so it is a
# target of its own that .ci/run calls after make test. Built with -tags ha, so that make test's
# go test ./... leaves it out.
test-ha: deps build
	set -o pipefail; JOBQ_BIN=$(CURDIR)/$(BIN)/jobq $(GO) test -tags ha -count=1 -timeout 30m -v ./ha/ 2>&1 | grep -E -v '^=== (RUN|PAUSE|CONT)'

# The fuzzer alone, longer than in make test; JOBQ_FUZZ_SEED=n replays a run.
JOBQ_FUZZ_CALLS ?= 200000
fuzz: deps build
	$(BIN)/jobq sandbox -- env JOBQ_FUZZ_CALLS=$(JOBQ_FUZZ_CALLS) JOBQ_FUZZ_BUDGET=$${JOBQ_FUZZ_BUDGET:-55m} \
		$(GO) test -count=1 -timeout 60m -v -run TestSQLAPIFuzz ./sql/fuzz/

build:
	$(GO) build -o $(BIN)/jobq ./cmd/jobq
	$(GO) build -C examples/salon -o $(CURDIR)/$(BIN)/salon ./cmd/salon

# The release: jobq for linux and darwin on amd64 and arm64, static (CGO off), -trimpath, stamped
# with VERSION and COMMIT (jobq --version, jobq version), each as a tar.gz beside the bare binary;
# the SQL install jobq--VERSION.sql (jobq migrate script: psql -f applies it after bootstrap/); and
# SHA256SUMS of the archives and the script in $(DIST). VERSION is the nearest v* tag, else
# v0.0.0-dev+<commit>.
# cmd/jobq's TestDist checks what this writes (make test runs both).
DIST      ?= dist
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
VERSION   ?= $(shell git describe --tags --match 'v*' 2>/dev/null || echo "v0.0.0-dev+$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)")
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
dist:
	@rm -rf $(DIST) && mkdir -p $(DIST)
	@set -e; for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; name=jobq_$(VERSION)_$${os}_$${arch}; \
		mkdir -p $(DIST)/$$name; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath \
			-ldflags "-s -w -X main.releaseVersion=$(VERSION) -X main.releaseCommit=$(COMMIT)" \
			-o $(DIST)/$$name/jobq ./cmd/jobq; \
		cp README.md $(DIST)/$$name/; \
		tar -C $(DIST) -czf $(DIST)/$$name.tar.gz $$name; \
	done
	@$(GO) run ./cmd/jobq migrate script --release $(VERSION) > $(DIST)/jobq--$(VERSION).sql
	@cd $(DIST) && sha256sum *.tar.gz jobq--*.sql > SHA256SUMS
	@echo "dist: $(VERSION) ($(COMMIT)) in $(DIST)/"; cat $(DIST)/SHA256SUMS

demo: deps build
	$(BIN)/salon demo

bench: deps build
	bench/run

vet:
	$(GO) vet ./...
	$(GO) vet -C examples/salon ./...

# Rewrites migrate/testdata/schema.snapshot.sql from a freshly migrated database; review the diff.
schema-snapshot: build
	$(BIN)/jobq sandbox -- sh -c 'JOBQ_UPDATE_SNAPSHOT=1 $(GO) test -count=1 -run TestSchemaSnapshot ./migrate/'

# Takes the dashboard's screenshots again (docs/screenshots, shown by docs/dashboard.md and the
# README) with the browser tests; commit them with the templates they show.
screenshots: deps build
	$(BIN)/jobq sandbox -- env JOBQ_UPDATE_SCREENSHOTS=1 $(GO) test -count=1 -run 'TestDashboardInABrowser|TestTheJobPageShowsItsBatchsProgress|TestTheJobPageDrawsItsWorkflow|TestTheOverviewSaysWhenItsLiveCountsWereKeptByMaintain' ./dashboard/

# Installs what make test needs from Debian's packages, only when something is missing.
deps:
	@missing=""; \
	ls /usr/lib/postgresql/$(PG_MAJOR)/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql-$(PG_MAJOR)"; \
	ls /usr/share/postgresql/$(PG_MAJOR)/extension/pgtap.control >/dev/null 2>&1 || missing="$$missing postgresql-$(PG_MAJOR)-pgtap"; \
	ls /usr/share/postgresql/$(PG_MAJOR)/extension/plpgsql_check.control >/dev/null 2>&1 || missing="$$missing postgresql-$(PG_MAJOR)-plpgsql-check"; \
	command -v pg_prove >/dev/null 2>&1 || missing="$$missing libtap-parser-sourcehandler-pgtap-perl"; \
	command -v jq >/dev/null 2>&1 || missing="$$missing jq"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v psql >/dev/null 2>&1 || missing="$$missing postgresql-client-$(PG_MAJOR)"; \
	command -v node >/dev/null 2>&1 || missing="$$missing nodejs"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	/usr/bin/python3 -c 'import psycopg' >/dev/null 2>&1 || missing="$$missing python3-psycopg"; \
	command -v patroni >/dev/null 2>&1 || missing="$$missing patroni"; \
	command -v etcd >/dev/null 2>&1 || missing="$$missing etcd-server"; \
	ls /usr/sbin/pgbouncer >/dev/null 2>&1 || missing="$$missing pgbouncer"; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing >/dev/null; \
		for s in patroni etcd pgbouncer; do $$sudo systemctl disable --now $$s >/dev/null 2>&1 || true; done; \
	fi
	@command -v $(GO) >/dev/null 2>&1 || { echo "Go 1.26 or newer is required on PATH"; exit 1; }
	@# The TypeScript client's packages (its lockfile), which the docs test and clients/test.sh use.
	@ts=clients/typescript; \
	if [ ! -f $$ts/node_modules/.package-lock.json ] || [ $$ts/package-lock.json -nt $$ts/node_modules/.package-lock.json ]; then \
		echo "npm ci in $$ts"; (cd $$ts && npm ci --no-audit --no-fund --loglevel=error); \
	fi

clean:
	rm -rf $(BIN) $(DIST)
