package runner

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/jobqdev/jobq/internal/engine"
)

// leaderEngine is the engine's side of the leadership: jobq.acquire_leadership and
// jobq.maintain. *engine.Engine satisfies it.
type leaderEngine interface {
	AcquireLeadership(ctx context.Context, workerID string, ttl time.Duration) (epoch int64, leads bool, err error)
	Maintain(ctx context.Context, workerID string, epoch int64) (engine.MaintainResult, error)
}

// leaderMetrics are the leadership's metrics, all parts of one runner's metrics.
type leaderMetrics struct {
	leader        prometheus.Gauge       // jobq_leader
	epoch         prometheus.Gauge       // jobq_leader_epoch
	maintainRuns  *prometheus.CounterVec // jobq_maintain_runs_total{result}
	scheduleSlots *prometheus.CounterVec // jobq_schedule_slots_total{outcome}
	rescued       prometheus.Counter     // jobq_maintain_rescued_total
}

// leaderStatus is what the engine last said about this runner's leadership. Only the leader's
// loop writes it.
type leaderStatus struct {
	leading bool
	epoch   int64 // the fencing epoch while leading
}

// leader competes for the leadership and, while it leads, calls jobq.maintain. It needs only the
// engine's two calls, a way to read who holds the leadership (for logs), the worker id, the
// intervals in effect, the wake-up signal (a sweep puts jobs back without a NOTIFY), its metrics
// and a logger.
type leader struct {
	engine   leaderEngine
	holders  rowQuerier    // reads jobq.leader's holder
	workerID func() string // the worker's id now
	tune     tuning
	wake     *wakeSignal
	m        leaderMetrics
	log      *slog.Logger
	reporter Reporter // told about each job that died in a sweep; nil: none
	fence    func()   // called before each call: stops the handlers whose lease may end; nil: none

	status leaderStatus
	leads  atomic.Bool // status.leading, for other goroutines (the sweeper)
}

// newLeader returns a leader; see leader for what each argument serves. Call run once.
func newLeader(engine leaderEngine, holders rowQuerier, workerID func() string, tune tuning, wake *wakeSignal,
	m leaderMetrics, log *slog.Logger) *leader {
	return &leader{engine: engine, holders: holders, workerID: workerID, tune: tune, wake: wake, m: m, log: log}
}

// run competes for the leadership every leader_ttl / 3 (jobq.acquire_leadership) and,
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
func (r *leader) run(ctx context.Context) {
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
		case <-r.tune.tuned():
		case <-t.C:
		}
		if r.fence != nil {
			r.fence() // handlers whose lease may end are stopped before anything else (fence.go)
		}
		tune := r.tune.tunables()
		renew := tune.leaderTTL / 3
		now := time.Now()
		acquireDue := !now.Before(lastAcquire.Add(renew))
		maintainDue := r.status.leading && !now.Before(lastMaintain.Add(tune.maintainInterval))
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
		if r.status.leading {
			wait = min(wait, time.Until(lastMaintain.Add(tune.maintainInterval)))
		}
		t.Reset(max(wait, 0))
	}
}

// acquire takes or renews the leadership and reports whether this runner just became leader
// (or leads with a new epoch). A failed call changes nothing: the next maintain's answer, or
// the next acquire's, decides.
func (r *leader) acquire(ctx context.Context, ttl time.Duration, errs *errorLog) bool {
	cctx, cancel := context.WithTimeout(ctx, dbCallTimeout)
	defer cancel()
	epoch, leads, err := r.engine.AcquireLeadership(cctx, r.workerID(), ttl)
	if err != nil {
		if ctx.Err() == nil {
			errs.failed(err)
		}
		return false
	}
	errs.ok()
	switch {
	case leads && (!r.status.leading || epoch != r.status.epoch):
		previous := r.status.epoch
		r.setLeader(true, epoch)
		r.log.Info("leadership acquired", "epoch", epoch, "previousEpoch", previous, "ttlMs", ttl.Milliseconds())
		return true
	case !leads && r.status.leading:
		r.setLeader(false, r.status.epoch)
		holder, heldOffUntil := r.leaderHolder(cctx)
		if !heldOffUntil.IsZero() {
			r.log.Warn("leadership lost: an operator demoted this worker; it does not lead again before the hold-off ends",
				"epoch", r.status.epoch, "heldOffUntil", heldOffUntil, "holder", holder)
			return false
		}
		r.log.Warn("leadership lost: another worker holds it", "epoch", r.status.epoch, "holder", holder)
	}
	return false
}

// leading reports whether the engine's last answer made this runner the leader; safe from any
// goroutine.
func (r *leader) leading() bool { return r.leads.Load() }

// leaderHolder reads who holds the leadership now and, when an operator demoted this worker
// and holds it off (jobq.demote_leader), until when; for logs.
func (r *leader) leaderHolder(ctx context.Context) (holder string, heldOffUntil time.Time) {
	var h *string
	var until *time.Time
	if err := r.holders.QueryRow(ctx, `
		SELECT holder, CASE WHEN demoted_holder = $1 AND demoted_until > now() THEN demoted_until END
		FROM jobq.leader`, r.workerID()).Scan(&h, &until); err != nil {
		return "", time.Time{}
	}
	if h != nil {
		holder = *h
	}
	if until != nil {
		heldOffUntil = *until
	}
	return holder, heldOffUntil
}

// maintain calls jobq.maintain(worker, epoch) once, in a statement of its own (so a runner
// paused in the middle can never hold the leadership row), and follows the answer: fenced
// means this runner no longer leads with its epoch, and it stops acting as leader at once.
// maintain also sweeps expired leases and timeouts (the other runners sweep with
// jobq.rescue_expired, see sweeper); the jobs that died in its sweep come back in its answer and
// are logged and given to the reporter here: the sweep and the answer commit together, and a job
// dies in one sweep, so each is reported by exactly one runner, whichever swept it.
func (r *leader) maintain(ctx context.Context, errs *errorLog) {
	// A call in flight when the runner stops is not cancelled: its sweep may already be
	// committed, and the jobs that died in it are reported by no one else.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dbCallTimeout)
	defer cancel()
	epoch := r.status.epoch
	res, err := r.engine.Maintain(cctx, r.workerID(), epoch)
	if err != nil {
		if ctx.Err() == nil {
			r.m.maintainRuns.WithLabelValues("error").Inc()
			errs.failed(err)
		}
		return
	}
	errs.ok()
	if res.Fenced {
		r.m.maintainRuns.WithLabelValues("fenced").Inc()
		r.setLeader(false, epoch)
		holder := ""
		if res.Holder != nil {
			holder = *res.Holder
		}
		r.log.Warn("maintain fenced: this worker no longer leads with its epoch; standing down at once",
			"epoch", epoch, "currentEpoch", res.CurrentEpoch, "holder", holder)
		return
	}
	r.m.maintainRuns.WithLabelValues("ok").Inc()
	r.m.scheduleSlots.WithLabelValues("enqueued").Add(float64(res.SlotsEnqueued))
	r.m.scheduleSlots.WithLabelValues("skipped").Add(float64(res.SlotsSkipped))
	r.m.rescued.Add(float64(res.Rescued))
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
	for _, d := range res.Dead {
		r.reportDead(ctx, d)
	}
	if res.Rescued > 0 || len(res.LostWorkers) > 0 {
		r.wake.notify() // the sweep put jobs back in the queue without a NOTIFY
	}
}

// reportDead logs a job that died in this leader's sweep and gives it to the reporter.
func (r *leader) reportDead(ctx context.Context, s engine.SweptDead) {
	d := DeadJob{JobID: s.JobID, Task: s.Task, Queue: s.Queue, Attempt: s.Attempt, Error: s.Error, Reason: s.Reason,
		Worker: s.Worker, Duration: time.Duration(s.DurationMs) * time.Millisecond}
	if s.StoreID != nil {
		d.StoreID = *s.StoreID
	}
	r.log.Error("job dead", "jobId", d.JobID, "taskName", d.Task, "storeId", d.StoreID, "attempt", d.Attempt,
		"queue", d.Queue, "reason", d.Reason, "worker", d.Worker, "error", firstLine(d.Error), "sweptBy", r.workerID())
	if r.reporter != nil {
		r.reporter.ReportDead(context.WithoutCancel(ctx), d)
	}
}

// setLeader records the engine's answer about the leadership and updates the metrics.
func (r *leader) setLeader(leading bool, epoch int64) {
	r.status.leading, r.status.epoch = leading, epoch
	r.leads.Store(leading)
	if leading {
		r.m.leader.Set(1)
		r.m.epoch.Set(float64(epoch))
	} else {
		r.m.leader.Set(0)
	}
}

// standDown stops acting as leader when the loop ends; deregister_worker, called next, ends
// the lease in the database so another runner takes over at once.
func (r *leader) standDown() {
	if r.status.leading {
		r.log.Info("leadership given up: the runner is stopping", "epoch", r.status.epoch)
		r.setLeader(false, r.status.epoch)
	}
}
