package runner

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/jobqdev/jobq"
)

// leaseRenewer renews leases in one jobq.heartbeat_jobs call and returns the new expiry of each
// renewed job by id. *engine.Engine satisfies it.
type leaseRenewer interface {
	// The time returned is the database's now() of the call, which the expiries count from.
	HeartbeatAt(ctx context.Context, workerID string, leases []jobq.Lease, lease time.Duration) (map[int64]time.Time, time.Time, error)
}

// leaseBook is the table of held leases as the lease heartbeat sees it. The Runner is one.
type leaseBook interface {
	// renewable returns the held leases not known to be lost.
	renewable() []jobq.Lease
	// markLost marks lost each lease of leases whose job is not in renewed and whose handler
	// has not returned (a returned handler's result write tells what happened), and returns
	// them.
	markLost(leases []jobq.Lease, renewed map[int64]time.Time) []lostLease
	// leaseConfirmed records the new end of each renewed lease: the call was sent at sent (the
	// local monotonic clock) and the database's now() was dbNow (fence.go).
	leaseConfirmed(leases []jobq.Lease, renewed map[int64]time.Time, sent, dbNow time.Time)
}

// lostLease is a held lease a heartbeat found lost.
type lostLease struct {
	rj      *runningJob
	started bool // its handler had started
}

// heartbeater renews every held lease once per heartbeat interval, in one heartbeat_jobs call,
// and cancels the handlers whose lease the engine did not renew. It needs only the engine's
// call, the lease table, the worker id, the intervals in effect, a counter and a logger.
type heartbeater struct {
	engine    leaseRenewer
	book      leaseBook
	workerID  func() string        // the worker's id now (a detached runner rejoins under a new one)
	tune      tuning               // the lease to renew with, and when it changes
	interval  func() time.Duration // the heartbeat interval now: Config.HeartbeatInterval or a third of the lease
	leaseLost *prometheus.CounterVec
	log       *slog.Logger
}

// run renews every held lease once per heartbeat interval, in one heartbeat_jobs call, until ctx
// ends. The interval follows the lease in use: when a setting changes it, the next renewal is due one
// new interval after the last one.
func (h *heartbeater) run(ctx context.Context) {
	errs := newErrorLog(h.log, "heartbeat failed")
	last := time.Now()
	t := time.NewTimer(h.interval())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.tune.tuned():
			t.Reset(time.Until(last.Add(h.interval())))
			continue
		case <-t.C:
		}
		last = time.Now()
		h.heartbeat(ctx, errs)
		t.Reset(h.interval())
	}
}

// heartbeat renews the held leases. A running handler whose job the engine did not renew has
// lost its lease: its context is cancelled with cause jobq.ErrLeaseLost and its result will not
// be written. The database alone decides this; a failed call decides nothing.
func (h *heartbeater) heartbeat(ctx context.Context, errs *errorLog) {
	leases := h.book.renewable()
	if len(leases) == 0 {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, max(h.interval(), 2*time.Second))
	defer cancel()
	sent := time.Now()
	renewed, dbNow, err := h.engine.HeartbeatAt(cctx, h.workerID(), leases, h.tune.tunables().lease)
	if err != nil {
		if ctx.Err() == nil {
			errs.failed(err)
		}
		return
	}
	errs.ok()
	h.book.leaseConfirmed(leases, renewed, sent, dbNow)
	for _, l := range h.book.markLost(leases, renewed) {
		h.leaseLost.WithLabelValues(l.rj.job.Task).Inc()
		detail := "the heartbeat was refused: the job was rescued, cancelled or deleted; cancelling its handler"
		if !l.started {
			detail = "the heartbeat was refused: the job was rescued, cancelled or deleted before its handler started; it will not start here"
		}
		h.log.Warn("lease lost", append(jobAttrs(l.rj.job), "during", "heartbeat", "detail", detail)...)
		l.rj.cancel(jobq.ErrLeaseLost)
	}
}
