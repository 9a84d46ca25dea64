package runner

import (
	"context"
	"strings"
	"time"
)

// Seed 002 section 7.3, the runner's side. jobq.detach_worker marks each job this runner runs
// CONFIRMING until continuation_retry_count x continuation_retry_interval from now and NOTIFYs
// ControlChannel. The runner hears it (or learns it at its next worker heartbeat), and confirms
// that its running jobs go on: up to continuation_retry_count calls of
// jobq.confirm_continuation, continuation_retry_interval apart. A confirmed job runs on to its
// end and its result is written as usual; a job the engine answers detached or lease_lost, and
// every job when no call is answered in time, has its handler stopped (cause ErrDetached) and its
// result discarded: the engine records the attempt as failed with reason detached and the job
// runs elsewhere.

// onControl handles a notification on ControlChannel: a detach of this runner makes it
// heartbeat its worker row now, so that it learns its state and confirms at once.
func (r *Runner) onControl(payload string) {
	if strings.HasPrefix(payload, cancelPrefix) {
		r.onCancelNotified(payload)
		return
	}
	if payload != "detached:"+r.WorkerID() {
		return
	}
	select {
	case r.heartbeatNow <- struct{}{}:
	default:
	}
}

// continueDetached confirms the continuation of the jobs whose handlers run now. It runs once,
// when the worker heartbeat first reports the runner detached.
func (r *Runner) continueDetached() {
	t := r.tune.tunables()
	tries, every := t.continuationTries, t.continuationInterval
	held, leases := r.heldWhere(func(rj *runningJob) bool { return rj.running })
	if len(held) == 0 {
		return
	}
	// Until the engine answers, these jobs' leases end at the detach's confirmation deadline,
	// which a heartbeat reports: the continuation, not self-fencing, decides whether they stop.
	r.confirming.Store(true)
	defer r.confirming.Store(false)
	r.log.Warn("worker detached: confirming the continuation of its running jobs", "jobs", len(held),
		"tries", tries, "intervalMs", every.Milliseconds())
	start := time.Now()
	for try := 1; try <= tries; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), every)
		sent, lease := time.Now(), r.Lease()
		outcomes, err := r.engine.ConfirmContinuation(ctx, r.WorkerID(), leases, lease)
		cancel()
		if err == nil {
			var stop []*runningJob
			for i, o := range outcomes {
				if o.Outcome == "confirmed" {
					// Renewed to now() + lease, now() read after sent (fence.go).
					r.confirmLease(held[i], sent, lease)
					r.log.Info("job continues on the detached worker", jobAttrs(held[i].job)...)
					continue
				}
				stop = append(stop, held[i])
			}
			r.stopDetached(stop, "the engine refused the continuation (deadline passed or lease lost)")
			return
		}
		r.log.Warn("confirm_continuation failed", "try", try, "error", err.Error())
		if try < tries {
			time.Sleep(time.Until(start.Add(time.Duration(try) * every)))
		}
	}
	r.stopDetached(held, "no confirmation within continuation_retry_count x continuation_retry_interval")
}

// stopDetached stops the handlers of jobs whose continuation was not confirmed. Their results
// are discarded (the lease is treated as lost): the engine records the attempt as detached.
func (r *Runner) stopDetached(jobs []*runningJob, why string) {
	r.mu.Lock()
	var stopped []*runningJob
	for _, rj := range jobs {
		if rj.finishing || rj.lost {
			continue
		}
		rj.lost = true
		stopped = append(stopped, rj)
	}
	r.mu.Unlock()
	for _, rj := range stopped {
		r.log.Warn("stopping the handler: the worker was detached and the continuation was not confirmed",
			append(jobAttrs(rj.job), "reason", why)...)
		rj.cancel(ErrDetached)
	}
}
