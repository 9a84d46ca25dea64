package main

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/localpg"
)

// Issue 16, point 2: handlers that return while the database is down leave results to write;
// after a crash (pg_ctl stop -m immediate) lasting long enough for the writer's retries to back
// off, the first of them is written within a second of the database answering again, not after
// a back-off of several seconds. Own cluster: stopping the shared sandbox would break the others.
func TestWorkerWritesResultsWithinASecondOfTheDatabaseReturning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cluster, err := localpg.Start(ctx, localpg.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cluster.Remove() })
	require.NoError(t, prepareSandbox(ctx, cluster), "bootstrap and migrate the cluster")
	admin, err := pgxpool.New(ctx, cluster.URL("postgres", sandboxDB))
	require.NoError(t, err)
	t.Cleanup(admin.Close)
	c := jobq.NewClient(admin)

	const n = 4
	w := startWorker(t, nil, "--database-url", cluster.URL("worker_runtime", sandboxDB),
		"--concurrency", "4", "--lease", "60s", "--exec-command", "sleep 2")
	w.WaitStarted()
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = enqueue(t, c, "exec", map[string]int{"i": i}, jobq.EnqueueOptions{})
	}
	waitUntil(t, waitCeiling, "every job running", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.jobs WHERE state = 'running'`) == n
	})

	require.NoError(t, cluster.Crash(ctx))
	// The handlers return 2 s after they started; the outage lasts 10 s, long enough for the
	// writer's retry back-off to reach its longest wait.
	waitUntil(t, waitCeiling, "the worker fails to write the results", func() bool {
		return len(w.Lines("writing job results failed; retrying")) > 0
	})
	time.Sleep(8 * time.Second)
	require.NoError(t, cluster.Start(ctx))
	conn, err := pgx.Connect(ctx, cluster.URL("postgres", sandboxDB))
	require.NoError(t, err)
	defer conn.Close(ctx)
	var answering time.Time
	require.NoError(t, conn.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&answering))

	admin.Reset()
	waitUntil(t, waitCeiling, "every result written", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded' AND id = ANY($1)`, ids) == n
	})
	var first, last time.Time
	require.NoError(t, admin.QueryRow(ctx, `SELECT min(finished_at), max(finished_at) FROM jobq.job_history WHERE id = ANY($1)`,
		ids).Scan(&first, &last))
	t.Logf("database answering again at %s; first result written %s later, last %s later",
		answering.Format(time.RFC3339Nano), first.Sub(answering).Round(time.Millisecond), last.Sub(answering).Round(time.Millisecond))
	require.Less(t, first.Sub(answering), time.Second, "the first result is written within a second of the database answering")
	require.Equal(t, n, queryInt(t, admin, `SELECT count(*) FROM jobq.job_history WHERE id = ANY($1) AND attempt = 1`, ids),
		"each job ran once: its result was written, not rerun after its lease")
}
