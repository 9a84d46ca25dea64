package salon_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/examples/salon"
	"github.com/jobqdev/jobq/internal/proctest"
)

// The non-functional limits of seed 000 §8, measured on the salon worker binary and printed
// (go test -v): pickup within 5 s, /readyz 200 within 10 s of start, graceful shutdown within
// 30 s, and the fan-out of 100 stores enqueued within 1 minute. The limits are the seed's
// acceptance criteria, a thousand times the figures measured here; they are not benchmarks (see
// make bench for those).
func TestNonFunctionalLimitsOfSeed000(t *testing.T) {
	t.Parallel()
	d := newSalonDB(t)
	d.stores(t, 100)
	ctx := context.Background()

	w := proctest.StartServing(t, salonBinary(t), []string{"WORKER_DATABASE_URL=" + d.URL("worker_runtime")}, "worker", "--no-leader")
	proctest.WaitUntil(t, time.Minute, "/readyz 200", func() bool { code, _ := w.Get("/readyz"); return code == 200 })
	ready := time.Since(w.Started)
	t.Logf("ready: /readyz 200 %s after the process started (limit 10 s)", ready.Round(time.Millisecond))
	require.Less(t, ready, 10*time.Second)

	// Pickup of an idle worker: twenty pings, one at a time; run_at → claimed_at, database clock.
	var ids []int64
	for range 20 {
		id, err := salon.PingTask.Enqueue(ctx, d.admin, salon.Ping{}, nil)
		require.NoError(t, err)
		ids = append(ids, id)
		proctest.WaitUntil(t, time.Minute, "ping done", func() bool {
			return d.count(t, `SELECT count(*) FROM jobq.job_history WHERE id = $1`, id) == 1
		})
	}
	var p50, maxPickup float64
	require.NoError(t, d.admin.QueryRow(ctx, `
		SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM claimed_at - run_at)), max(extract(epoch FROM claimed_at - run_at))
		FROM jobq.job_history WHERE id = ANY($1)`, ids).Scan(&p50, &maxPickup))
	t.Logf("pickup: p50 %.2f ms, max %.2f ms over 20 single jobs on an idle worker (limit 5 s)", p50*1000, maxPickup*1000)
	require.Less(t, maxPickup, 5.0)

	// Fan-out of 100 stores: the scheduler's claim → its last store job enqueued.
	id, err := salon.ExpireTentativeReservationsTask.Enqueue(ctx, d.admin, salon.ExpireTentativeReservations{Reason: "cron"}, nil)
	require.NoError(t, err)
	d.waitFinished(t, time.Minute, "expire-tentative-reservations", "expire-tentative-for-store")
	var fanOut, all float64
	require.NoError(t, d.admin.QueryRow(ctx, `
		SELECT extract(epoch FROM max(c.created_at) - s.claimed_at), extract(epoch FROM max(c.finished_at) - s.claimed_at)
		FROM jobq.job_history s, jobq.job_history c
		WHERE s.id = $1 AND c.task = 'expire-tentative-for-store' GROUP BY s.claimed_at`, id).Scan(&fanOut, &all))
	require.Equal(t, 100, d.count(t, `SELECT count(*) FROM jobq.job_history WHERE task = 'expire-tentative-for-store' AND state = 'succeeded'`))
	t.Logf("fan-out: 100 store jobs enqueued %.1f ms after the scheduler's claim, all done after %.1f ms (limit 1 min)", fanOut*1000, all*1000)
	require.Less(t, fanOut, 60.0)

	// Graceful shutdown with work in flight: 500 pings, then SIGTERM.
	specs := make([]jobq.JobSpec, 500)
	for i := range specs {
		specs[i] = salon.PingTask.Spec(salon.Ping{}, nil)
	}
	_, err = jobq.NewClient(d.admin).EnqueueMany(ctx, specs)
	require.NoError(t, err)
	proctest.WaitUntil(t, time.Minute, "pings running", func() bool {
		return d.count(t, `SELECT count(*) FROM jobq.job_history WHERE task = 'ping'`) > 20
	})
	stop := time.Now()
	w.Signal(syscall.SIGTERM)
	require.Equal(t, 0, w.Wait(30*time.Second), "a clean exit")
	shutdown := time.Since(stop)
	t.Logf("shutdown: SIGTERM → exit in %s with jobs in flight (limit 30 s)", shutdown.Round(time.Millisecond))
	require.Zero(t, d.count(t, `SELECT count(*) FROM jobq.jobs WHERE state = 'running'`), "no job left marked running")
}
