package runner

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/engine"
)

// The sweeper, given only jobq.rescue_expired, fixed intervals, whether its runner leads, the
// wake-up signal, a hook, a counter and a logger, rescues an expired lease within a
// maintain_interval while its runner does not lead (logging the job, counting it and waking the
// claim loop), and does not call the engine at all while its runner leads.
func TestSweeper(t *testing.T) {
	t.Parallel()
	b := setupUnit(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var leading, answered atomic.Bool
	counter := prometheus.NewCounter(prometheus.CounterOpts{Name: "swept"})
	wake := newWakeSignal([]string{"default"})
	calls := &countingSweeps{engine: b.client}
	var ledSeen atomic.Int32 // the times the sweeper asked whether it leads and heard yes
	isLeading := func() bool {
		if leading.Load() {
			ledSeen.Add(1)
			return true
		}
		return false
	}
	s := &sweeper{engine: calls, tune: fixedTuning{tunables{maintainInterval: 50 * time.Millisecond}},
		leading: isLeading, wake: wake, answered: func() { answered.Store(true) }, rescued: counter, log: b.log}
	done := make(chan struct{})
	go func() { defer close(done); s.run(ctx) }()

	jobs := b.claimJobs(t, "ghost-worker", "sweeper-rescue", 1)
	for woken(wake, 0) {
	}
	b.exec(t, `UPDATE jobq.jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, jobs[0].ID)
	require.True(t, woken(wake, waitCeiling), "a rescue wakes the claim loop")
	require.Equal(t, 1.0, value(t, counter))
	require.Equal(t, "retry_pending", b.state(t, jobs[0].ID))
	lines := b.logs.lines("job rescued: its lease expired or its timeout passed")
	require.Len(t, lines, 1)
	require.Equal(t, "ghost-worker", lines[0]["lostBy"])
	require.True(t, answered.Load(), "a sweep that the database answered says so")

	leading.Store(true)
	// The sweeper asks before each sweep, one at a time: once it heard yes, a sweep in flight when
	// it started leading has ended; two more questions later, it has let a whole interval pass.
	eventually(t, waitCeiling, "the sweeper sees that it leads", func() bool { return ledSeen.Load() >= 1 })
	before := calls.n.Load()
	eventually(t, waitCeiling, "two more intervals", func() bool { return ledSeen.Load() >= 3 })
	require.Equal(t, before, calls.n.Load(), "a leader's sweeper leaves the sweep to maintain")

	cancel()
	<-done
}

// countingSweeps passes rescue_expired on to the engine and counts the calls.
type countingSweeps struct {
	engine sweepEngine
	n      atomic.Int32
}

func (c *countingSweeps) RescueExpired(ctx context.Context, batch int) ([]engine.Rescue, error) {
	c.n.Add(1)
	return c.engine.RescueExpired(ctx, batch)
}
