package migrate_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/localpg"
	"github.com/jobqdev/jobq/migrate"
)

// installScript writes src's SQL install to a file of the test's and returns its path.
func installScript(t *testing.T, src migrate.Source, version string) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, migrate.WriteInstallScript(&b, src, version))
	path := filepath.Join(t.TempDir(), "jobq--"+version+".sql")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	return path
}

// psqlFile applies file with psql (args before -f, such as -1) and returns its exit error and
// output: the way a DBA applies the SQL install.
func psqlFile(t *testing.T, url, file string, args ...string) (error, string) {
	t.Helper()
	psql, err := exec.LookPath("psql")
	require.NoError(t, err, "the SQL install is applied with psql (postgresql-client)")
	cmd := exec.Command(psql, append(append([]string{"-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url}, args...), "-f", file)...)
	out, err := cmd.CombinedOutput()
	return err, string(out)
}

// recorded is what jobq records of an installation besides the schema: the migrations applied,
// the function files and their checksums, and the catalogue and settings the migrations insert.
func recorded(t *testing.T, c *localpg.Cluster, db string) []string {
	t.Helper()
	conn := dbtest.Connect(t, c.URL("postgres", db))
	return dbtest.QueryStrings(t, conn, `
		SELECT 'migration ' || v.version_id || ' ' || v.is_applied FROM jobq.goose_db_version v
		UNION ALL SELECT 'file ' || f.name || ' ' || f.checksum FROM jobq.function_files f
		UNION ALL SELECT 'error ' || e::text FROM jobq.error_codes e
		UNION ALL SELECT 'setting ' || s.name || ' ' || s.value FROM jobq.settings s
		ORDER BY 1`)
}

// TestInstallScriptGivesTheSchemaMigrateUpGives: the SQL install of make dist (jobq migrate
// script), applied with psql to a database that bootstrap prepared, gives exactly the schema and
// the records jobq migrate up gives, whether jobq_migrator applies it with psql -1 or a superuser
// without; migrate status and validate read it as up to date and migrate up finds nothing to do.
// It refuses, changing nothing, a cluster without bootstrap's roles (JQ301), a second
// application and a database with a newer jobq (JQ302). An earlier release's script, applied,
// is upgraded by today's migrate up to today's schema.
func TestInstallScriptGivesTheSchemaMigrateUpGives(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	cluster := dbtest.StartCluster(t)
	script := installScript(t, migrate.Embedded(), "v0.0.0-test")
	// The label goes into the script's comments: a line break or a quote would smuggle SQL in.
	for _, bad := range []string{"", "v1\nDROP SCHEMA jobq CASCADE;", "v1'; --", strings.Repeat("9", 101)} {
		require.Error(t, migrate.WriteInstallScript(&bytes.Buffer{}, migrate.Embedded(), bad), "release %q", bad)
	}

	// First, on a cluster bootstrap never ran on: refused, nothing created.
	dbtest.CreateDatabase(t, cluster, "bare")
	err, out := psqlFile(t, cluster.URL("postgres", "bare"), script)
	require.Error(t, err, "a cluster without bootstrap's roles is refused")
	require.Contains(t, out, "JOB.BOOTSTRAP_MISSING: roles jobq_app, jobq_app_gate, jobq_dashboard, jobq_migrator, jobq_operator, jobq_viewer, jobq_waker, worker_fanout_owner, worker_runtime do not exist")
	bare := dbtest.Connect(t, cluster.URL("postgres", "bare"))
	require.Equal(t, []string{"false"}, dbtest.QueryStrings(t, bare, `SELECT (pg_catalog.to_regnamespace('jobq') IS NOT NULL)::text`), "no schema was created")

	bootstrapDatabase(t, cluster, "viaup")
	m, err := migrate.Open(ctx, cluster.URL("jobq_migrator", "viaup"))
	require.NoError(t, err)
	_, err = m.Up(ctx)
	require.NoError(t, err)
	require.NoError(t, m.Close())
	want := dbtest.DumpSchema(t, cluster.URL("postgres", "viaup"))
	wantRecords := recorded(t, cluster, "viaup")

	for _, as := range []struct{ db, user string }{{"viascript", "jobq_migrator"}, {"viasuper", "postgres"}} {
		bootstrapDatabase(t, cluster, as.db)
		args := []string{}
		if as.user == "jobq_migrator" {
			args = append(args, "-1")
		}
		err, out := psqlFile(t, cluster.URL(as.user, as.db), script, args...)
		require.NoError(t, err, "psql %v -f as %s: %s", args, as.user, out)
		dbtest.RequireSameSchema(t, want, dbtest.DumpSchema(t, cluster.URL("postgres", as.db)), "the SQL install applied by "+as.user)
		require.Equal(t, wantRecords, recorded(t, cluster, as.db), "applied by %s: the same records as migrate up", as.user)

		m, err := migrate.Open(ctx, cluster.URL("jobq_migrator", as.db))
		require.NoError(t, err)
		st, err := m.Status(ctx)
		require.NoError(t, err)
		for _, s := range st {
			require.False(t, s.AppliedAt.IsZero(), "migrate status reads %s as applied", s.Source.Path)
		}
		files, err := m.PendingFunctions(ctx)
		require.NoError(t, err)
		require.Empty(t, files, "no function file is pending")
		res, err := m.Up(ctx)
		require.NoError(t, err)
		require.Empty(t, res, "migrate up finds nothing to do")
		require.Empty(t, m.FunctionsApplied())
		require.NoError(t, m.Close())
	}

	// Applied twice: refused, nothing changed.
	before := dbtest.DumpSchema(t, cluster.URL("postgres", "viascript"))
	err, out = psqlFile(t, cluster.URL("jobq_migrator", "viascript"), script, "-1")
	require.Error(t, err)
	require.Contains(t, out, "JOB.ALREADY_INSTALLED: this database has jobq at migration")
	dbtest.RequireSameSchema(t, before, dbtest.DumpSchema(t, cluster.URL("postgres", "viascript")), "a second application changes nothing")
	require.Equal(t, wantRecords, recorded(t, cluster, "viascript"))

	// A database with a newer jobq than the script's: refused too.
	viaup := dbtest.Connect(t, cluster.URL("postgres", "viaup"))
	_, err = viaup.Exec(ctx, `INSERT INTO jobq.goose_db_version (version_id, is_applied) VALUES (99999, true)`)
	require.NoError(t, err)
	err, out = psqlFile(t, cluster.URL("jobq_migrator", "viaup"), script)
	require.Error(t, err)
	require.Contains(t, out, "JOB.ALREADY_INSTALLED: this database has jobq at migration 99999")

	// The install script of an earlier release, then today's migrate up: today's schema.
	first := earlierSchemas(t)[len(earlierSchemas(t))-1]
	tree := treeAt(t, first.commit)
	old := migrate.Source{Migrations: subFS(t, tree, "sql/migrations"), Functions: subFS(t, tree, "sql/functions")}
	bootstrapDatabase(t, cluster, "oldscript")
	err, out = psqlFile(t, cluster.URL("jobq_migrator", "oldscript"), installScript(t, old, "v0.0.0-"+first.commit), "-1")
	require.NoError(t, err, "the SQL install of %s: %s", first.commit, out)
	m, err = migrate.Open(ctx, cluster.URL("jobq_migrator", "oldscript"))
	require.NoError(t, err)
	res, err := m.Up(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, res, "migrate up applies the migrations since %s", first.commit)
	require.NoError(t, m.Close())
	dbtest.RequireSameSchema(t, want, dbtest.DumpSchema(t, cluster.URL("postgres", "oldscript")), "the install of "+first.commit+" upgraded by migrate up")
	require.True(t, strings.HasPrefix(first.commit, "4539392"), "the newest earlier schema is the one this test upgrades from: %s", first.commit)
}
