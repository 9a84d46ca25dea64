#!/usr/bin/env bash
# The typed clients' tests (docs/clients.md), inside jobq sandbox:
#
#   jobq sandbox -- clients/test.sh
#
# Installs what is missing (npm ci in clients/typescript; Debian's python3-psycopg), then on a
# private copy of the sandbox's database holding clients/testdata/registry.sql: regenerates the
# committed modules with jobq codegen and diffs them, checks codegen's bad inputs (an empty
# registry, 2,000 tasks), and runs the Node tests (pg, postgres.js, the tsc checks of GWT-2) and the
# Python tests (psycopg, pyright's checks). Exits non-zero on any failure; a missing Node or Python
# is a failure, never a skip. JOBQ_BIN names a jobq binary to use (default: go build ./cmd/jobq).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
: "${JOBQ_BOOTSTRAP_DATABASE_URL:?clients/test.sh runs inside jobq sandbox (JOBQ_BOOTSTRAP_DATABASE_URL is not set)}"
: "${PGHOST:?clients/test.sh runs inside jobq sandbox (PGHOST is not set)}"

passed=0
failed=0
failures=()
pass() { passed=$((passed + $1)); }
fail() { failed=$((failed + $1)); failures+=("$2"); echo "FAIL: $2" >&2; }
# check NAME CMD...: one check that passes when CMD exits 0.
check() {
	local name=$1
	shift
	if "$@"; then pass 1; echo "ok: $name"; else fail 1 "$name"; fi
}

command -v node >/dev/null || { echo "clients/test.sh: node is missing (Node.js 20 or later; apt-get install nodejs npm)" >&2; exit 1; }
command -v npm >/dev/null || { echo "clients/test.sh: npm is missing (apt-get install npm)" >&2; exit 1; }
python=/usr/bin/python3
[ -x "$python" ] || { echo "clients/test.sh: $python is missing (apt-get install python3)" >&2; exit 1; }

# Dependencies: the lockfile's packages, and psycopg 3 from Debian.
ts=clients/typescript
if [ ! -f $ts/node_modules/.package-lock.json ] || [ $ts/package-lock.json -nt $ts/node_modules/.package-lock.json ]; then
	(cd $ts && npm ci --no-audit --no-fund --loglevel=error)
fi
if ! $python -c 'import psycopg' 2>/dev/null; then
	apt-get install -y -qq python3-psycopg >/dev/null || { apt-get update -qq && apt-get install -y -qq python3-psycopg >/dev/null; }
fi
$python -c 'import psycopg' || { echo "clients/test.sh: psycopg 3 is missing for $python (apt-get install python3-psycopg)" >&2; exit 1; }

work=$(mktemp -d)
jobq=${JOBQ_BIN:-}
if [ -z "$jobq" ]; then
	go build -o "$work/jobq" ./cmd/jobq
	jobq=$work/jobq
fi

# Private databases, cloned from the sandbox's migrated one (as internal/dbtest does) and dropped
# at the end; a login that is a member of jobq_app for the application's side.
template=$(psql -d "$JOBQ_BOOTSTRAP_DATABASE_URL" -Atc 'SELECT current_database()')
dbs=()
cleanup() {
	for db in "${dbs[@]}"; do psql -q -d "$JOBQ_BOOTSTRAP_DATABASE_URL" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; done
	rm -rf "$work"
}
trap cleanup EXIT
url() { # url LOGIN DB
	$python -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(p._replace(netloc=sys.argv[2] + "@" + p.netloc.rsplit("@", 1)[-1], path="/" + sys.argv[3]).geturl())' \
		"$JOBQ_BOOTSTRAP_DATABASE_URL" "$1" "$2"
}
clone() { # clone NAME: a fresh copy of the migrated template
	local db=$1 try
	dbs+=("$db")
	for try in $(seq 1 100); do
		if psql -q -d "$JOBQ_BOOTSTRAP_DATABASE_URL" -c "CREATE DATABASE $db TEMPLATE $template" >/dev/null 2>"$work/clone.err"; then break; fi
		grep -q 'is being accessed by other users' "$work/clone.err" || { cat "$work/clone.err" >&2; return 1; }
		sleep 0.2
	done
	psql -q -v ON_ERROR_STOP=1 -d "$(url postgres "$db")" -f bootstrap/002_database.sql >/dev/null
}
db=clients_test_$$
clone $db
admin=$(url postgres $db)
psql -q -v ON_ERROR_STOP=1 -d "$admin" -c "DO \$\$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'clients_app') THEN CREATE ROLE clients_app LOGIN IN ROLE jobq_app; END IF;
END \$\$" >/dev/null

# codegen on an empty registry: a clear error, or with --allow-empty a module that names no task.
empty_refused() {
	local out
	if out=$("$jobq" codegen typescript --database-url "$admin" 2>&1); then echo "codegen succeeded on an empty registry" >&2; return 1; fi
	grep -q 'declares no task' <<<"$out"
}
check "codegen refuses an empty registry" empty_refused
mkdir -p "$work/empty/py/jobq_client" "$work/empty/ts/src"
cp $ts/src/runtime.ts "$work/empty/ts/src/"
cp clients/python/jobq_client/runtime.py clients/python/jobq_client/__init__.py "$work/empty/py/jobq_client/"
check "codegen --allow-empty (typescript)" "$jobq" codegen typescript --allow-empty --database-url "$admin" --out "$work/empty/ts/src/tasks.ts"
check "codegen --allow-empty (python)" "$jobq" codegen python --allow-empty --database-url "$admin" --out "$work/empty/py/jobq_client/tasks.py"

# The committed modules are what codegen writes for the fixture registry.
psql -q -v ON_ERROR_STOP=1 -d "$admin" -f clients/testdata/registry.sql >/dev/null
drift() { # drift LANG FILE (JOBQ_UPDATE_CLIENTS=1: rewrite FILE instead of comparing)
	"$jobq" codegen "$1" --database-url "$(url clients_app $db)" --out "$work/$(basename "$2")"
	[ "${JOBQ_UPDATE_CLIENTS:-}" = 1 ] && cp "$work/$(basename "$2")" "$2"
	diff -u "$2" "$work/$(basename "$2")" || { echo "$2 differs from jobq codegen $1 over clients/testdata/registry.sql; regenerate it (docs/clients.md)" >&2; return 1; }
}
check "codegen typescript equals src/tasks.ts" drift typescript $ts/src/tasks.ts
check "codegen python equals jobq_client/tasks.py" drift python clients/python/jobq_client/tasks.py

# 2,000 tasks: both modules compile and type-check.
big=clients_big_$$
clone $big
psql -q -v ON_ERROR_STOP=1 -d "$(url postgres $big)" -c "SELECT jobq.define_task(format('task-%s-n%s', CASE WHEN i % 2 = 0 THEN 'store' ELSE 'system' END, i),
	CASE WHEN i % 2 = 0 THEN 'store' ELSE 'system' END, jsonb_build_object('storeId', 'uuid', 'n' || i, 'integer', 'opt?', 'string'))
	FROM generate_series(1, 2000) i" >/dev/null
mkdir -p "$work/big/py/jobq_client" "$work/big/ts/src"
cp $ts/src/runtime.ts "$work/big/ts/src/"
cp clients/python/jobq_client/runtime.py clients/python/jobq_client/__init__.py "$work/big/py/jobq_client/"
check "codegen of 2,000 tasks (typescript)" "$jobq" codegen typescript --database-url "$(url postgres $big)" --out "$work/big/ts/src/tasks.ts"
check "codegen of 2,000 tasks (python)" "$jobq" codegen python --database-url "$(url postgres $big)" --out "$work/big/py/jobq_client/tasks.py"
big_ts() {
	[ "$(grep -c '^  "task-' "$work/big/ts/src/tasks.ts")" = 4000 ] # JobPayloadMap and JobScopeMap
	cat >"$work/big/ts/src/use.ts" <<-'EOF'
		import { enqueueJob, type Uuid } from './tasks.js';
		declare const db: { query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }> };
		declare const storeId: Uuid;
		export const ok = enqueueJob(db, 'task-store-n2000', { storeId, n2000: 1 });
		// @ts-expect-error: system task n1999 takes n1999, not n2000
		export const bad = enqueueJob(db, 'task-system-n1999', { n2000: 1 });
	EOF
	node $ts/node_modules/typescript/bin/tsc --noEmit --strict --target ES2022 --module NodeNext --moduleResolution NodeNext \
		--skipLibCheck "$work/big/ts/src/use.ts" "$work/empty/ts/src/tasks.ts"
}
check "2,000-task and empty TypeScript modules type-check" big_ts
big_py() {
	(cd "$work/big/py" && $python -c 'from jobq_client import tasks; assert len(tasks.CONTRACTS) == 2000')
	(cd "$work/empty/py" && $python -c 'from jobq_client import tasks; assert tasks.CONTRACTS == {}')
}
check "2,000-task and empty Python modules import" big_py

# Node: compile, then node --test over pg and postgres.js, and the tsc checks of GWT-2.
export JOBQ_CLIENTS_ADMIN_URL=$admin JOBQ_CLIENTS_APP_URL=$(url clients_app $db)
node_tests() {
	(cd $ts && rm -rf dist && node node_modules/typescript/bin/tsc -p tsconfig.json) || return 1
	local rc=0
	(cd $ts && node --test --test-reporter=tap dist/test/) >"$work/node.tap" 2>&1 || rc=$?
	grep -E '^(not ok|# (pass|fail))' "$work/node.tap" | sed 's/^/node: /' || true
	local p f
	p=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$work/node.tap")
	f=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$work/node.tap")
	pass "${p:-0}"
	if [ "$rc" != 0 ] || [ "${f:-1}" != 0 ] || [ "${p:-0}" = 0 ]; then fail "${f:-1}" "node --test (see below)"; cat "$work/node.tap" >&2; fi
}
node_tests

# Python: unittest over psycopg, and pyright's checks.
py_tests() {
	local rc=0 ran bad=0 n
	(cd clients/python && $python -m unittest discover -s tests -t . -v) >"$work/py.out" 2>&1 || rc=$?
	ran=$(sed -n 's/^Ran \([0-9]*\) tests\?.*/\1/p' "$work/py.out")
	for n in $(sed -n 's/^FAILED (\(.*\))$/\1/p' "$work/py.out" | grep -oE '[0-9]+'); do bad=$((bad + n)); done
	echo "python: ran ${ran:-0}, ${bad:-0} failed or errored"
	if [ "$rc" = 0 ] && [ "${ran:-0}" -gt 0 ]; then pass "$ran"; else pass $(( ${ran:-0} - ${bad:-0} )); fail "${bad:-1}" "python unittest (see below)"; cat "$work/py.out" >&2; fi
}
py_tests

for f in "${failures[@]}"; do echo "failed: $f" >&2; done
echo "clients: $passed passed, $failed failed"
[ "$failed" = 0 ]
