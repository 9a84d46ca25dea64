package runner

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/jobqdev/jobq/internal/engine"
)

// sweepBatch bounds one jobq.rescue_expired call of the sweeper.
const sweepBatch = 1000

// sweepEngine is the engine's side of the sweep: jobq.rescue_expired. *engine.Engine satisfies it.
type sweepEngine interface {
	RescueExpired(ctx context.Context, batch int) ([]engine.Rescue, error)
}

// sweeper rescues expired leases and passed timeouts from every runner, not only the leader, so
// that the jobs of a worker that dies run again within lease + maintain_interval + one poll,
// whichever worker died: when the leader itself dies, the others need not wait out the
// leadership's TTL (leader_ttl, 15 s as shipped) before anyone sweeps. Sweeping from many
// runners at once is safe: jobq.rescue_expired locks the rows it sweeps with SKIP LOCKED, so two
// sweeps never take the same job, and the old lease token stops working, so the vanished
// worker's late writes are refused. With nothing expired the call is one probe of the partial
// index jobs_lease_idx and of jobs_deadline_idx. While this runner leads it does not sweep:
// its jobq.maintain does.
//
// It needs only the engine's call, the intervals in effect (it sweeps every maintain_interval),
// whether this runner leads now (nil: never), the wake-up signal (a sweep puts jobs back without
// a NOTIFY), a hook told that the database answered, a counter and a logger.
type sweeper struct {
	engine   sweepEngine
	tune     tuning
	leading  func() bool
	wake     *wakeSignal
	answered func()             // the database answered (wakes the result writer's retry); nil: none
	rescued  prometheus.Counter // jobq_sweep_rescued_total
	reporter Reporter           // told about each job that died in this runner's sweep; nil: none
	log      *slog.Logger
	fence    func() // called before each sweep: stops the handlers whose lease may end; nil: none
}

// run sweeps every maintain_interval until ctx ends; a full batch is followed by the next at
// once.
func (s *sweeper) run(ctx context.Context) {
	errs := newErrorLog(s.log, "rescue_expired failed")
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if s.fence != nil {
			s.fence() // handlers whose lease may end are stopped before anything else (fence.go)
		}
		wait := s.tune.tunables().maintainInterval
		if s.leading == nil || !s.leading() {
			if s.sweep(ctx, errs) == sweepBatch {
				wait = 0
			}
		}
		t.Reset(wait)
	}
}

// sweep calls jobq.rescue_expired once and reports how many jobs it swept.
func (s *sweeper) sweep(ctx context.Context, errs *errorLog) int {
	// Not cancelled when the runner stops (as jobq.maintain in leader.go): a sweep committed just
	// before the stop still reports its dead jobs.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dbCallTimeout)
	defer cancel()
	swept, err := s.engine.RescueExpired(cctx, sweepBatch)
	if err != nil {
		if ctx.Err() == nil {
			errs.failed(err)
		}
		return 0
	}
	errs.ok()
	if s.answered != nil {
		s.answered()
	}
	if len(swept) == 0 {
		return 0
	}
	s.rescued.Add(float64(len(swept)))
	for _, r := range swept {
		attrs := []any{"taskName", r.Task, "jobId", r.JobID, "storeId", deref(r.StoreID), "attempt", r.Attempt,
			"queue", r.Queue, "outcome", r.Outcome, "reason", r.Reason, "lostBy", r.LockedBy}
		s.log.Warn("job rescued: its lease expired or its timeout passed", attrs...)
		if r.Outcome == "dead" {
			// A job dies in one sweep (the sweep locks its row), so the runner whose
			// rescue_expired swept it is the one that reports it.
			d := DeadJob{JobID: r.JobID, Task: r.Task, StoreID: deref(r.StoreID), Queue: r.Queue, Attempt: r.Attempt,
				Reason: r.Reason, Worker: r.LockedBy, Error: "the job's lease expired or its timeout passed (" + r.Reason + ")"}
			s.log.Error("job dead", "jobId", d.JobID, "taskName", d.Task, "storeId", d.StoreID, "attempt", d.Attempt,
				"queue", d.Queue, "reason", d.Reason, "worker", d.Worker)
			if s.reporter != nil {
				s.reporter.ReportDead(context.WithoutCancel(ctx), d)
			}
		}
	}
	s.wake.notify() // the sweep put jobs back in the queue without a NOTIFY
	return len(swept)
}
