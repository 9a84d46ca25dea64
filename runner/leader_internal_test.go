package runner

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The leader, given only the engine's calls, a holder reader, a worker id, fixed intervals, the
// wake-up signal, its metrics and a logger, takes the free leadership, maintains every
// maintain_interval, wakes the claim loop when a sweep rescues jobs, and stands down at once
// when a maintain is fenced because another worker took the leadership.
func TestLeader(t *testing.T) {
	t.Parallel()
	b := setupUnit(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := newMetrics(metricsSource{held: func() int { return 0 }, ahead: func() int { return 0 }, lag: b.client,
		db: b.pool, log: b.log}).leadership()
	wake := newWakeSignal([]string{"default"})
	tune := fixedTuning{tunables{leaderTTL: 30 * time.Second, maintainInterval: 50 * time.Millisecond}}
	l := newLeader(b.client, b.pool, func() string { return "unit-leader" }, tune, wake, m, b.log)
	done := make(chan struct{})
	go func() { defer close(done); l.run(ctx) }()

	eventually(t, waitCeiling, "leading", func() bool { return value(t, m.leader) == 1 })
	var holder string
	var epoch int64
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT holder, epoch FROM jobq.leader`).Scan(&holder, &epoch))
	require.Equal(t, "unit-leader", holder)
	require.Equal(t, float64(epoch), value(t, m.epoch))
	eventually(t, waitCeiling, "maintaining", func() bool { return value(t, m.maintainRuns.WithLabelValues("ok")) >= 2 })

	// A job whose lease expired is rescued by the next maintain, which wakes the claim loop.
	jobs := b.claimJobs(t, "ghost-worker", "leader-rescue", 1)
	for woken(wake, 0) {
	}
	b.exec(t, `UPDATE jobq.jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, jobs[0].ID)
	require.True(t, woken(wake, waitCeiling), "a rescue wakes the claim loop")
	require.GreaterOrEqual(t, value(t, m.rescued), 1.0)
	require.NotEqual(t, "running", b.state(t, jobs[0].ID))

	// Another worker takes the leadership with a new epoch: the next maintain is fenced.
	b.exec(t, `UPDATE jobq.leader SET holder = 'usurper', epoch = epoch + 1, lease_expires_at = now() + interval '1 hour'`)
	eventually(t, waitCeiling, "standing down", func() bool { return value(t, m.leader) == 0 })
	require.GreaterOrEqual(t, value(t, m.maintainRuns.WithLabelValues("fenced")), 1.0)
	// The loop counts the fenced run before it logs it: wait for the line, not for the counter.
	const fencedLine = "maintain fenced: this worker no longer leads with its epoch; standing down at once"
	eventually(t, waitCeiling, "the fenced maintain's log line", func() bool { return len(b.logs.lines(fencedLine)) > 0 })
	fenced := b.logs.lines(fencedLine)
	require.Len(t, fenced, 1)
	require.Equal(t, "usurper", fenced[0]["holder"])
	runs := value(t, m.maintainRuns.WithLabelValues("ok"))
	time.Sleep(200 * time.Millisecond)
	require.Equal(t, runs, value(t, m.maintainRuns.WithLabelValues("ok")), "a fenced leader maintains no more")

	cancel()
	<-done
}
