package runner

import (
	"context"
	"time"
)

// leaderStatus is what the engine last said about this runner's leadership. Only leaderLoop
// writes it.
type leaderStatus struct {
	leading bool
	epoch   int64 // the fencing epoch while leading
}

// leaderLoop competes for the leadership every leader_ttl / 3 (jobq.acquire_leadership) and,
// while the engine says this runner leads, calls jobq.maintain every maintain_interval with its
// epoch. Who leads, for how long, and whether a maintain may act are decided by the database:
// the loop only paces the calls and follows their answers. A maintain answered "fenced" ends
// the leadership at once.
//
// One call at a time. When both are due, the one most overdue for its own interval goes first.
// In steady state that alternates them (neither starves, even when a maintain outlasts its
// interval); after the runner was paused (GC, SIGSTOP) it is maintain, as long as
// maintain_interval is shorter than leader_ttl / 3, so a leader that lost its epoch while it
// slept learns it from a fenced maintain and acts on nothing.
func (r *Runner) leaderLoop(ctx context.Context) {
	acquireErrs := newErrorLog(r.log, "acquire_leadership failed")
	maintainErrs := newErrorLog(r.log, "maintain failed")
	var lastAcquire, lastMaintain time.Time // when the last call started; zero: due at once
	t := time.NewTimer(0)
	defer t.Stop()
	defer r.standDown()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.tuned():
		case <-t.C:
		}
		tune := r.tunables()
		renew := tune.leaderTTL / 3
		now := time.Now()
		acquireDue := !now.Before(lastAcquire.Add(renew))
		maintainDue := r.leader.leading && !now.Before(lastMaintain.Add(tune.maintainInterval))
		if maintainDue && acquireDue {
			// Compare how many of its intervals each has waited.
			acquireDue = float64(now.Sub(lastAcquire))/float64(renew) > float64(now.Sub(lastMaintain))/float64(tune.maintainInterval)
			maintainDue = !acquireDue
		}
		switch {
		case maintainDue:
			lastMaintain = now
			r.maintain(ctx, maintainErrs)
		case acquireDue:
			lastAcquire = now
			if r.acquire(ctx, tune.leaderTTL, acquireErrs) {
				lastMaintain = time.Time{} // a new leader maintains at once
			}
		}
		wait := time.Until(lastAcquire.Add(renew))
		if r.leader.leading {
			wait = min(wait, time.Until(lastMaintain.Add(tune.maintainInterval)))
		}
		t.Reset(max(wait, 0))
	}
}

// acquire takes or renews the leadership and reports whether this runner just became leader
// (or leads with a new epoch). A failed call changes nothing: the next maintain's answer, or
// the next acquire's, decides.
func (r *Runner) acquire(ctx context.Context, ttl time.Duration, errs *errorLog) bool {
	cctx, cancel := context.WithTimeout(ctx, dbCallTimeout)
	defer cancel()
	epoch, leads, err := r.client.AcquireLeadership(cctx, r.cfg.WorkerID, ttl)
	if err != nil {
		if ctx.Err() == nil {
			errs.failed(err)
		}
		return false
	}
	errs.ok()
	switch {
	case leads && (!r.leader.leading || epoch != r.leader.epoch):
		previous := r.leader.epoch
		r.setLeader(true, epoch)
		r.log.Info("leadership acquired", "epoch", epoch, "previousEpoch", previous, "ttlMs", ttl.Milliseconds())
		return true
	case !leads && r.leader.leading:
		r.setLeader(false, r.leader.epoch)
		r.log.Warn("leadership lost: another worker holds it", "epoch", r.leader.epoch, "holder", r.leaderHolder(cctx))
	}
	return false
}

// leaderHolder reads who holds the leadership now, for logs.
func (r *Runner) leaderHolder(ctx context.Context) string {
	var holder *string
	if err := r.pool.QueryRow(ctx, `SELECT holder FROM jobq.leader`).Scan(&holder); err != nil || holder == nil {
		return ""
	}
	return *holder
}

// maintain calls jobq.maintain(worker, epoch) once, in a statement of its own (so a runner
// paused in the middle can never hold the leadership row), and follows the answer: fenced
// means this runner no longer leads with its epoch, and it stops acting as leader at once.
// maintain also sweeps expired leases and timeouts, so the leader is the one runner that
// rescues; it reports how many jobs it swept, not which, so jobs that died that way are not
// given to Config.Reporter.
func (r *Runner) maintain(ctx context.Context, errs *errorLog) {
	cctx, cancel := context.WithTimeout(ctx, dbCallTimeout)
	defer cancel()
	epoch := r.leader.epoch
	res, err := r.client.Maintain(cctx, r.cfg.WorkerID, epoch)
	if err != nil {
		if ctx.Err() == nil {
			r.metrics.maintainRuns.WithLabelValues("error").Inc()
			errs.failed(err)
		}
		return
	}
	errs.ok()
	if res.Fenced {
		r.metrics.maintainRuns.WithLabelValues("fenced").Inc()
		r.setLeader(false, epoch)
		holder := ""
		if res.Holder != nil {
			holder = *res.Holder
		}
		r.log.Warn("maintain fenced: this worker no longer leads with its epoch; standing down at once",
			"epoch", epoch, "currentEpoch", res.CurrentEpoch, "holder", holder)
		return
	}
	r.metrics.maintainRuns.WithLabelValues("ok").Inc()
	r.metrics.scheduleSlots.WithLabelValues("enqueued").Add(float64(res.SlotsEnqueued))
	r.metrics.scheduleSlots.WithLabelValues("skipped").Add(float64(res.SlotsSkipped))
	r.metrics.rescued.Add(float64(res.Rescued))
	if len(res.LostWorkers) > 0 {
		r.log.Warn("workers lost: no heartbeat within worker_timeout; their leases were rescued",
			"workers", res.LostWorkers, "epoch", epoch)
	}
	attrs := []any{"epoch", epoch, "slotsEnqueued", res.SlotsEnqueued, "slotsSkipped", res.SlotsSkipped,
		"lostWorkers", len(res.LostWorkers), "rescued", res.Rescued, "historyPruned", res.HistoryPruned}
	if res.Did() {
		r.log.Info("maintain", attrs...)
	} else {
		r.log.Debug("maintain", attrs...)
	}
	if res.Rescued > 0 || len(res.LostWorkers) > 0 {
		r.notify() // the sweep put jobs back in the queue without a NOTIFY
	}
}

// setLeader records the engine's answer about the leadership and updates the metrics.
func (r *Runner) setLeader(leading bool, epoch int64) {
	r.leader.leading, r.leader.epoch = leading, epoch
	if leading {
		r.metrics.leader.Set(1)
		r.metrics.leaderEpoch.Set(float64(epoch))
	} else {
		r.metrics.leader.Set(0)
	}
}

// standDown stops acting as leader when the loop ends; deregister_worker, called next, ends
// the lease in the database so another runner takes over at once.
func (r *Runner) standDown() {
	if r.leader.leading {
		r.log.Info("leadership given up: the runner is stopping", "epoch", r.leader.epoch)
		r.setLeader(false, r.leader.epoch)
	}
}
