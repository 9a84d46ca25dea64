package main

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
)

// Given the setting wakeup = wal and `jobq worker --wakeup wal` with its poll a minute away and
// the replication connection named by WAKEUP_DATABASE_URL (jobq_waker), when ping is enqueued,
// then the worker streams from a temporary slot as jobq_waker, picks the job up long before the
// poll, holds no LISTEN connection, and still exits 0 on SIGTERM.
func TestWorkerWakeupWAL(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	_, err := admin.Exec(context.Background(), `SELECT jobq.set_setting('wakeup', 'wal')`)
	require.NoError(t, err)
	// Registered before the worker starts, so it runs after the worker is stopped and before the
	// database is dropped: DROP DATABASE refuses a database an active slot uses, and a walsender
	// ends a moment after its connection closes.
	t.Cleanup(func() {
		waitUntil(t, waitCeiling, "the worker's slot dropped", func() bool {
			return queryInt(t, admin, `SELECT count(*) FROM pg_replication_slots WHERE database = current_database()`) == 0
		})
	})
	w := startWorker(t, []string{"WORKER_WAKEUP=wal", "WAKEUP_DATABASE_URL=" + db.URL("jobq_waker")},
		"--database-url", db.URL("worker_runtime"), "--no-leader", "--poll-interval", "1h")
	w.WaitStarted()
	// A new logical slot waits for the transactions running in the cluster, other tests' among them.
	waitUntil(t, 60*time.Second, "streaming from the slot", func() bool { return w.Metric("jobq_wakeup_wal_connected") == 1 })
	require.Equal(t, "wal", w.Lines("runner started")[0]["wakeup"])
	require.Equal(t, 1, queryInt(t, admin, `SELECT count(*) FROM pg_stat_replication WHERE usename = 'jobq_waker' AND application_name = 'jobq-waker'`),
		"the replication connection logs in as jobq_waker")
	require.Zero(t, w.Metric("jobq_listener_connected"), "no LISTEN connection in WAL mode")

	// The poll is an hour away: a pickup within waitCeiling is a wake-up's (a late claim of the
	// start or of the stream's first connect would be no poll either).
	id := enqueue(t, jobq.NewClient(admin), "ping", nil, jobq.EnqueueOptions{})
	enqueued := time.Now()
	waitUntil(t, waitCeiling, "ping succeeded", func() bool {
		state, _ := liveOrFinished(t, admin, id)
		return state == "succeeded"
	})
	t.Logf("ping succeeded %s after its enqueue: woken by the logical message, the poll is an hour away",
		time.Since(enqueued).Round(time.Millisecond))
	require.GreaterOrEqual(t, w.Metric("jobq_wakeup_messages_total"), 1.0)
	require.Zero(t, w.Metric("jobq_wakeup_fallback"))

	w.Signal(syscall.SIGTERM)
	require.Equal(t, 0, w.Wait(waitCeiling))
}
