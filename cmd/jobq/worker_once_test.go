package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/proctest"
)

// jobq worker --once (seed 001, cron-driven deployments): it drains what is due, waits for the
// handlers it started, and exits 0; on an empty queue it exits at once. Jobs due later stay
// queued. Configured through JOBQ_WORKER_* variables, which win over the WORKER_* ones.
func TestWorkerOnceDrainsWhatIsDueAndExits(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	env := []string{
		"JOBQ_WORKER_DATABASE_URL=" + db.URL("worker_runtime"),
		"WORKER_DATABASE_URL=postgres://nobody@127.0.0.1:1/none", // loses to JOBQ_WORKER_DATABASE_URL
		"JOBQ_WORKER_CONCURRENCY=4",
		"JOBQ_WORKER_EXEC_COMMAND=sleep 0.1",
	}
	once := func() (int, *proctest.Proc) {
		w := proctest.Start(t, jobqBinary(t), env, "worker", "--once", "--health-addr", "")
		return w.Wait(waitCeiling), w
	}

	// Idle: nothing is due, so it starts (declaring its tasks) and exits.
	start := time.Now()
	code, w := once()
	require.Equal(t, 0, code, "stderr: %s", w.Stderr.String())
	t.Logf("an idle --once worker exited %s after its start", time.Since(start).Round(time.Millisecond)) // Wait bounds it
	require.Len(t, w.Lines("queues drained: stopping (once)"), 1)
	require.Len(t, w.Lines("runner stopped"), 1)

	client := jobq.NewClient(admin)
	var ids []int64
	for i := range 20 {
		ids = append(ids, enqueue(t, client, "exec", map[string]int{"n": i}, jobq.EnqueueOptions{}))
	}
	later := enqueue(t, client, "ping", nil, jobq.EnqueueOptions{RunAt: time.Now().Add(time.Hour)})

	code, w = once()
	require.Equal(t, 0, code, "stderr: %s", w.Stderr.String())
	for _, id := range ids {
		state, attempt := liveOrFinished(t, admin, id)
		require.Equal(t, "succeeded", state, "job %d", id)
		require.Equal(t, 1, attempt, "job %d ran once", id)
	}
	state, _ := liveOrFinished(t, admin, later)
	require.Equal(t, "queued", state, "a job due later waits for the next run")
	require.Zero(t, queryInt(t, admin, `SELECT count(*) FROM jobq.workers WHERE state = 'active'`), "the worker deregistered")
}
