package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/localpg"
)

// GWT-3: with the database stopped the worker stays alive (/healthz 200) but not ready (/readyz
// 503); when the database is back it recovers without a restart and loses no job. It runs on a
// cluster of its own, since stopping the shared sandbox would break every other test.
func TestWorkerSurvivesDatabaseRestart(t *testing.T) {
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

	runs := filepath.Join(t.TempDir(), "runs")
	w := startWorker(t, []string{"RUNS=" + runs}, "--database-url", cluster.URL("worker_runtime", sandboxDB),
		"--concurrency", "4", "--exec-command", `sleep 1; echo "$JOBQ_JOB_ID" >> "$RUNS"`)
	waitUntil(t, waitCeiling, "/readyz 200", func() bool { code, _ := w.Get("/readyz"); return code == 200 })

	var ids []int64
	for i := range 8 {
		ids = append(ids, enqueue(t, c, "exec", map[string]int{"i": i}, jobq.EnqueueOptions{}))
	}
	waitUntil(t, waitCeiling, "jobs running", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.jobs WHERE state = 'running'`) > 0
	})

	require.NoError(t, cluster.Stop(ctx))
	var body string
	waitUntil(t, waitCeiling, "/readyz 503", func() bool {
		var code int
		code, body = w.Get("/readyz")
		return code == 503
	})
	require.Contains(t, body, "WORKER.NOT_READY")
	code, _ := w.Get("/healthz")
	require.Equal(t, 200, code, "alive without the database")
	waitUntil(t, waitCeiling, "the worker noticed the outage", func() bool {
		return len(w.Lines("claim failed")) > 0
	})

	require.NoError(t, cluster.Start(ctx))
	// The test's own pool still holds connections the restart killed; the worker's recovery is
	// what is under test, so the test simply starts its pool afresh.
	admin.Reset()
	waitUntil(t, waitCeiling, "/readyz 200 again", func() bool { code, _ := w.Get("/readyz"); return code == 200 })
	for i := range 4 {
		ids = append(ids, enqueue(t, c, "exec", map[string]int{"after": i}, jobq.EnqueueOptions{}))
	}
	waitUntil(t, waitCeiling, "every job succeeded", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded' AND id = ANY($1)`, ids) == len(ids)
	})
	select {
	case <-w.Done:
		t.Fatal("the worker exited; it should have recovered in place")
	default:
	}
	require.GreaterOrEqual(t, len(w.Lines("listening")), 2, "the listener reconnected")

	body2, err := os.ReadFile(runs)
	require.NoError(t, err)
	seen := map[string]int{}
	for _, id := range strings.Fields(string(body2)) {
		seen[id]++
	}
	for _, id := range ids {
		require.GreaterOrEqual(t, seen[strconv.FormatInt(id, 10)], 1, "job %d ran", id)
	}
	t.Logf("%d jobs, %d runs across the outage", len(ids), len(strings.Fields(string(body2))))
}
