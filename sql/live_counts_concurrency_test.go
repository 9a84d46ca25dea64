package sql_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/testbundle"
)

// The live counts jobq.maintain keeps for jobq.stats (above the setting stats_cached_above) are
// counted by one maintain at a time: a maintain that finds another count under way skips its own
// and goes on with the rest of its work instead of waiting, and maintains racing each other never
// fail and leave counts that add up to the live jobs.
func TestLiveCountsAreTakenByOneMaintainAtATimeWithoutWaiting(t *testing.T) {
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: 24})
	ctx := b.Ctx
	_, err := b.Admin.Exec(ctx, `UPDATE jobq.settings SET value = '1' WHERE name = 'stats_cached_above'`)
	require.NoError(t, err)
	_, err = b.Admin.Exec(ctx, `SELECT jobq.define_task('count-me'); SELECT jobq.enqueue_many(
		(SELECT jsonb_agg(jsonb_build_object('task', 'count-me', 'queue', 'q' || (g % 3))) FROM generate_series(1, 300) g))`)
	require.NoError(t, err)

	// A count under way: its transaction holds the row of jobq.live_counts_taken.
	held, err := b.Admin.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = held.Rollback(context.WithoutCancel(ctx)) }()
	var counted bool
	require.NoError(t, held.QueryRow(ctx, `SELECT jobq._count_live_jobs(now())`).Scan(&counted))
	require.True(t, counted, "the first count is due")

	// The runner's leader (worker_runtime) calls maintain meanwhile: it returns at once, without
	// counting, well inside a statement timeout that a wait for the held row would reach.
	wc := conns(t, b.WorkerPool, 1)[0]
	_, err = wc.Exec(ctx, `SET statement_timeout = '5s'`)
	require.NoError(t, err)
	began := time.Now()
	_, err = wc.Exec(ctx, `SELECT jobq.maintain()`)
	require.NoError(t, err, "a maintain beside a count under way")
	require.Less(t, time.Since(began), 5*time.Second)
	var before string
	require.NoError(t, b.Admin.QueryRow(ctx, `SELECT counted_at::text FROM jobq.live_counts_taken`).Scan(&before))
	require.Equal(t, "-infinity", before, "the maintain beside the count under way counted nothing")
	require.NoError(t, held.Rollback(ctx))

	// 20 maintains at once, each with a count due: none fails, and the count left is whole.
	_, err = b.Admin.Exec(ctx, `UPDATE jobq.live_counts_taken SET counted_at = '-infinity'`)
	require.NoError(t, err)
	cs := conns(t, b.WorkerPool, 20)
	errs := together(len(cs), func(i int) error {
		_, err := cs[i].Exec(ctx, `SELECT jobq.maintain()`)
		return err
	})
	requireNoErrors(t, errs, "maintains racing")
	var kept, live, total int64
	require.NoError(t, b.Admin.QueryRow(ctx, `SELECT (SELECT sum(n) FROM jobq.live_counts), (SELECT count(*) FROM jobq.jobs),
		(SELECT total FROM jobq.live_counts_taken)`).Scan(&kept, &live, &total))
	require.Equal(t, int64(300), live)
	require.Equal(t, live, kept, "the kept groups add up to the live jobs")
	require.Equal(t, live, total, "and so does the recorded total")
	var queued int64
	require.NoError(t, b.Admin.QueryRow(ctx, `SELECT sum(queued) FROM jobq.stats()`).Scan(&queued))
	require.Equal(t, int64(300), queued, "stats reads them")
}
