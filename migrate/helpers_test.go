package migrate_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/localpg"
	"github.com/jobqdev/jobq/migrate"
)

// testCtx is the context of one test: cancelled when the test ends or after a generous bound.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// bootstrapDatabase creates an empty database on c and applies bootstrap to it as postgres.
func bootstrapDatabase(t *testing.T, c *localpg.Cluster, name string) {
	t.Helper()
	dbtest.CreateDatabase(t, c, name)
	conn := dbtest.Connect(t, c.URL("postgres", name))
	require.NoError(t, migrate.Bootstrap(testCtx(t), conn, migrate.BootstrapOptions{}))
	require.NoError(t, conn.Close(context.Background()))
}

// downThrough rolls back migration by migration, newest first, until migration version itself is
// rolled back; after each step before it, between (if not nil) checks the state left. It fails
// when a step rolls back an older migration than version.
func downThrough(t *testing.T, ctx context.Context, m *migrate.Migrator, version int64, between func()) {
	t.Helper()
	for {
		r, err := m.Down(ctx)
		require.NoError(t, err)
		require.GreaterOrEqual(t, r.Source.Version, version, "migration %d is rolled back before any older one", version)
		if r.Source.Version == version {
			return
		}
		if between != nil {
			between()
		}
	}
}

// snapshotPath is the committed schema snapshot that TestSchemaSnapshot keeps in step.
const snapshotPath = "testdata/schema.snapshot.sql"
