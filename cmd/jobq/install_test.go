package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/migrate"
	jobqsql "github.com/jobqdev/jobq/sql"
)

// functionFiles are the embedded function file names in the order they are applied.
func functionFiles(t *testing.T) []string {
	t.Helper()
	names, err := fs.Glob(jobqsql.Functions, "*.sql")
	require.NoError(t, err)
	require.NotEmpty(t, names)
	sort.Strings(names)
	return names
}

// migrationFiles are the embedded migration file names in version order.
func migrationFiles(t *testing.T) []string {
	t.Helper()
	names, err := fs.Glob(jobqsql.Migrations, "*.sql")
	require.NoError(t, err)
	require.NotEmpty(t, names)
	sort.Strings(names)
	return names
}

// Given a cluster where bootstrap never ran, when the migrations run first, then they refuse with
// JOB.BOOTSTRAP_MISSING and a hint that names the order, and they create nothing.
func TestMigrateBeforeBootstrapFails(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	cluster := dbtest.StartCluster(t)
	dbtest.CreateDatabase(t, cluster, "app")
	url := cluster.URL("postgres", "app")

	t.Run("OpenRefusesWithBootstrapMissing", func(t *testing.T) {
		m, err := migrate.Open(ctx, url)
		if m != nil {
			_ = m.Close()
		}
		require.Error(t, err)
		require.ErrorIs(t, err, jobq.ErrBootstrapMissing)
		require.Contains(t, strings.ToLower(err.Error()), "bootstrap")
		for _, role := range migrate.RequiredRoles {
			require.Contains(t, err.Error(), role, "the message names the missing roles")
		}
		var jerr *jobq.Error
		require.True(t, errors.As(err, &jerr))
		require.Contains(t, jerr.Hint, "Apply bootstrap first")
		require.Contains(t, jerr.Hint, "then run the migrations")
	})

	t.Run("CLIExitsOneWithCodeAndHint", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "migrate", "up", "--database-url", url)
		require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
		require.Contains(t, stderr, "JOB.BOOTSTRAP_MISSING")
		require.Contains(t, stderr, "hint: Apply bootstrap first (jobq bootstrap, or psql -f bootstrap/*.sql as a superuser), then run the migrations.")
		require.Empty(t, stdout)
	})

	t.Run("NothingWasCreated", func(t *testing.T) {
		admin := dbtest.Connect(t, url)
		require.False(t, queryBool(t, admin, "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = 'jobq')"), "no schema jobq")
		require.Empty(t, dbtest.QueryStrings(t, admin, "SELECT rolname::text FROM pg_catalog.pg_roles WHERE rolname = ANY($1)", migrate.RequiredRoles), "no role")
	})
}

// Seed GWT-4: given an empty database, when bootstrap (twice) and then migrate run, then the jobq
// schema exists, owned by jobq_migrator, at the binary's version.
func TestBootstrapThenMigrateCreatesTheSchema(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	cluster := dbtest.StartCluster(t)
	dbtest.CreateDatabase(t, cluster, "app")
	adminURL := cluster.URL("postgres", "app")
	migratorURL := cluster.URL("jobq_migrator", "app")

	state := func(t *testing.T) []string {
		admin := dbtest.Connect(t, adminURL)
		var s []string
		s = append(s, dbtest.QueryStrings(t, admin, `SELECT 'role ' || row_to_json(r)::text FROM pg_catalog.pg_roles r
			WHERE r.rolname = ANY($1) ORDER BY r.rolname`, migrate.RequiredRoles)...)
		s = append(s, dbtest.QueryStrings(t, admin, `SELECT 'member ' || a.roleid::regrole || ' ' || a.member::regrole || ' ' || row_to_json(a)::text
			FROM pg_catalog.pg_auth_members a ORDER BY 1`)...)
		s = append(s, dbtest.QueryStrings(t, admin, `SELECT 'database ' || coalesce(datacl::text, '-') FROM pg_catalog.pg_database
			WHERE datname = current_database()`)...)
		return s
	}

	var afterFirst []string
	t.Run("BootstrapCreatesTheRoles", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "bootstrap", "--database-url", adminURL)
		require.Equal(t, 0, code, "stderr:\n%s", stderr)
		require.Contains(t, stdout, "jobq bootstrap: roles and database grants are in place")
		afterFirst = state(t)
		require.Len(t, dbtest.QueryStrings(t, dbtest.Connect(t, adminURL),
			"SELECT rolname::text FROM pg_catalog.pg_roles WHERE rolname = ANY($1)", migrate.RequiredRoles), len(migrate.RequiredRoles))
	})

	t.Run("SecondBootstrapSucceedsAndChangesNothing", func(t *testing.T) {
		require.NotEmpty(t, afterFirst)
		code, _, stderr := runCLI(t, "bootstrap", "--database-url", adminURL)
		require.Equal(t, 0, code, "stderr:\n%s", stderr)
		require.Equal(t, afterFirst, state(t))
	})

	t.Run("MigrateUpAppliesEveryFile", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "migrate", "up", "--database-url", migratorURL)
		require.Equal(t, 0, code, "stderr:\n%s", stderr)
		var applied []string
		for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
			f := strings.Fields(line)
			require.GreaterOrEqual(t, len(f), 2, "line %q", line)
			require.Equal(t, "applied", f[0], "line %q", line)
			applied = append(applied, f[1])
		}
		want := migrationFiles(t)
		for _, f := range functionFiles(t) {
			want = append(want, "functions/"+f)
		}
		require.Equal(t, want, applied, "every migration, then every function file")
	})

	t.Run("SchemaIsOwnedByTheMigratorAtTheLatestVersion", func(t *testing.T) {
		admin := dbtest.Connect(t, adminURL)
		var owner string
		require.NoError(t, admin.QueryRow(ctx, "SELECT nspowner::regrole::text FROM pg_catalog.pg_namespace WHERE nspname = 'jobq'").Scan(&owner))
		require.Equal(t, "jobq_migrator", owner)
		// Every object of schema jobq is owned by jobq_migrator but, by design, the functions an
		// application may call that write jobs: jobq_app_gate owns them, so that row-level
		// security confines them to the caller's store.
		require.Equal(t, []string{
			"function jobq.batch_enqueue(bigint,jsonb) jobq_app_gate",
			"function jobq.cancel_job(bigint) jobq_app_gate",
			"function jobq.create_batch(jsonb,jsonb,jsonb,uuid,text,jsonb,boolean) jobq_app_gate",
			"function jobq.enqueue(text,jsonb,timestamp with time zone,text,text,integer,integer,text,uuid,interval,interval,interval,interval,bigint[],text,text,text) jobq_app_gate",
			"function jobq.enqueue_many(jsonb) jobq_app_gate",
			"function jobq.retry_job(bigint) jobq_app_gate",
			"function jobq.seal_batch(bigint) jobq_app_gate",
		}, dbtest.QueryStrings(t, admin, `
			SELECT 'relation ' || c.relname || ' ' || c.relowner::regrole FROM pg_catalog.pg_class c
			WHERE c.relnamespace = 'jobq'::regnamespace AND c.relowner <> 'jobq_migrator'::regrole
			UNION ALL
			SELECT 'function ' || p.oid::regprocedure || ' ' || p.proowner::regrole FROM pg_catalog.pg_proc p
			WHERE p.pronamespace = 'jobq'::regnamespace AND p.proowner <> 'jobq_migrator'::regrole
			ORDER BY 1`),
			"every object of schema jobq is owned by jobq_migrator, but the four gate functions")
		require.Equal(t, "worker_fanout_owner", dbtest.QueryStrings(t, admin,
			`SELECT proowner::regrole::text FROM pg_catalog.pg_proc WHERE oid = 'public.list_store_ids_for_fan_out()'::regprocedure`)[0],
			"the store fan-out's lister is owned by the BYPASSRLS role nobody logs in as")

		applied, err := migrate.CheckVersion(ctx, dbtest.Connect(t, cluster.URL("worker_runtime", "app")))
		require.NoError(t, err)
		latest, err := migrate.LatestVersion()
		require.NoError(t, err)
		require.Equal(t, latest, applied)
	})

	t.Run("StatusListsEveryFileAsApplied", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "migrate", "status", "--database-url", migratorURL)
		require.Equal(t, 0, code, "stderr:\n%s", stderr)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		files := migrationFiles(t)
		require.Len(t, lines, len(files), "stdout:\n%s", stdout)
		for i, line := range lines {
			f := strings.Fields(line)
			require.GreaterOrEqual(t, len(f), 3, "line %q", line)
			require.Equal(t, files[i], f[0])
			require.Equal(t, "applied", f[1], "line %q", line)
		}
	})

	t.Run("StatusJSONListsEveryFileAsAppliedAndNoFunctionPending", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "migrate", "status", "--json", "--database-url", migratorURL)
		require.Equal(t, 0, code, "stderr:\n%s", stderr)
		var st struct {
			Migrations []struct {
				Path      string  `json:"path"`
				State     string  `json:"state"`
				AppliedAt *string `json:"applied_at"`
			} `json:"migrations"`
			PendingFunctions []string `json:"pending_functions"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &st), "stdout:\n%s", stdout)
		files := migrationFiles(t)
		require.Len(t, st.Migrations, len(files))
		for i, m := range st.Migrations {
			require.Equal(t, files[i], m.Path)
			require.Equal(t, "applied", m.State)
			require.NotNil(t, m.AppliedAt, "an applied migration says when")
		}
		require.NotNil(t, st.PendingFunctions, "an empty list, not null")
		require.Empty(t, st.PendingFunctions)
	})

	t.Run("SecondMigrateUpIsAlreadyUpToDate", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "migrate", "up", "--database-url", migratorURL)
		require.Equal(t, 0, code, "stderr:\n%s", stderr)
		require.Equal(t, "jobq migrate: already up to date\n", stdout)
	})
}

// A dry run prints the pending migrations' SQL and applies none of them; a DBA who applies that
// SQL by hand, as jobq_migrator, gets the same schema as goose builds.
func TestMigrateUpDryRun(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	cluster := dbtest.StartCluster(t)
	dbtest.CreateDatabase(t, cluster, "app")
	adminURL := cluster.URL("postgres", "app")
	migratorURL := cluster.URL("jobq_migrator", "app")
	require.NoError(t, migrate.Bootstrap(ctx, dbtest.Connect(t, adminURL), migrate.BootstrapOptions{}))

	code, status, stderr := runCLI(t, "migrate", "status", "--json", "--database-url", migratorURL)
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	var pending struct {
		Migrations []struct {
			State     string  `json:"state"`
			AppliedAt *string `json:"applied_at"`
		} `json:"migrations"`
		PendingFunctions []string `json:"pending_functions"`
	}
	require.NoError(t, json.Unmarshal([]byte(status), &pending), "stdout:\n%s", status)
	require.Len(t, pending.Migrations, len(migrationFiles(t)))
	for _, m := range pending.Migrations {
		require.Equal(t, "pending", m.State)
		require.Nil(t, m.AppliedAt)
	}
	require.Contains(t, pending.PendingFunctions, "functions/30_claim.sql", "every function file waits for migrate up")

	code, printed, stderr := runCLI(t, "migrate", "up", "--dry-run", "--database-url", migratorURL)
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Contains(t, printed, "CREATE TABLE jobq.jobs")
	require.Contains(t, printed, "CREATE OR REPLACE FUNCTION jobq.claim_job")
	require.NotContains(t, printed, "+goose", "goose annotations are dropped")
	files := migrationFiles(t)
	var headers, inserts int
	for _, line := range strings.Split(printed, "\n") {
		if strings.HasPrefix(line, "-- jobq migration ") {
			headers++
		}
		if strings.HasPrefix(line, "INSERT INTO "+migrate.VersionTable+" (version_id, is_applied) VALUES (") {
			inserts++
		}
	}
	require.Equal(t, len(files), headers, "one header per pending migration")
	require.Equal(t, len(files), inserts, "each migration records its version")
	require.Contains(t, stderr, "jobq migrate: "+strconv.Itoa(len(files))+" pending migration(s) printed, nothing applied")

	admin := dbtest.Connect(t, adminURL)
	t.Run("NothingIsApplied", func(t *testing.T) {
		require.False(t, queryBool(t, admin, "SELECT to_regclass('jobq.jobs') IS NOT NULL"), "no jobq.jobs table")
		require.False(t, queryBool(t, admin, "SELECT to_regprocedure('jobq.claim_job(text, text[], integer, interval)') IS NOT NULL"))
		// The dry run does leave schema jobq and goose's empty version table behind (Open and
		// goose's Status create them); no migration is recorded in it.
		if queryBool(t, admin, "SELECT to_regclass('jobq.goose_db_version') IS NOT NULL") {
			require.False(t, queryBool(t, admin, "SELECT EXISTS (SELECT 1 FROM jobq.goose_db_version WHERE version_id > 0)"))
		}
	})

	t.Run("PrintedSQLBuildsTheSameSchemaAsGoose", func(t *testing.T) {
		// As with psql -f: one simple-protocol batch, as jobq_migrator. The printed INSERTs into
		// jobq.goose_db_version need the version table, which the dry run itself created above.
		migrator := dbtest.Connect(t, migratorURL)
		require.NoError(t, migrator.PgConn().Exec(ctx, "CREATE SCHEMA IF NOT EXISTS jobq;\n"+printed).Close())

		wantVersions := []string{"0:1"}
		for _, f := range files {
			v, err := goose.NumericComponent(f)
			require.NoError(t, err)
			wantVersions = append(wantVersions, strconv.FormatInt(v, 10)+":1")
		}
		require.Equal(t, wantVersions,
			dbtest.QueryStrings(t, admin, "SELECT version_id || ':' || count(*) FROM jobq.goose_db_version GROUP BY version_id ORDER BY version_id"))
		_, err := migrate.CheckVersion(ctx, admin)
		require.NoError(t, err)

		want := dbtest.DumpSchema(t, dbtest.New(t).URL("postgres"))
		got := dbtest.DumpSchema(t, adminURL)
		dbtest.RequireSameSchema(t, want, got, "the hand-applied dry-run SQL vs goose")

		code, stdout, stderr := runCLI(t, "migrate", "up", "--database-url", migratorURL)
		require.Equal(t, 0, code, "stderr:\n%s", stderr)
		require.Equal(t, "jobq migrate: already up to date\n", stdout, "goose sees the hand-applied migrations as applied")
	})
}

// jobq bootstrap sets the password of each LOGIN role from its environment variable:
// JOBQ_MIGRATOR_PASSWORD, WORKER_RUNTIME_PASSWORD and JOBQ_WAKER_PASSWORD (jobq_waker, the
// replication role of the WAL wake-up). It runs on a cluster of its own, since roles are
// cluster-wide. (t.Setenv: this test cannot run in parallel.)
func TestBootstrapSetsThePasswordsFromTheEnvironment(t *testing.T) {
	cluster := dbtest.StartCluster(t)
	dbtest.CreateDatabase(t, cluster, "app")
	adminURL := cluster.URL("postgres", "app")
	t.Setenv("JOBQ_MIGRATOR_PASSWORD", "migrator-secret-2")
	t.Setenv("WORKER_RUNTIME_PASSWORD", "runtime-secret-2")
	t.Setenv("JOBQ_WAKER_PASSWORD", "waker-secret-2")

	code, _, stderr := runCLI(t, "bootstrap", "--database-url", adminURL)
	require.Equal(t, 0, code, "stderr:\n%s", stderr)

	admin := dbtest.Connect(t, adminURL)
	for role, password := range map[string]string{
		"jobq_migrator": "migrator-secret-2", "worker_runtime": "runtime-secret-2", "jobq_waker": "waker-secret-2",
	} {
		var hash *string
		require.NoError(t, admin.QueryRow(testCtx(t), `SELECT rolpassword FROM pg_catalog.pg_authid WHERE rolname = $1`, role).Scan(&hash))
		require.NotNil(t, hash, "%s has a password", role)
		require.NotContains(t, *hash, password, "%s's password is stored hashed", role)
		require.True(t, queryBool(t, admin, `SELECT rolcanlogin FROM pg_catalog.pg_roles WHERE rolname = $1`, role), "%s can log in", role)
	}
	require.True(t, queryBool(t, admin, `SELECT rolreplication FROM pg_catalog.pg_roles WHERE rolname = 'jobq_waker'`),
		"jobq_waker has REPLICATION")
}
