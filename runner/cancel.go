package runner

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jobqdev/jobq"
)

// Pushed cancel (issue 34). jobq.cancel_job of a running job NOTIFYs ControlChannel with payload
// "cancel:<job id>" when it commits. The runner's listener hears it; if this runner holds the job,
// it checks the job's lease with the database at once (one jobq.heartbeat_jobs call for every job
// notified meanwhile) rather than at its next heartbeat, and stops the handler of each lease the
// engine no longer renews: its context is cancelled with cause ErrCanceled and its result is
// discarded. A notification is only a hint (any role may NOTIFY any channel): the database
// decides, so a forged one renews a lease and stops nothing. Runners in WAL mode do not listen;
// they learn at their next heartbeat, as before.

// cancelPrefix starts the payload of jobq.cancel_job's NOTIFY on ControlChannel.
const cancelPrefix = "cancel:"

// cancelChecks collects the ids of the jobs whose cancel was notified, for checkCancels.
type cancelChecks struct {
	mu   sync.Mutex
	ids  map[int64]struct{}
	wake chan struct{}
}

func newCancelChecks() *cancelChecks {
	return &cancelChecks{ids: map[int64]struct{}{}, wake: make(chan struct{}, 1)}
}

// add records id and wakes the checker; it never blocks.
func (c *cancelChecks) add(id int64) {
	c.mu.Lock()
	c.ids[id] = struct{}{}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// take returns the ids recorded since the last take.
func (c *cancelChecks) take() map[int64]struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := c.ids
	c.ids = map[int64]struct{}{}
	return ids
}

// onCancelNotified handles a "cancel:<id>" payload: the job is checked when this runner holds it.
func (r *Runner) onCancelNotified(payload string) {
	id, err := strconv.ParseInt(strings.TrimPrefix(payload, cancelPrefix), 10, 64)
	if err != nil {
		return
	}
	r.mu.Lock()
	holds := false
	for _, rj := range r.held {
		if rj.job.ID == id && !rj.finishing && !rj.lost {
			holds = true
			break
		}
	}
	r.mu.Unlock()
	if holds {
		r.cancels.add(id)
	}
}

// checkCancels checks, until ctx ends, the leases of the jobs whose cancel was notified, and
// stops the handlers of those the engine no longer renews.
func (r *Runner) checkCancels(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.cancels.wake:
		}
		r.enforceFences() // handlers whose lease may end are stopped before anything else (fence.go)
		ids := r.cancels.take()
		held, leases := r.heldWhere(func(rj *runningJob) bool {
			_, ok := ids[rj.job.ID]
			return ok
		})
		if len(held) == 0 {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, dbCallTimeout)
		sent := time.Now()
		renewed, dbNow, err := r.engine.HeartbeatAt(cctx, r.WorkerID(), leases, r.Lease())
		cancel()
		if err != nil {
			// The next heartbeat tells.
			r.log.Warn("cannot check a notified cancel; the next heartbeat will", "jobs", len(held), "error", err.Error())
			continue
		}
		r.leaseConfirmed(leases, renewed, sent, dbNow)
		r.mu.Lock()
		var stop []*runningJob
		for _, rj := range held {
			if _, ok := renewed[rj.job.ID]; ok || rj.finishing || rj.lost || rj.completedInTx.Load() {
				continue
			}
			rj.lost = true
			rj.canceled.Store(true)
			if rj.running {
				stop = append(stop, rj)
			}
		}
		r.mu.Unlock()
		for _, rj := range stop {
			r.metrics.canceled.WithLabelValues(rj.job.Task).Inc()
			r.log.Info("job canceled while it ran: stopping its handler", jobAttrs(rj.job)...)
			rj.cancel(ErrCanceled)
		}
	}
}

// heldWhere returns the held jobs that keep selects among those whose handler has not returned
// and whose lease is not known lost, with their leases.
func (r *Runner) heldWhere(keep func(*runningJob) bool) ([]*runningJob, []jobq.Lease) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var held []*runningJob
	var leases []jobq.Lease
	for _, rj := range r.held {
		if !rj.finishing && !rj.lost && keep(rj) {
			held = append(held, rj)
			leases = append(leases, rj.job.Lease())
		}
	}
	return held, leases
}
