package migrate_test

import (
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/bootstrap"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/migrate"
	jobqsql "github.com/jobqdev/jobq/sql"
)

// createFunction finds the name of every function a SQL text creates.
var createFunction = regexp.MustCompile(`(?im)^\s*CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+([a-z_]+\.[a-z_0-9]+)\s*\(`)

// definitions counts, per function name, the CREATE FUNCTION statements of every file of fsys.
func definitions(t *testing.T, fsys fs.FS, where map[string][]string, dir string) {
	t.Helper()
	names, err := fs.Glob(fsys, "*.sql")
	require.NoError(t, err)
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		require.NoError(t, err)
		for _, m := range createFunction.FindAllStringSubmatch(string(b), -1) {
			where[m[1]] = append(where[m[1]], dir+"/"+n)
		}
	}
}

// Every engine function has one home: it is created exactly once in the whole of sql/, in a file of
// sql/functions/ (never in a migration), and the files create exactly the functions a migrated
// database holds.
func TestEveryFunctionIsDefinedInExactlyOneFunctionFile(t *testing.T) {
	t.Parallel()
	where := map[string][]string{}
	definitions(t, jobqsql.Functions, where, "functions")
	definitions(t, jobqsql.Migrations, where, "migrations")
	for name, files := range where {
		require.Len(t, files, 1, "%s is defined in %v", name, files)
		require.True(t, strings.HasPrefix(files[0], "functions/"), "%s is defined in a migration, %s", name, files[0])
	}
	db := dbtest.New(t)
	inDB := dbtest.QueryStrings(t, dbtest.Connect(t, db.URL("postgres")), `
		SELECT n.nspname || '.' || p.proname FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = 'jobq' OR p.oid = 'public.list_store_ids_for_fan_out()'::regprocedure ORDER BY 1`)
	inFiles := make([]string, 0, len(where))
	for name := range where {
		inFiles = append(inFiles, name)
	}
	sort.Strings(inFiles)
	require.Equal(t, inDB, inFiles, "the function files create exactly the database's functions")
}

// openClone opens the migrator on a fresh clone of the migrated template, with bootstrap step 2
// (per database) applied to it as an installer would.
func openClone(t *testing.T) (*dbtest.DB, *migrate.Migrator) {
	t.Helper()
	ctx := testCtx(t)
	db := dbtest.New(t)
	step2, err := fs.ReadFile(bootstrap.Files, "002_database.sql")
	require.NoError(t, err)
	require.NoError(t, dbtest.Connect(t, db.URL("postgres")).PgConn().Exec(ctx, string(step2)).Close())
	m, err := migrate.Open(ctx, db.URL("jobq_migrator"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	return db, m
}

// A function file is applied again when its content differs from the checksum recorded for it,
// and only then; what it restores is the function as the file says, and nothing else changes.
func TestUpReappliesAFunctionFileWhoseContentChanged(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	db, m := openClone(t)
	admin := dbtest.Connect(t, db.URL("postgres"))
	before := dbtest.DumpSchema(t, db.URL("postgres"))

	res, err := m.Up(ctx)
	require.NoError(t, err)
	require.Empty(t, res)
	require.Empty(t, m.FunctionsApplied(), "an up-to-date database applies no function file")

	// The database drifts (a hand edit) and claim's file is recorded with another checksum, as
	// after a release that changed it.
	_, err = admin.Exec(ctx, `COMMENT ON FUNCTION jobq._claim(text, text[], integer, interval, timestamptz, integer[], timestamptz[], bigint[], text[]) IS 'drifted';
		UPDATE jobq.function_files SET checksum = repeat('0', 64) WHERE name = '30_claim.sql'`)
	require.NoError(t, err)
	res, err = m.Up(ctx)
	require.NoError(t, err)
	require.Empty(t, res)
	require.Equal(t, []string{"30_claim.sql", migrate.GrantsFile}, m.FunctionsApplied(), "only the changed file is applied, and the grants after it")
	dbtest.RequireSameSchema(t, before, dbtest.DumpSchema(t, db.URL("postgres")), "after claim's file was applied again")

	files, err := migrate.FunctionFiles()
	require.NoError(t, err)
	want := map[string]string{}
	for _, f := range files {
		want[f.Name] = f.Checksum
	}
	got := map[string]string{}
	rows := dbtest.QueryStrings(t, admin, `SELECT name || ' ' || checksum FROM jobq.function_files`)
	for _, r := range rows {
		name, sum, _ := strings.Cut(r, " ")
		got[name] = sum
	}
	require.Equal(t, want, got, "every file is recorded with the checksum of its embedded content")

	_, err = m.Up(ctx)
	require.NoError(t, err)
	require.Empty(t, m.FunctionsApplied(), "a second up applies nothing")
}

// Applying every function file again over an installed schema changes nothing: every statement of
// a file is idempotent (grants and policies included).
func TestApplyingEveryFunctionFileAgainChangesNothing(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	db, m := openClone(t)
	before := dbtest.DumpSchema(t, db.URL("postgres"))
	_, err := dbtest.Connect(t, db.URL("postgres")).Exec(ctx, `DELETE FROM jobq.function_files`)
	require.NoError(t, err)

	_, err = m.Up(ctx)
	require.NoError(t, err)
	files, err := migrate.FunctionFiles()
	require.NoError(t, err)
	require.Len(t, m.FunctionsApplied(), len(files), "with no record, every file is applied")
	dbtest.RequireSameSchema(t, before, dbtest.DumpSchema(t, db.URL("postgres")), "after every function file was applied again")
}

// A development database installed before the squash (goose history past the newest migration,
// no jobq.function_files) is refused with ErrPreSquash, and nothing is applied.
func TestUpRefusesADatabaseInstalledBeforeTheSquash(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	db, m := openClone(t)
	admin := dbtest.Connect(t, db.URL("postgres"))
	_, err := admin.Exec(ctx, `DROP TABLE jobq.function_files;
		INSERT INTO jobq.goose_db_version (version_id, is_applied) SELECT g, true FROM generate_series(5, 90) AS g`)
	require.NoError(t, err)
	before := dbtest.DumpSchema(t, db.URL("postgres"))
	_, err = m.Up(ctx)
	require.ErrorIs(t, err, migrate.ErrPreSquash)
	require.ErrorContains(t, err, "goose history at 90")
	require.Empty(t, m.FunctionsApplied())
	dbtest.RequireSameSchema(t, before, dbtest.DumpSchema(t, db.URL("postgres")), "a refused up changes nothing")
}
