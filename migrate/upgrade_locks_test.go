package migrate_test

import (
	"bytes"
	"context"
	"io/fs"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/migrate"
)

// A long transaction holding a lock on jobq.jobs (an application's enqueue left open) keeps
// migrate up from taking the tables' locks. Up retries with backoff, and between its attempts, each
// bounded below deadlock_timeout, claims go on: the queue behind its pending lock drains at every
// attempt's end, so claims wait at most the bound, never for the long transaction. Past LockWait,
// Up fails with ErrLocksBusy naming the process that holds the lock, having changed nothing; once
// that transaction ends, Up succeeds.
func TestUpGivesWayToALongTransactionAndNamesIt(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	db := dbtest.New(t)
	admin := dbtest.Connect(t, db.URL("postgres"))
	_, err := admin.Exec(ctx, `SELECT jobq.define_task('upgrade-probe');
		UPDATE jobq.function_files SET checksum = repeat('0', 64) WHERE name = '30_claim.sql'`)
	require.NoError(t, err)

	app := dbtest.Connect(t, db.URL("worker_runtime"))
	tx, err := app.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `SELECT jobq.enqueue('upgrade-probe')`)
	require.NoError(t, err)
	var appPID int
	require.NoError(t, tx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&appPID))

	var attempts atomic.Int64
	m, err := migrate.OpenWith(ctx, db.URL("jobq_migrator"), migrate.Options{
		LockWait: 3 * time.Second,
		Logf:     func(string, ...any) { attempts.Add(1) },
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })

	upDone := make(chan error, 1)
	go func() {
		_, err := m.Up(ctx)
		upDone <- err
	}()

	// A runner claims all along. Each claim may wait behind the pending lock for one attempt's
	// bound, then goes through; so claims complete while Up is still retrying.
	worker := dbtest.Connect(t, db.URL("worker_runtime"))
	claims := 0
	var slowest time.Duration
	var upErr error
claiming:
	for {
		select {
		case upErr = <-upDone:
			break claiming
		default:
		}
		start := time.Now()
		_, err := worker.Exec(ctx, `SELECT c.id FROM jobq.claim_job('upgrade-test', ARRAY['default'], 1) AS c`)
		require.NoError(t, err, "a claim while migrate up waits")
		slowest = max(slowest, time.Since(start))
		claims++
	}
	t.Logf("%d claims while migrate up retried (%d attempts gave way); the slowest took %s", claims, attempts.Load(), slowest.Round(time.Millisecond))
	require.ErrorIs(t, upErr, migrate.ErrLocksBusy)
	require.ErrorContains(t, upErr, "pid "+strconv.Itoa(appPID)+" (worker_runtime, idle in transaction")
	require.ErrorContains(t, upErr, "nothing was changed")
	require.Greater(t, attempts.Load(), int64(0), "Up retried before giving up")
	require.Greater(t, claims, 1, "claims went on while Up retried")
	require.Equal(t, []string{strings.Repeat("0", 64)},
		dbtest.QueryStrings(t, admin, `SELECT checksum FROM jobq.function_files WHERE name = '30_claim.sql'`),
		"the refused upgrade changed nothing")

	require.NoError(t, tx.Commit(ctx))
	_, err = m.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"30_claim.sql", migrate.GrantsFile}, m.FunctionsApplied())
}

// migrate up --dry-run prints the upgrade as Up runs it: one transaction, BEGIN to COMMIT, that
// locks every jobq table before any DDL, jobs before job_history before job_attempts (the
// engine's order), under a lock_timeout and a statement_timeout below deadlock_timeout.
func TestDryRunPrintsOneTransactionThatLocksInTheEnginesOrder(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	db, m := openClone(t)
	_, err := dbtest.Connect(t, db.URL("postgres")).Exec(ctx, `UPDATE jobq.function_files SET checksum = repeat('0', 64) WHERE name = '70_tenancy.sql'`)
	require.NoError(t, err)

	var out bytes.Buffer
	_, err = m.WritePending(ctx, &out)
	require.NoError(t, err)
	var statements []string
	for _, line := range strings.Split(out.String(), "\n") {
		if line != "" && !strings.HasPrefix(line, "--") {
			statements = append(statements, line)
		}
	}
	require.Equal(t, "BEGIN;", statements[0])
	require.Equal(t, "COMMIT;", statements[len(statements)-1])
	printed := out.String()
	require.Equal(t, 1, strings.Count(printed, "BEGIN;"), "one transaction")
	require.Contains(t, printed, "SET LOCAL lock_timeout = '500ms';\nSET LOCAL statement_timeout = '500ms';\nLOCK TABLE jobq.goose_db_version, ")
	lock := printed[strings.Index(printed, "LOCK TABLE"):]
	lock = lock[:strings.Index(lock, "\n")]
	jobs, history, attempts := strings.Index(lock, "jobq.jobs,"), strings.Index(lock, "jobq.job_history,"), strings.Index(lock, "jobq.job_attempts,")
	require.True(t, jobs >= 0 && jobs < history && history < attempts, "jobs, then job_history, then job_attempts: %s", lock)
	require.Less(t, strings.Index(printed, "LOCK TABLE"), strings.Index(printed, "-- jobq function file 70_tenancy.sql"), "the locks come before any DDL")

	_, err = m.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"70_tenancy.sql", migrate.GrantsFile}, m.FunctionsApplied())
}

// Open refuses a cluster whose bootstrap is older than the migrations or incomplete, naming each
// missing role or grant and the step of bootstrap/ that makes it, and changes nothing; after
// jobq bootstrap it opens.
func TestOpenRefusesAnIncompleteBootstrapNamingTheStep(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	cluster := dbtest.StartCluster(t)
	bootstrapDatabase(t, cluster, "app")
	admin := dbtest.Connect(t, cluster.URL("postgres", "app"))
	// An earlier release's bootstrap: no jobq_viewer; and a grant of step 2 taken back.
	_, err := admin.Exec(ctx, `REVOKE jobq_viewer FROM jobq_dashboard; REVOKE CONNECT ON DATABASE app FROM jobq_viewer; DROP ROLE jobq_viewer; REVOKE jobq_app_gate FROM jobq_migrator`)
	require.NoError(t, err)

	_, err = migrate.Open(ctx, cluster.URL("jobq_migrator", "app"))
	require.ErrorIs(t, err, jobq.ErrBootstrapMissing)
	require.ErrorContains(t, err, "JOB.BOOTSTRAP_MISSING: role jobq_viewer is missing; jobq_migrator is not a member of jobq_app_gate: "+
		"run `jobq bootstrap` (bootstrap/001_roles.sql, bootstrap/002_database.sql) as a superuser first")
	require.Empty(t, dbtest.QueryStrings(t, admin, `SELECT nspname::text FROM pg_catalog.pg_namespace WHERE nspname = 'jobq'`), "nothing was created")

	require.NoError(t, migrate.Bootstrap(ctx, admin, migrate.BootstrapOptions{}))
	m, err := migrate.Open(ctx, cluster.URL("jobq_migrator", "app"))
	require.NoError(t, err)
	_, err = m.Up(context.WithoutCancel(ctx))
	require.NoError(t, err)
	require.NoError(t, m.Close())
}

// copyFS returns the *.sql files of fsys as a map file system, to which a test adds files.
func copyFS(t *testing.T, fsys fs.FS) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	names, err := fs.Glob(fsys, "*.sql")
	require.NoError(t, err)
	for _, n := range names {
		body, err := fs.ReadFile(fsys, n)
		require.NoError(t, err)
		out[n] = &fstest.MapFile{Data: body, Mode: 0o644}
	}
	return out
}

// An upgrade that fails half-way changes nothing: a pending migration that ran and the function
// files applied before the failing one are rolled back with it, so the database stays on the old
// release, whole and serving (issue 29's failed upgrade left the schema half-migrated and jobs
// unserved until it was run again).
func TestAFailedUpgradeChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	db := dbtest.New(t)
	admin := dbtest.Connect(t, db.URL("postgres"))
	_, err := admin.Exec(ctx, `SELECT jobq.define_task('upgrade-probe');
		UPDATE jobq.function_files SET checksum = repeat('0', 64) WHERE name = '30_claim.sql'`)
	require.NoError(t, err)
	before := dbtest.DumpSchema(t, db.URL("postgres"))

	migrations := copyFS(t, migrate.Embedded().Migrations)
	migrations["99990_upgrade_probe.sql"] = &fstest.MapFile{Data: []byte(
		"-- +goose Up\nALTER TABLE jobq.jobs ADD COLUMN upgrade_probe integer;\n-- +goose Down\nALTER TABLE jobq.jobs DROP COLUMN upgrade_probe;\n")}
	functions := copyFS(t, migrate.Embedded().Functions)
	functions["99_broken.sql"] = &fstest.MapFile{Data: []byte("SELECT 1 / 0;\n")}
	m, err := migrate.OpenWith(ctx, db.URL("jobq_migrator"), migrate.Options{Source: &migrate.Source{Migrations: migrations, Functions: functions}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })

	_, err = m.Up(ctx)
	require.ErrorContains(t, err, "jobq function file 99_broken.sql")
	require.ErrorContains(t, err, "division by zero")
	require.Empty(t, m.FunctionsApplied())
	dbtest.RequireSameSchema(t, before, dbtest.DumpSchema(t, db.URL("postgres")), "a failed upgrade")
	require.Equal(t, []string{strings.Repeat("0", 64)},
		dbtest.QueryStrings(t, admin, `SELECT checksum FROM jobq.function_files WHERE name = '30_claim.sql'`))
	require.Empty(t, dbtest.QueryStrings(t, admin, `SELECT version_id::text FROM jobq.goose_db_version WHERE version_id = 99990`))

	// And the old release serves.
	worker := dbtest.Connect(t, db.URL("worker_runtime"))
	var id int64
	require.NoError(t, worker.QueryRow(ctx, `SELECT jobq.enqueue('upgrade-probe')`).Scan(&id))
	require.Equal(t, []string{strconv.FormatInt(id, 10)},
		dbtest.QueryStrings(t, worker, `SELECT c.id::text FROM jobq.claim_job('upgrade-test', ARRAY['default'], 1) AS c`))
}
