package runner

import (
	"context"
	"time"

	"github.com/jobqdev/jobq"
)

// Self-fencing (issue 34; seed 002 §1.3 and §7.3: a worker cut off from the database stops the job
// itself). Lease tokens stop a cut-off runner's writes, not its side effects: a handler that runs
// on past its lease runs beside the attempt another runner started after the rescue. So each
// running job has a fence: the end of its lease as last confirmed by the database, mapped onto
// this runner's monotonic clock without trusting its wall clock. The claim (or heartbeat) sent at
// local instant s whose answer says the lease ends at lease_expires_at, the database's now() being
// n, confirms the lease until s + (lease_expires_at - n): the database read n after s, so the
// lease cannot end before that instant (the two clocks are assumed to run at the same rate, not to
// agree). When no renewal has been confirmed by fence - fenceMargin, the runner stops the handler:
// its context is cancelled with cause ErrLeaseUnconfirmed (a command's process group gets SIGTERM,
// then SIGKILL before fence - fenceMargin/2; an HTTP handler's request is cancelled), its lease is
// no longer renewed and its result is discarded. The database records the attempt when its sweep
// rescues the job (reason orphaned).
//
// While a detached runner confirms the continuation of its running jobs (continuation.go), their
// leases end at the detach's confirmation deadline: the continuation decides whether they stop.
//
// Every loop of the runner that talks to the database (the claim loop, the lease and worker
// heartbeats, the leader, the sweeper, the fence watcher) enforces the fences before it acts, so a runner that wakes from SIGSTOP (or a
// long pause of the machine) past a fence stops those handlers before it claims, renews or writes
// anything: the monotonic clock ran on while the process was stopped, and all three loops' timers
// fire at once on SIGCONT, in no particular order.

// fenceMargin is how long before the confirmed end of its lease a handler is stopped: half of
// the shorter of the heartbeat interval and the lease less the heartbeat interval, at least a
// tenth of the lease. A renewal is sent every heartbeat interval h, so on a healthy link the fence
// never comes closer than lease - h; with the margin at most (lease - h)/2, one lost heartbeat
// (the next is sent h later) does not stop a handler either. At the defaults (lease 30 s,
// heartbeat 10 s) the margin is 5 s; with a 3 s lease and 1 s heartbeats, 500 ms.
func fenceMargin(lease, heartbeat time.Duration) time.Duration {
	return max(min(heartbeat, lease-heartbeat)/2, lease/10)
}

// fenceTick bounds the fence watcher's sleep: it also looks for a pause of the process (a jump of
// the monotonic clock between two wake-ups) at least this often.
const fenceTick = 250 * time.Millisecond

// mono returns t as the runner's monotonic time: time since its creation.
func (r *Runner) mono(t time.Time) int64 { return int64(t.Sub(r.epoch)) }

// confirmLease records that the database confirmed rj's lease until sent + valid (sent is when
// the confirming call was sent, on the local monotonic clock).
func (r *Runner) confirmLease(rj *runningJob, sent time.Time, valid time.Duration) {
	end := sent.Add(valid)
	rj.fence.Store(r.mono(end))
	rj.fenceEnd.Store(&end)
	rj.margin.Store(int64(fenceMargin(rj.lease, r.heartbeatInterval())))
	if f := rj.onFence.Load(); f != nil {
		(*f)()
	}
}

// fenceTimes returns when rj's handler is to be stopped (its fence less the margin) and when a
// command's group must be dead (half a margin before the fence); ok is false while no lease end is
// known.
func (rj *runningJob) fenceTimes() (term, kill time.Time, ok bool) {
	end := rj.fenceEnd.Load()
	if end == nil {
		return time.Time{}, time.Time{}, false
	}
	m := time.Duration(rj.margin.Load())
	return end.Add(-m), end.Add(-m / 2), true
}

// leaseConfirmed records the fences a heartbeat renewed: part of the Runner's leaseBook.
func (r *Runner) leaseConfirmed(leases []jobq.Lease, renewed map[int64]time.Time, sent, dbNow time.Time) {
	if dbNow.IsZero() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range leases {
		until, ok := renewed[l.JobID]
		if !ok {
			continue
		}
		if rj := r.held[l.Token]; rj != nil {
			r.confirmLease(rj, sent, until.Sub(dbNow))
		}
	}
}

// fenceDue reports whether rj's fence, less its margin, has passed at monotonic time now.
func (r *Runner) fenceDue(rj *runningJob, now int64) bool {
	f := rj.fence.Load()
	if f == 0 {
		return false
	}
	return now >= f-int64(fenceMargin(rj.lease, r.heartbeatInterval()))
}

// enforceFences stops every running handler whose fence is due, and marks lost every job claimed
// ahead whose fence is due (it never starts). It returns the next instant a fence falls due (zero
// when none is held).
func (r *Runner) enforceFences() time.Time {
	now := time.Now()
	m := r.mono(now)
	var stop []*runningJob
	var next int64
	confirming := r.confirming.Load()
	r.mu.Lock()
	for _, rj := range r.held {
		if rj.finishing || rj.lost || rj.completedInTx.Load() || (confirming && rj.running) {
			continue
		}
		if r.fenceDue(rj, m) {
			rj.lost = true
			rj.fenced = true
			if rj.running {
				stop = append(stop, rj)
			}
			continue
		}
		if f := rj.fence.Load(); f != 0 {
			due := f - int64(fenceMargin(rj.lease, r.heartbeatInterval()))
			if next == 0 || due < next {
				next = due
			}
		}
	}
	r.mu.Unlock()
	for _, rj := range stop {
		left := time.Duration(rj.fence.Load() - m)
		// A command's process group must be dead before the lease can end: SIGKILL comes at
		// the latest half a margin before it.
		by := now.Add(left - fenceMargin(rj.lease, r.heartbeatInterval())/2)
		rj.stopBy.Store(&by)
		r.metrics.fenced.WithLabelValues(rj.job.Task).Inc()
		r.log.Warn("handler stopped: its lease was not renewed in time (self-fencing)",
			append(jobAttrs(rj.job), "leaseLeftMs", ms(left), "marginMs", ms(fenceMargin(rj.lease, r.heartbeatInterval())))...)
		rj.cancel(ErrLeaseUnconfirmed)
	}
	if next == 0 {
		return time.Time{}
	}
	return r.epoch.Add(time.Duration(next))
}

// fenceStarted wakes the fence watcher for a job just started when its fence, less its margin,
// falls due before the watcher's next look (a lease shorter than fenceTick and its margin), or
// while the watcher is looking (it may have missed the job). Waking it for every job made it scan
// every held job as often as jobs started: 4 % of a draining runner's CPU, measured.
func (r *Runner) fenceStarted(rj *runningJob) {
	look := r.fenceLook.Load()
	if look == 0 || rj.fence.Load()-rj.margin.Load() < look {
		r.fenceMoved()
	}
}

// fenceMoved wakes the fence watcher: a fence falls due before it looks next. It never blocks.
func (r *Runner) fenceMoved() {
	select {
	case r.fenceWake <- struct{}{}:
	default:
	}
}

// watchFences enforces the fences until done closes: at each fence as it falls due, at least
// every fenceTick, and at once when woken. A wake-up much later than asked shows that the
// process was paused (SIGSTOP, a frozen VM): it is logged after the fences are enforced.
func (r *Runner) watchFences(done <-chan struct{}) {
	t := time.NewTimer(fenceTick)
	defer t.Stop()
	asked := time.Now().Add(fenceTick)
	for {
		select {
		case <-done:
			return
		case <-t.C:
		case <-r.fenceWake:
		}
		r.fenceLook.Store(0) // a job started from now on wakes the watcher again
		next := r.enforceFences()
		now := time.Now()
		if late := now.Sub(asked); late > time.Second {
			r.log.Warn("the runner was paused (the monotonic clock jumped): fences checked first", "pausedMs", ms(late))
		}
		wait := fenceTick
		if !next.IsZero() {
			wait = min(wait, max(next.Sub(now), 0))
		}
		asked = now.Add(wait)
		r.fenceLook.Store(max(r.mono(asked), 1))
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(wait)
	}
}

// stopGrace is how long a stopped command's process group may take between SIGTERM and SIGKILL:
// grace, but when the runner fenced the job (ErrLeaseUnconfirmed), no later than half a margin
// before its lease can end.
func stopGrace(ctx context.Context, grace time.Duration) time.Duration {
	rj, _ := ctx.Value(runningJobKey{}).(*runningJob)
	if rj == nil {
		return grace
	}
	if by := rj.stopBy.Load(); by != nil {
		return min(grace, max(time.Until(*by), 0))
	}
	return grace
}
