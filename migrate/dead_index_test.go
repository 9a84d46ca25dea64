package migrate_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/dbtest"
)

// 00034 gives job_history_dead_idx the queue and the store (INCLUDE), so the last day's dead jobs
// are counted from the index alone. On a big history a DBA builds the new index first with
// CREATE INDEX CONCURRENTLY under the name job_history_dead_covering_idx (docs/upgrading.md, "Changes
// that need care on a big table"); the migration then builds nothing: it drops the old index and
// gives the one built beforehand its name. Without it, the migration builds the index itself.
func TestDeadIndexMigrationTakesTheIndexBuiltBeforehand(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	db, m := openClone(t)
	admin := dbtest.Connect(t, db.URL("postgres"))

	// The dead index as it is: its columns, key and included, and its oid. After 00037 (history by
	// day) the index 00034 left is the one of the history kept before it, a partition of
	// jobq.job_history, when history had a row.
	const dead = `coalesce(to_regclass('jobq.job_history_before_00037_dead_idx'), 'jobq.job_history_dead_idx'::regclass)`
	deadIndex := func() (columns []string, oid int64) {
		t.Helper()
		columns = dbtest.QueryStrings(t, admin, `
			SELECT a.attname::text FROM pg_index i
			CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
			JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
			WHERE i.indexrelid = `+dead+` ORDER BY k.n`)
		require.NoError(t, admin.QueryRow(ctx, `SELECT `+dead+`::oid::bigint`).Scan(&oid))
		return columns, oid
	}
	covering := []string{"finished_at", "task", "queue", "store_id"}
	leftovers := func() []string {
		return dbtest.QueryStrings(t, admin, `SELECT indexrelid::regclass::text FROM pg_index WHERE indexrelid::regclass::text LIKE '%dead_covering%'`)
	}
	// down rolls back the migrations after 00034, then 00034 itself.
	down := func() {
		t.Helper()
		downThrough(t, ctx, m, 34, nil)
		cols, _ := deadIndex()
		require.Equal(t, []string{"finished_at", "task"}, cols, "00034's Down leaves the index of 00031")
	}

	cols, _ := deadIndex()
	require.Equal(t, covering, cols, "a new installation has the covering dead index")

	down()
	_, err := m.Up(ctx)
	require.NoError(t, err)
	cols, _ = deadIndex()
	require.Equal(t, covering, cols, "00034 builds the covering index itself when none was built before")
	require.Empty(t, leftovers())

	down()
	// A history row, so that 00037 keeps the history before it (and the index) as a partition.
	_, err = admin.Exec(ctx, `INSERT INTO jobq.job_history (id, task, queue, payload, priority, run_at, state, attempt,
	                              max_attempts, created_at, updated_at, finished_at)
	                          VALUES (1, 't', 'q', '{}', 0, now(), 'dead', 1, 1, now(), now(), now())`)
	require.NoError(t, err)
	_, err = admin.Exec(ctx, `CREATE INDEX CONCURRENTLY job_history_dead_covering_idx ON jobq.job_history (finished_at, task)
	                          INCLUDE (queue, store_id) WHERE state = 'dead'`)
	require.NoError(t, err)
	var built int64
	require.NoError(t, admin.QueryRow(ctx, `SELECT 'jobq.job_history_dead_covering_idx'::regclass::oid::bigint`).Scan(&built))
	_, err = m.Up(ctx)
	require.NoError(t, err)
	cols, oid := deadIndex()
	require.Equal(t, covering, cols)
	require.Equal(t, built, oid, "00034 took the index built beforehand (the same oid) rather than building one")
	require.Empty(t, leftovers(), "and no second copy is left")
}
