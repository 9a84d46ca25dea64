package migrate_test

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/bootstrap"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/migrate"
)

// The rolling upgrade to the doorbell (00013): runners of the release before never hold a
// doorbell, so an enqueue that NOTIFYs only for waiting runners would never wake them. The
// migration installs the setting doorbell true when no runner is live (a new installation, or one
// upgraded with its runners stopped) and false when one is: at that moment every live runner is
// of the release before, since a runner of this release waits for the migrated schema. A worker
// that stopped, or whose heartbeat is older than worker_timeout, does not count.
func TestDoorbellMigrationKeepsNotifyingWhileRunnersOfTheReleaseBeforeAreLive(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	db := dbtest.New(t)
	admin := dbtest.Connect(t, db.URL("postgres"))
	step2, err := fs.ReadFile(bootstrap.Files, "002_database.sql")
	require.NoError(t, err)
	require.NoError(t, admin.PgConn().Exec(ctx, string(step2)).Close())
	m, err := migrate.Open(ctx, db.URL("jobq_migrator"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })

	doorbell := func() []string {
		return dbtest.QueryStrings(t, admin, `SELECT kind || ' ' || value FROM jobq.settings WHERE name = 'doorbell'`)
	}
	require.Equal(t, []string{"boolean true"}, doorbell(), "a new installation rings only waiting runners")

	// upgrade rolls 00013 back (and the migrations after it), leaves the workers given, and
	// applies them again.
	upgrade := func(workers string) []string {
		t.Helper()
		downThrough(t, ctx, m, 13, func() {
			require.NotEmpty(t, doorbell(), "the setting stays until 00013 is rolled back")
		})
		require.Empty(t, doorbell(), "00013's Down removes the setting")
		_, err = admin.Exec(ctx, `DELETE FROM jobq.workers`)
		require.NoError(t, err)
		if workers != "" {
			_, err = admin.Exec(ctx, `INSERT INTO jobq.workers (id, node, queues, concurrency, version, state, heartbeat_at) VALUES `+workers)
			require.NoError(t, err)
		}
		_, err = m.Up(ctx)
		require.NoError(t, err)
		return doorbell()
	}
	require.Equal(t, []string{"boolean false"},
		upgrade(`('old-1', 'n', '{default}', 10, 'v0.9', 'active', now()), ('old-2', 'n', '{default}', 10, 'v0.9', 'draining', now())`),
		"live runners of the release before: every due enqueue keeps notifying")
	require.Equal(t, []string{"boolean true"},
		upgrade(`('old-1', 'n', '{default}', 10, 'v0.9', 'stopped', now()), ('old-2', 'n', '{default}', 10, 'v0.9', 'active', now() - interval '1 hour')`),
		"only stopped runners and one silent for longer than worker_timeout: the doorbell")
	require.Equal(t, []string{"boolean true"}, upgrade(""), "no runner at all: the doorbell")
}
