package runner

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/engine"
)

// The worker heartbeat, given only the engine's two calls, the worker's description, a running
// count, fixed intervals, a settings sink, a status, the wake-up signal, a gauge and a logger,
// reports the running count, applies the settings, obeys drain, resume and detach (a detached
// worker never claims again), and registers again when its row is gone.
func TestWorkerHeartbeater(t *testing.T) {
	t.Parallel()
	b := setupUnit(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	info := engine.WorkerInfo{ID: "unit-worker", Node: "unit", PID: 1, Queues: []string{"default"}, Concurrency: 4, Version: "test"}
	_, err := b.client.RegisterWorker(ctx, info)
	require.NoError(t, err)

	var running atomic.Int32
	running.Store(3)
	var mu sync.Mutex
	var applied []engine.Settings
	status := &workerStatus{state: engine.WorkerActive}
	wake := newWakeSignal(nil)
	gauge := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "state"}, []string{"state"})
	w := &workerHeartbeater{engine: b.client, info: func() engine.WorkerInfo { return info },
		running: func() int { return int(running.Load()) },
		tune:    fixedTuning{tunables{workerHeartbeat: 20 * time.Millisecond}},
		apply: func(s engine.Settings) {
			mu.Lock()
			applied = append(applied, s)
			mu.Unlock()
		},
		status: status, wake: wake, gauge: gauge, log: b.log}
	done := make(chan struct{})
	go func() { defer close(done); w.run(ctx) }()
	defer func() { cancel(); <-done }()

	count := func(sql string, args ...any) int {
		var n int
		require.NoError(t, b.admin.QueryRow(context.Background(), sql, args...).Scan(&n))
		return n
	}
	// The heartbeat commits the count before the runner applies the answer's settings: wait for
	// both. The mutex is never held across a require, which would leave the heartbeater blocked.
	firstApplied := func() (engine.Settings, bool) {
		mu.Lock()
		defer mu.Unlock()
		if len(applied) == 0 {
			return engine.Settings{}, false
		}
		return applied[0], true
	}
	eventually(t, waitCeiling, "the running count reported and the settings applied", func() bool {
		_, ok := firstApplied()
		return ok && count(`SELECT running FROM jobq.workers WHERE id = $1`, info.ID) == 3
	})
	first, _ := firstApplied()
	_, ok := first.Interval("default_lease")
	require.True(t, ok, "the engine's settings are applied")

	b.exec(t, `SELECT jobq.drain_worker($1)`, info.ID)
	eventually(t, waitCeiling, "draining obeyed", func() bool { return !status.mayClaim() })
	require.True(t, woken(wake, waitCeiling))
	require.Equal(t, 1.0, value(t, gauge.WithLabelValues("draining")))
	require.Equal(t, 0.0, value(t, gauge.WithLabelValues("active")))
	require.NotEmpty(t, b.logs.lines("worker draining: claiming stopped; held jobs finish"))

	b.exec(t, `SELECT jobq.resume_worker($1)`, info.ID)
	eventually(t, waitCeiling, "active again", status.mayClaim)

	// The row pruned: the next heartbeat registers again.
	b.exec(t, `DELETE FROM jobq.workers WHERE id = $1`, info.ID)
	eventually(t, waitCeiling, "registered again", func() bool {
		return count(`SELECT count(*) FROM jobq.workers WHERE id = $1 AND state = 'active'`, info.ID) == 1
	})
	require.NotEmpty(t, b.logs.lines("worker not registered; registering again"))

	b.exec(t, `SELECT jobq.detach_worker($1)`, info.ID)
	eventually(t, waitCeiling, "detached", func() bool { return value(t, gauge.WithLabelValues("detached")) == 1 })
	require.False(t, status.mayClaim())
	b.exec(t, `SELECT jobq.resume_worker($1)`, info.ID)
	eventually(t, waitCeiling, "the resume seen", func() bool {
		return len(b.logs.lines("worker resumed after it was detached: it claims no more jobs under this id; it rejoins under a new one once its jobs are done")) > 0
	})
	require.False(t, status.mayClaim(), "a detached worker claims no more")
}
