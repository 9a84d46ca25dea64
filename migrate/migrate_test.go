package migrate_test

import (
	"errors"
	"io/fs"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/bootstrap"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/migrate"
	jobqsql "github.com/jobqdev/jobq/sql"
)

// embeddedVersions are the versions of the embedded migrations, ascending.
func embeddedVersions(t *testing.T) []int64 {
	t.Helper()
	names, err := fs.Glob(jobqsql.Migrations, "*.sql")
	require.NoError(t, err)
	require.NotEmpty(t, names)
	var vs []int64
	for _, n := range names {
		v, err := goose.NumericComponent(n)
		require.NoError(t, err)
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	return vs
}

func TestLatestVersionIsTheNewestEmbeddedMigration(t *testing.T) {
	t.Parallel()
	vs := embeddedVersions(t)
	latest, err := migrate.LatestVersion()
	require.NoError(t, err)
	require.Equal(t, vs[len(vs)-1], latest)
}

// Two (here four) installers at once are safe: goose's session advisory lock serialises the runs,
// so each migration is applied exactly once and the others find nothing left to do.
func TestConcurrentInstallersApplyEachMigrationOnce(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	cluster := dbtest.StartCluster(t)
	bootstrapDatabase(t, cluster, "app")

	const installers = 4
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		errs    = make([]error, installers)
		applied = make([][]int64, installers)
	)
	for i := range installers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			m, err := migrate.Open(ctx, cluster.URL("jobq_migrator", "app"))
			if err != nil {
				errs[i] = err
				return
			}
			defer m.Close()
			res, err := m.Up(ctx)
			for _, r := range res {
				applied[i] = append(applied[i], r.Source.Version)
			}
			errs[i] = err
		}()
	}
	close(start)
	wg.Wait()

	for i, err := range errs {
		require.NoError(t, err, "installer %d", i)
	}
	var all []int64
	for _, vs := range applied {
		all = append(all, vs...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	require.Equal(t, embeddedVersions(t), all, "across the installers every migration was applied exactly once")

	admin := dbtest.Connect(t, cluster.URL("postgres", "app"))
	require.Equal(t, append([]string{"0:1"}, versionCounts(embeddedVersions(t))...),
		dbtest.QueryStrings(t, admin, "SELECT version_id || ':' || count(*) FROM jobq.goose_db_version GROUP BY version_id ORDER BY version_id"),
		"the version table holds one row per version")
	v, err := migrate.CheckVersion(ctx, admin)
	require.NoError(t, err)
	require.Equal(t, all[len(all)-1], v)

	want := dbtest.DumpSchema(t, dbtest.New(t).URL("postgres"))
	got := dbtest.DumpSchema(t, cluster.URL("postgres", "app"))
	dbtest.RequireSameSchema(t, want, got, "concurrently installed schema vs the sandbox's")
}

// Open only connects and checks the bootstrap: many simultaneous Opens on a new database succeed
// and create nothing (the schema and goose's table appear with Up, under a lock).
func TestConcurrentOpenOnNewDatabase(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	cluster := dbtest.StartCluster(t)
	const rounds, openers = 10, 16
	for round := range rounds {
		name := "app" + strconv.Itoa(round)
		bootstrapDatabase(t, cluster, name)
		var (
			wg    sync.WaitGroup
			start = make(chan struct{})
			errs  = make([]error, openers)
		)
		for i := range openers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				m, err := migrate.Open(ctx, cluster.URL("jobq_migrator", name))
				if err == nil {
					err = m.Close()
				}
				errs[i] = err
			}()
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			require.NoError(t, err, "database %s, opener %d", name, i)
		}
		var schemas int
		require.NoError(t, dbtest.Connect(t, cluster.URL("postgres", name)).QueryRow(ctx,
			"SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = 'jobq'").Scan(&schemas))
		require.Zero(t, schemas, "Open (and Status) must change nothing: the schema appears with Up")
	}
}

func versionCounts(vs []int64) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strconv.FormatInt(v, 10) + ":1"
	}
	return out
}

// Rolling every migration back and applying them again gives the same schema: each Down section
// drops what its Up created, by full signature, and nothing is left behind.
func TestDownToZeroThenUpRestoresTheSchema(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	db := dbtest.New(t)
	admin := dbtest.Connect(t, db.URL("postgres"))
	before := dbtest.DumpSchema(t, db.URL("postgres"))
	defaultACL := func() []string {
		return dbtest.QueryStrings(t, admin, `SELECT d.defaclrole::regrole || ' ' || d.defaclobjtype::text || ' ' || coalesce(d.defaclnamespace::regnamespace::text, '-') || ' ' || d.defaclacl::text
			FROM pg_catalog.pg_default_acl d ORDER BY 1`)
	}
	aclBefore := defaultACL()
	require.NotEmpty(t, aclBefore, "00002 revokes EXECUTE on the migrator's new functions from PUBLIC")

	// A clone does not inherit the template's database-level grants (CREATE DATABASE ... TEMPLATE
	// copies contents, not datacl), and Open's CREATE SCHEMA IF NOT EXISTS needs CREATE on the
	// database: apply bootstrap step 2, which is per database, to the clone as an installer would.
	step2, err := fs.ReadFile(bootstrap.Files, "002_database.sql")
	require.NoError(t, err)
	require.NoError(t, admin.PgConn().Exec(ctx, string(step2)).Close())

	m, err := migrate.Open(ctx, db.URL("jobq_migrator"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })

	var rolledBack []int64
	for {
		r, err := m.Down(ctx)
		if errors.Is(err, goose.ErrNoNextVersion) {
			break
		}
		require.NoError(t, err, "down after rolling back %v", rolledBack)
		rolledBack = append(rolledBack, r.Source.Version)
		require.LessOrEqual(t, len(rolledBack), 1000, "Down never reports the end")
	}
	vs := embeddedVersions(t)
	want := make([]int64, 0, len(vs))
	for i := len(vs) - 1; i >= 0; i-- {
		want = append(want, vs[i])
	}
	require.Equal(t, want, rolledBack, "every migration is rolled back, newest first")

	t.Run("NothingIsLeftBehind", func(t *testing.T) {
		require.Empty(t, dbtest.QueryStrings(t, admin, `
			SELECT 'relation ' || c.relname FROM pg_catalog.pg_class c
			WHERE c.relnamespace = 'jobq'::regnamespace AND c.relname NOT IN ('goose_db_version', 'goose_db_version_id_seq', 'goose_db_version_pkey')
			UNION ALL
			SELECT 'function ' || p.oid::regprocedure FROM pg_catalog.pg_proc p WHERE p.pronamespace = 'jobq'::regnamespace
			UNION ALL
			SELECT 'type ' || t.oid::regtype FROM pg_catalog.pg_type t
			WHERE t.typnamespace = 'jobq'::regnamespace AND t.typrelid = 0 AND t.typelem = 0`),
			"after the last Down the jobq schema holds only goose's version table")
		require.Empty(t, defaultACL(), "00002's Down restores the default privileges")
		_, err := migrate.CheckVersion(ctx, admin)
		require.ErrorIs(t, err, migrate.ErrSchemaBehind)
	})

	res, err := m.Up(ctx)
	require.NoError(t, err)
	require.Len(t, res, len(vs))

	dbtest.RequireSameSchema(t, before, dbtest.DumpSchema(t, db.URL("postgres")), "after down to 0 and up again")
	require.Equal(t, aclBefore, defaultACL())
	_, err = migrate.CheckVersion(ctx, admin)
	require.NoError(t, err)
}

func TestCheckVersion(t *testing.T) {
	t.Parallel()
	latest, err := migrate.LatestVersion()
	require.NoError(t, err)

	t.Run("CurrentSchemaPassesAsWorkerRuntime", func(t *testing.T) {
		t.Parallel()
		db := dbtest.New(t)
		runtime := dbtest.Connect(t, db.URL("worker_runtime"))
		applied, err := migrate.CheckVersion(testCtx(t), runtime)
		require.NoError(t, err)
		require.Equal(t, latest, applied)
	})

	t.Run("NewerCompatibleSchemaIsAccepted", func(t *testing.T) {
		t.Parallel()
		db := dbtest.New(t)
		_, err := dbtest.Connect(t, db.URL("postgres")).Exec(testCtx(t),
			"INSERT INTO jobq.goose_db_version (version_id, is_applied) VALUES (99999, true)")
		require.NoError(t, err)

		applied, err := migrate.CheckVersion(testCtx(t), dbtest.Connect(t, db.URL("worker_runtime")))
		require.NoError(t, err, "a newer schema without a breaking change keeps an older binary serving")
		require.Equal(t, int64(99999), applied)
	})

	t.Run("NewerSchemaWithABreakingChangeIsRefused", func(t *testing.T) {
		t.Parallel()
		db := dbtest.New(t)
		_, err := dbtest.Connect(t, db.URL("postgres")).Exec(testCtx(t), `
			INSERT INTO jobq.goose_db_version (version_id, is_applied) VALUES (99998, true), (99999, true);
			INSERT INTO jobq.breaking_changes (version, description) VALUES (99998, 'pgtap: claim_job returns a new row type')`)
		require.NoError(t, err)

		applied, err := migrate.CheckVersion(testCtx(t), dbtest.Connect(t, db.URL("worker_runtime")))
		require.ErrorIs(t, err, migrate.ErrSchemaTooNew)
		require.NotErrorIs(t, err, migrate.ErrSchemaBehind)
		require.ErrorContains(t, err, "breaking change 99998")
		require.Equal(t, int64(99999), applied)
	})

	t.Run("AFunctionFileNeverAppliedIsBehind", func(t *testing.T) {
		t.Parallel()
		db := dbtest.New(t)
		_, err := dbtest.Connect(t, db.URL("postgres")).Exec(testCtx(t), `DELETE FROM jobq.function_files WHERE name = '30_claim.sql'`)
		require.NoError(t, err)
		_, err = migrate.CheckVersion(testCtx(t), dbtest.Connect(t, db.URL("worker_runtime")))
		require.ErrorIs(t, err, migrate.ErrSchemaBehind)
		require.ErrorContains(t, err, "30_claim.sql")
	})

	t.Run("AFunctionFileOfOtherContentIsCompatible", func(t *testing.T) {
		t.Parallel()
		db := dbtest.New(t)
		_, err := dbtest.Connect(t, db.URL("postgres")).Exec(testCtx(t),
			`UPDATE jobq.function_files SET checksum = repeat('a', 64) WHERE name = '30_claim.sql'`)
		require.NoError(t, err)
		_, err = migrate.CheckVersion(testCtx(t), dbtest.Connect(t, db.URL("worker_runtime")))
		require.NoError(t, err, "a newer (or older) compatible function file keeps runners serving")
	})

	t.Run("ABreakingChangeTheBinaryKnowsIsAccepted", func(t *testing.T) {
		t.Parallel()
		db := dbtest.New(t)
		_, err := dbtest.Connect(t, db.URL("postgres")).Exec(testCtx(t),
			"INSERT INTO jobq.breaking_changes (version, description) VALUES ($1, 'pgtap: an old break')", latest)
		require.NoError(t, err)
		_, err = migrate.CheckVersion(testCtx(t), dbtest.Connect(t, db.URL("worker_runtime")))
		require.NoError(t, err)
	})

	t.Run("SchemaBehindIsRefused", func(t *testing.T) {
		t.Parallel()
		db := dbtest.New(t)
		tag, err := dbtest.Connect(t, db.URL("postgres")).Exec(testCtx(t),
			"DELETE FROM jobq.goose_db_version WHERE version_id = $1", latest)
		require.NoError(t, err)
		require.EqualValues(t, 1, tag.RowsAffected())

		vs := embeddedVersions(t)
		applied, err := migrate.CheckVersion(testCtx(t), dbtest.Connect(t, db.URL("worker_runtime")))
		require.ErrorIs(t, err, migrate.ErrSchemaBehind)
		require.NotErrorIs(t, err, migrate.ErrSchemaTooNew)
		require.Equal(t, vs[len(vs)-2], applied)
	})
}
