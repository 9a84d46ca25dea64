package runner

import (
	"context"
	"fmt"
	"time"
)

// rescueBatch is the most jobs one rescue_expired call sweeps.
const rescueBatch = 1000

// rescueLoop calls jobq.rescue_expired every rescue interval (at once again when a batch was
// full), and wakes the claim loop when it put jobs back in the queue.
func (r *Runner) rescueLoop(ctx context.Context) {
	t := time.NewTicker(r.rescueInterval())
	defer t.Stop()
	errs := newErrorLog(r.log, "rescue_expired failed")
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for ctx.Err() == nil {
			n, err := r.rescue(ctx)
			if err != nil {
				errs.failed(err)
				break
			}
			errs.ok()
			if n < rescueBatch {
				break
			}
		}
	}
}

// rescue sweeps one batch and returns how many jobs it swept.
func (r *Runner) rescue(ctx context.Context) (int, error) {
	cctx, cancel := context.WithTimeout(ctx, dbCallTimeout)
	defer cancel()
	swept, err := r.client.RescueExpired(cctx, rescueBatch)
	if err != nil {
		return 0, err
	}
	requeued := false
	for _, s := range swept {
		r.metrics.rescued.WithLabelValues(s.Outcome, s.Reason).Inc()
		switch s.Outcome {
		case "dead":
			r.log.Error("job dead", "taskName", s.Task, "jobId", s.JobID, "storeId", deref(s.StoreID), "attempt", s.Attempt,
				"queue", s.Queue, "reason", s.Reason, "lostBy", s.LockedBy, "rescuedBy", r.cfg.WorkerID)
			if r.cfg.Reporter != nil {
				r.cfg.Reporter.ReportDead(ctx, DeadJob{JobID: s.JobID, Task: s.Task, StoreID: deref(s.StoreID),
					Queue: s.Queue, Attempt: s.Attempt, Reason: s.Reason,
					Error: fmt.Sprintf("%s: its last attempt's lease expired or its timeout passed (worker %s)", s.Reason, s.LockedBy)})
			}
		default:
			requeued = true
			r.log.Info("job rescued", "taskName", s.Task, "jobId", s.JobID, "storeId", deref(s.StoreID), "attempt", s.Attempt,
				"queue", s.Queue, "outcome", s.Outcome, "reason", s.Reason, "lostBy", s.LockedBy)
		}
	}
	if requeued {
		r.notify()
	}
	return len(swept), nil
}
