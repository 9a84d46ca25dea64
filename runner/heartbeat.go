package runner

import (
	"context"
	"time"

	"github.com/jobqdev/jobq"
)

// heartbeatLoop renews every held lease once per heartbeat interval, in one heartbeat_jobs call.
// The interval follows the lease in use: when a setting changes it, the next renewal is due one
// new interval after the last one.
func (r *Runner) heartbeatLoop(ctx context.Context) {
	errs := newErrorLog(r.log, "heartbeat failed")
	last := time.Now()
	t := time.NewTimer(r.heartbeatInterval())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.tuned():
			t.Reset(time.Until(last.Add(r.heartbeatInterval())))
			continue
		case <-t.C:
		}
		last = time.Now()
		r.heartbeat(ctx, errs)
		t.Reset(r.heartbeatInterval())
	}
}

// heartbeat renews the held leases. A running handler whose job the engine did not renew has
// lost its lease: its context is cancelled with cause jobq.ErrLeaseLost and its result will not
// be written. The database alone decides this; a failed call decides nothing.
func (r *Runner) heartbeat(ctx context.Context, errs *errorLog) {
	r.mu.Lock()
	leases := make([]jobq.Lease, 0, len(r.held))
	for _, rj := range r.held {
		if !rj.lost {
			leases = append(leases, rj.job.Lease())
		}
	}
	r.mu.Unlock()
	if len(leases) == 0 {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, max(r.heartbeatInterval(), 2*time.Second))
	defer cancel()
	renewed, err := r.client.Heartbeat(cctx, r.cfg.WorkerID, leases, r.Lease())
	if err != nil {
		if ctx.Err() == nil {
			errs.failed(err)
		}
		return
	}
	errs.ok()
	var lost []*runningJob
	var started []bool // whether each lost job's handler had started (read under r.mu)
	r.mu.Lock()
	for _, l := range leases {
		if _, ok := renewed[l.JobID]; ok {
			continue
		}
		rj := r.held[l.Token]
		// A handler that already returned is the finisher's: its write tells what happened.
		if rj == nil || rj.finishing || rj.lost {
			continue
		}
		rj.lost = true
		lost = append(lost, rj)
		started = append(started, rj.running)
	}
	r.mu.Unlock()
	for i, rj := range lost {
		r.metrics.leaseLost.WithLabelValues(rj.job.Task).Inc()
		detail := "the heartbeat was refused: the job was rescued, cancelled or deleted; cancelling its handler"
		if !started[i] {
			detail = "the heartbeat was refused: the job was rescued, cancelled or deleted before its handler started; it will not start here"
		}
		r.log.Warn("lease lost", append(jobAttrs(rj.job), "during", "heartbeat", "detail", detail)...)
		rj.cancel(jobq.ErrLeaseLost)
	}
}
