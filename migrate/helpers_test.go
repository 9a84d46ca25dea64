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

// snapshotPath is the committed schema snapshot that TestSchemaSnapshot keeps in step.
const snapshotPath = "testdata/schema.snapshot.sql"
