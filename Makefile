# jobq — make test is the one test command; make demo and make bench come with their issues.
#
#   make test   install PostgreSQL 15, pgTAP, pg_prove and plpgsql_check when missing, start a
#               throwaway cluster (jobq sandbox), apply bootstrap and migrations, run the pgTAP
#               suites with pg_prove and the Go tests, and remove the cluster.

PG_MAJOR ?= 15
GO       ?= go
BIN      := bin

.PHONY: test test-in-sandbox deps build vet schema-snapshot clean

test: deps build
	$(BIN)/jobq sandbox -- $(MAKE) --no-print-directory test-in-sandbox

# Runs inside the sandbox: PG* and DATABASE_URL_* point at the throwaway cluster.
test-in-sandbox:
	pg_prove --ext .sql --recurse --failures pgtap/
	$(GO) test -count=1 -timeout 12m ./...

build:
	$(GO) build -o $(BIN)/jobq ./cmd/jobq

vet:
	$(GO) vet ./...

# Rewrites migrate/testdata/schema.snapshot.sql from a freshly migrated database; review the diff.
schema-snapshot: build
	$(BIN)/jobq sandbox -- sh -c 'JOBQ_UPDATE_SNAPSHOT=1 $(GO) test -count=1 -run TestSchemaSnapshot ./migrate/'

# Installs what make test needs from Debian's packages, only when something is missing.
deps:
	@missing=""; \
	ls /usr/lib/postgresql/$(PG_MAJOR)/bin/initdb >/dev/null 2>&1 || missing="$$missing postgresql-$(PG_MAJOR)"; \
	ls /usr/share/postgresql/$(PG_MAJOR)/extension/pgtap.control >/dev/null 2>&1 || missing="$$missing postgresql-$(PG_MAJOR)-pgtap"; \
	ls /usr/share/postgresql/$(PG_MAJOR)/extension/plpgsql_check.control >/dev/null 2>&1 || missing="$$missing postgresql-$(PG_MAJOR)-plpgsql-check"; \
	command -v pg_prove >/dev/null 2>&1 || missing="$$missing libtap-parser-sourcehandler-pgtap-perl"; \
	command -v psql >/dev/null 2>&1 || missing="$$missing postgresql-client-$(PG_MAJOR)"; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $$missing >/dev/null; \
	fi
	@command -v $(GO) >/dev/null 2>&1 || { echo "Go 1.26 or newer is required on PATH"; exit 1; }

clean:
	rm -rf $(BIN)
