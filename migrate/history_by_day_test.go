package migrate_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/dbtest"
)

// 00037 partitions jobq.job_history by day. The history kept before it stays, as the partition
// jobq.job_history_before_00037 (from MINVALUE to the migration's time), readable through
// jobq.job_history, out of reach of every role but the owner when named directly, pruned row by
// row past retention, and dropped whole once its end is past retention; jobs finished after the
// migration go to the day partitions. 00037's Down puts every row back into one table.
func TestHistoryByDayMigrationKeepsTheHistoryBeforeIt(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	db, m := openClone(t)
	admin := dbtest.Connect(t, db.URL("postgres"))

	downThrough(t, ctx, m, 37, nil)
	var kind string
	require.NoError(t, admin.QueryRow(ctx, `SELECT relkind::text FROM pg_class WHERE oid = 'jobq.job_history'::regclass`).Scan(&kind))
	require.Equal(t, "r", kind, "00037's Down leaves history one plain table")

	// History as 00036 kept it: one row past retention (30 days old), two recent (one dead).
	_, err := admin.Exec(ctx, `
		INSERT INTO jobq.job_history (id, task, queue, payload, priority, run_at, state, attempt, max_attempts,
		                              created_at, updated_at, finished_at)
		SELECT v.id, 't', 'q', '{}', 0, now() - v.age, v.state, 1, 3, now() - v.age, now() - v.age, now() - v.age
		FROM (VALUES (900001, interval '30 days', 'succeeded'), (900002, interval '1 hour', 'succeeded'),
		             (900003, interval '2 hours', 'dead')) AS v(id, age, state)`)
	require.NoError(t, err)

	_, err = m.Up(ctx)
	require.NoError(t, err)

	where := dbtest.QueryStrings(t, admin, `SELECT h.id || ' ' || h.tableoid::regclass::text FROM jobq.job_history h ORDER BY h.id`)
	require.Equal(t, []string{
		"900001 jobq.job_history_before_00037", "900002 jobq.job_history_before_00037", "900003 jobq.job_history_before_00037",
	}, where, "the history kept before 00037 is read through jobq.job_history, from its own partition")

	var lowerIsMin, upperPastRows bool
	require.NoError(t, admin.QueryRow(ctx, `
		SELECT p.lower = '-infinity', p.upper > (SELECT max(finished_at) FROM jobq.job_history_before_00037)
		FROM jobq._history_partitions() p WHERE p.name = 'job_history_before_00037'`).Scan(&lowerIsMin, &upperPastRows))
	require.True(t, lowerIsMin && upperPastRows, "it spans everything before the migration")

	granted := dbtest.QueryStrings(t, admin, `
		SELECT r.role FROM unnest(jobq._runtime_roles()) AS r(role)
		WHERE r.role <> 'jobq_migrator'
		  AND has_table_privilege(r.role, 'jobq.job_history_before_00037', 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE')`)
	require.Empty(t, granted, "no runtime role but the owner reaches it by name")
	grantedParent := dbtest.QueryStrings(t, admin, `
		SELECT r.role FROM unnest(ARRAY['jobq_app', 'jobq_operator', 'jobq_viewer', 'jobq_app_gate']) AS r(role)
		WHERE has_table_privilege(r.role, 'jobq.job_history', 'SELECT')`)
	require.ElementsMatch(t, []string{"jobq_app", "jobq_operator", "jobq_viewer", "jobq_app_gate"}, grantedParent,
		"the grants it had are jobq.job_history's now")

	// A job finished after the migration goes to today's partition.
	_, err = admin.Exec(ctx, `INSERT INTO jobq.tasks (name) VALUES ('t') ON CONFLICT DO NOTHING`)
	require.NoError(t, err)
	var finishedIn string
	_, err = admin.Exec(ctx, `SELECT jobq.enqueue('t', queue => 'q2')`)
	require.NoError(t, err)
	_, err = admin.Exec(ctx, `SELECT * FROM jobq.claim_job('w', ARRAY['q2'], 1)`)
	require.NoError(t, err)
	_, err = admin.Exec(ctx, `SELECT * FROM jobq.complete_jobs(
		ARRAY(SELECT id FROM jobq.jobs WHERE queue = 'q2'), ARRAY(SELECT lease_token FROM jobq.jobs WHERE queue = 'q2'))`)
	require.NoError(t, err)
	require.NoError(t, admin.QueryRow(ctx, `SELECT h.tableoid::regclass::text FROM jobq.job_history h WHERE h.queue = 'q2'`).Scan(&finishedIn))
	require.Regexp(t, `^jobq\.job_history_p[0-9]{8}$`, finishedIn, "a job finished after the migration is in its day's partition")

	// Retention: the old row past it is deleted row by row; the partition stays while it has rows
	// within retention.
	var pruned, dropped int
	require.NoError(t, admin.QueryRow(ctx, `SELECT (m->>'history_pruned')::int, (m->>'history_days_dropped')::int FROM jobq.maintain() m`).
		Scan(&pruned, &dropped))
	require.Equal(t, []int{1, 0}, []int{pruned, dropped}, "maintain deletes the old history's one row past retention, drops nothing")
	require.Equal(t, []string{"900002", "900003"},
		dbtest.QueryStrings(t, admin, `SELECT id::text FROM jobq.job_history_before_00037 ORDER BY id`))

	// Once its end is past the cut-off, it goes whole (with the days before the cut-off).
	require.NoError(t, admin.QueryRow(ctx, `SELECT days_dropped FROM jobq._prune_history(
		(SELECT upper FROM jobq._history_partitions() WHERE name = 'job_history_before_00037'), 10000)`).Scan(&dropped))
	require.Equal(t, 1, dropped, "the old history is dropped once its end is at the cut-off")
	var gone bool
	require.NoError(t, admin.QueryRow(ctx, `SELECT to_regclass('jobq.job_history_before_00037') IS NULL`).Scan(&gone))
	require.True(t, gone)

	// Down and up again with rows in the day partitions: every row comes back into one table and
	// out again.
	before := dbtest.QueryStrings(t, admin, `SELECT id::text || ' ' || state FROM jobq.job_history ORDER BY id`)
	require.NotEmpty(t, before)
	downThrough(t, ctx, m, 37, nil)
	require.Equal(t, before, dbtest.QueryStrings(t, admin, `SELECT id::text || ' ' || state FROM jobq.job_history ORDER BY id`),
		"00037's Down keeps every row")
	_, err = m.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, before, dbtest.QueryStrings(t, admin, `SELECT id::text || ' ' || state FROM jobq.job_history ORDER BY id`),
		"and Up again too")
}
