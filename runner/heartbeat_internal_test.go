package runner

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
)

// fakeBook is a leaseBook over a fixed set of held jobs, as the Runner's table would hold them.
type fakeBook struct {
	mu   sync.Mutex
	held map[string]*runningJob // by lease token
}

func (f *fakeBook) renewable() []jobq.Lease {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []jobq.Lease
	for _, rj := range f.held {
		if !rj.lost {
			out = append(out, rj.job.Lease())
		}
	}
	return out
}

func (f *fakeBook) leaseConfirmed([]jobq.Lease, map[int64]time.Time, time.Time, time.Time) {}

func (f *fakeBook) markLost(leases []jobq.Lease, renewed map[int64]time.Time) []lostLease {
	f.mu.Lock()
	defer f.mu.Unlock()
	var lost []lostLease
	for _, l := range leases {
		if _, ok := renewed[l.JobID]; !ok {
			rj := f.held[l.Token]
			rj.lost = true
			lost = append(lost, lostLease{rj: rj, started: rj.running})
		}
	}
	return lost
}

// The lease heartbeat, given only the engine's heartbeat_jobs call and a lease book, renews the
// leases the engine still grants and cancels, with cause jobq.ErrLeaseLost, the handlers of
// those it refuses; a lease known lost is not sent again.
func TestHeartbeater(t *testing.T) {
	t.Parallel()
	b := setupUnit(t)
	ctx := context.Background()
	jobs := b.claimJobs(t, "unit-hb", "heartbeat-unit", 2)
	book := &fakeBook{held: map[string]*runningJob{}}
	var cancelled []context.Context
	for i := range jobs {
		jctx, cancel := context.WithCancelCause(ctx)
		cancelled = append(cancelled, jctx)
		book.held[jobs[i].LeaseToken] = &runningJob{job: &jobs[i], cancel: cancel, running: true}
	}
	// The second job is cancelled by an operator: its lease is no longer renewed.
	b.exec(t, `SELECT jobq.cancel_job($1)`, jobs[1].ID)
	var before time.Time
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT lease_expires_at FROM jobq.jobs WHERE id = $1`, jobs[0].ID).Scan(&before))

	lost := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "lost"}, []string{"task"})
	h := &heartbeater{engine: b.client, book: book, workerID: func() string { return "unit-hb" },
		tune:     fixedTuning{tunables{lease: time.Hour}},
		interval: func() time.Duration { return 20 * time.Millisecond }, leaseLost: lost, log: b.log}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); h.run(runCtx) }()

	eventually(t, waitCeiling, "the refused lease's handler cancelled", func() bool { return cancelled[1].Err() != nil })
	require.ErrorIs(t, context.Cause(cancelled[1]), jobq.ErrLeaseLost)
	require.NoError(t, cancelled[0].Err(), "a renewed lease's handler runs on")
	eventually(t, waitCeiling, "the lease renewed for an hour", func() bool {
		var after time.Time
		require.NoError(t, b.admin.QueryRow(ctx, `SELECT lease_expires_at FROM jobq.jobs WHERE id = $1`, jobs[0].ID).Scan(&after))
		return after.Sub(before) > 50*time.Minute
	})
	// A few more heartbeats: each renews the live lease again (an hour from its now()).
	for range 3 {
		var renewed time.Time
		require.NoError(t, b.admin.QueryRow(ctx, `SELECT lease_expires_at FROM jobq.jobs WHERE id = $1`, jobs[0].ID).Scan(&renewed))
		eventually(t, waitCeiling, "another heartbeat", func() bool {
			var after time.Time
			require.NoError(t, b.admin.QueryRow(ctx, `SELECT lease_expires_at FROM jobq.jobs WHERE id = $1`, jobs[0].ID).Scan(&after))
			return after.After(renewed)
		})
	}
	stop()
	<-done
	require.Equal(t, 1.0, value(t, lost.WithLabelValues("heartbeat-unit")), "a lost lease is counted once")
	require.Len(t, b.logs.lines("lease lost"), 1)
	require.Equal(t, []jobq.Lease{jobs[0].Lease()}, book.renewable())
}
