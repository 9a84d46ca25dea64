package main

import (
	"context"
	"encoding/json"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/proctest"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
)

// GWT-10: the final failure of a job sends exactly one Sentry event, with task name, storeId,
// attempt and error; a failure that will be retried sends none.
func TestWorkerSentryOneEventPerDeadJob(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	sentry := proctest.NewSentry(t)
	dsn := sentry.DSN()
	w := startWorker(t, []string{"SENTRY_DSN=" + dsn}, "--database-url", db.URL("worker_runtime"),
		"--exec-command", `echo "card declined for $JOBQ_JOB_ID" >&2; exit 1`)

	w.WaitStarted()

	c := jobq.NewClient(admin)
	store := "0b7d1e6e-2f0a-4a5e-8d0c-3c1f4a9b6e21"
	diesSecond := enqueue(t, c, "exec", nil, jobq.EnqueueOptions{MaxAttempts: 2, BackoffBase: 100 * time.Millisecond})
	retries := enqueue(t, c, "exec", nil, jobq.EnqueueOptions{MaxAttempts: 5, BackoffBase: time.Hour})
	// The worker declared exec as a system task. For a dead job of a store, the test declares
	// exec store-scoped from SQL (the declaration holds until a worker starts again); the worker
	// runs exec jobs whatever their scope.
	require.NoError(t, c.DefineTask(context.Background(), jobq.TaskDefinition{Name: "exec", Scope: jobq.ScopeStore}))
	diesAtOnce := enqueue(t, c, "exec", nil, jobq.EnqueueOptions{MaxAttempts: 1, StoreID: store})
	waitUntil(t, waitCeiling, "two dead jobs and one retry", func() bool {
		s1, _ := liveOrFinished(t, admin, diesAtOnce)
		s2, _ := liveOrFinished(t, admin, diesSecond)
		s3, _ := liveOrFinished(t, admin, retries)
		return s1 == "dead" && s2 == "dead" && s3 == "retry_pending"
	})
	w.Signal(syscall.SIGTERM) // the worker flushes Sentry before it exits
	require.Equal(t, 0, w.Wait(waitCeiling))

	byJob := map[string][]map[string]any{}
	for _, ev := range sentry.Received() {
		tags, _ := ev["tags"].(map[string]any)
		id, _ := tags["jobId"].(string)
		byJob[id] = append(byJob[id], ev)
	}
	require.Len(t, byJob, 2, "events for the two dead jobs only: %v", byJob)
	key := func(id int64) string { return strconv.FormatInt(id, 10) }
	require.Len(t, byJob[key(diesAtOnce)], 1, "exactly one event for a job that dies")
	require.Len(t, byJob[key(diesSecond)], 1, "one event for its final failure, none for its retry")
	require.Empty(t, byJob[key(retries)], "no event for a retry")

	ev := byJob[key(diesAtOnce)][0]
	tags := ev["tags"].(map[string]any)
	require.Equal(t, "exec", tags["taskName"])
	require.Equal(t, store, tags["storeId"])
	require.Equal(t, "1", tags["attempt"])
	require.Equal(t, "2", byJob[key(diesSecond)][0]["tags"].(map[string]any)["attempt"])
	evJSON, _ := json.Marshal(ev)
	require.Contains(t, string(evJSON), "card declined for "+key(diesAtOnce), "the error is in the event")
}
