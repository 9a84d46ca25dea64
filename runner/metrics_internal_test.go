package runner

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
)

// The metrics, given only their sources, read the held and claimed-ahead counts, the queue lag
// and the wake-up slot's lag at scrape time, from a registry of their own.
func TestMetricsReadTheirSourcesAtScrapeTime(t *testing.T) {
	t.Parallel()
	b := setupUnit(t)
	waitNoSlots(t, b)
	ctx := context.Background()
	held, ahead := 3, 2
	m := newMetrics(metricsSource{held: func() int { return held }, ahead: func() int { return ahead }, lag: b.client,
		queues: []string{"lagging", "empty"}, db: b.pool, log: b.log})

	require.NoError(t, jobq.NewClient(b.admin).DefineTask(ctx, jobq.TaskDefinition{Name: "metrics-lag"}))
	_, err := b.client.Enqueue(ctx, "metrics-lag", nil, jobq.EnqueueOptions{Queue: "lagging"})
	require.NoError(t, err)
	time.Sleep(50 * time.Millisecond)

	v, ok := sample(t, m.reg, "jobq_leases_held")
	require.True(t, ok)
	require.Equal(t, 3.0, v)
	v, _ = sample(t, m.reg, "jobq_jobs_claimed_ahead")
	require.Equal(t, 2.0, v)
	held, ahead = 0, 1
	v, _ = sample(t, m.reg, "jobq_leases_held")
	require.Equal(t, 0.0, v, "read again at every scrape")
	v, _ = sample(t, m.reg, "jobq_jobs_claimed_ahead")
	require.Equal(t, 1.0, v)

	v, ok = sample(t, m.reg, "jobq_queue_lag_seconds", "queue", "lagging")
	require.True(t, ok)
	require.Greater(t, v, 0.0)
	v, ok = sample(t, m.reg, "jobq_queue_lag_seconds", "queue", "empty")
	require.True(t, ok)
	require.Zero(t, v)

	v, ok = sample(t, m.reg, "jobq_queue_jobs", "queue", "lagging", "state", "queued")
	require.True(t, ok)
	require.Equal(t, 1.0, v)
	for _, state := range []string{"retry_pending", "running", "scheduled", "blocked"} {
		v, ok = sample(t, m.reg, "jobq_queue_jobs", "queue", "lagging", "state", state)
		require.True(t, ok, state)
		require.Zero(t, v, state)
	}
	v, ok = sample(t, m.reg, "jobq_queue_jobs", "queue", "empty", "state", "queued")
	require.True(t, ok, "a served queue without jobs has its gauges at 0")
	require.Zero(t, v)
	v, ok = sample(t, m.reg, "jobq_queue_dead_last_hour", "queue", "lagging")
	require.True(t, ok)
	require.Zero(t, v)
	_, err = b.client.Enqueue(ctx, "metrics-lag", nil, jobq.EnqueueOptions{Queue: "lagging", RunAt: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	v, _ = sample(t, m.reg, "jobq_queue_jobs", "queue", "lagging", "state", "scheduled")
	require.Equal(t, 1.0, v, "read again at every scrape")
	// A job waiting for its parent (the due job enqueued first) is blocked: counted apart, neither
	// queued nor scheduled.
	parent, err := b.client.Enqueue(ctx, "metrics-lag", nil, jobq.EnqueueOptions{Queue: "other"})
	require.NoError(t, err)
	_, err = b.client.Enqueue(ctx, "metrics-lag", nil, jobq.EnqueueOptions{Queue: "lagging", DependsOn: []int64{parent}})
	require.NoError(t, err)
	for state, want := range map[string]float64{"blocked": 1, "queued": 1, "scheduled": 1} {
		v, ok = sample(t, m.reg, "jobq_queue_jobs", "queue", "lagging", "state", state)
		require.True(t, ok, state)
		require.Equal(t, want, v, state)
	}

	_, ok = sample(t, m.reg, "jobq_wakeup_slot_lag_bytes")
	require.False(t, ok, "absent without a slot")
	const slot = "jobq_unit_metrics_slot"
	b.exec(t, `SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, slot)
	t.Cleanup(func() { _, _ = b.admin.Exec(context.Background(), `SELECT pg_drop_replication_slot($1)`, slot) })
	name := slot
	m.walSlot.Store(&name)
	v, ok = sample(t, m.reg, "jobq_wakeup_slot_lag_bytes")
	require.True(t, ok, "present while the slot exists")
	require.GreaterOrEqual(t, v, 0.0)
	require.Empty(t, b.logs.lines("jobq_wakeup_slot_lag_bytes: reading the slot failed"))
}

// A registry per runner: two runners' metrics never share a counter.
func TestMetricsAreNotGlobal(t *testing.T) {
	t.Parallel()
	u := setupUnit(t)
	src := metricsSource{held: func() int { return 0 }, ahead: func() int { return 0 }, lag: u.client, db: u.pool, log: u.log}
	a, b := newMetrics(src), newMetrics(src)
	a.claimed.WithLabelValues("x").Inc()
	v, _ := sample(t, a.reg, "jobq_jobs_claimed_total", "task", "x")
	require.Equal(t, 1.0, v)
	_, ok := sample(t, b.reg, "jobq_jobs_claimed_total", "task", "x")
	require.False(t, ok)
}

// When the database refuses the queue lag and depth (here: more queues than jobq allows), the
// scrape leaves those metrics out, logs the error and still serves the others.
func TestMetricsKeepTheOthersWhenTheQueueDepthFails(t *testing.T) {
	t.Parallel()
	u := setupUnit(t)
	queues := make([]string, 1001)
	for i := range queues {
		queues[i] = fmt.Sprintf("q%d", i)
	}
	m := newMetrics(metricsSource{held: func() int { return 4 }, ahead: func() int { return 0 }, lag: u.client,
		queues: queues, db: u.pool, log: u.log})
	v, ok := sample(t, m.reg, "jobq_leases_held")
	require.True(t, ok)
	require.Equal(t, 4.0, v)
	_, ok = sample(t, m.reg, "jobq_queue_jobs", "queue", "q0", "state", "queued")
	require.False(t, ok)
	_, ok = sample(t, m.reg, "jobq_queue_dead_last_hour", "queue", "q0")
	require.False(t, ok)
	require.NotEmpty(t, u.logs.lines("jobq_queue_jobs: reading the queue depth failed"))
}
