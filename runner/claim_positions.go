package runner

import (
	"context"
	"log/slog"
	"maps"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/engine"
)

// claimPositions keeps, for each queue, the place in claim order where this runner's claims
// have got to, so that the next claim starts there (engine.Engine.ClaimAfter) instead of walking
// again over the jobs claimed since the last vacuum. A claim starts a little way back: after the
// last job of the newest claim that returned at least settle (250 ms) before, and always at least
// one claim back (after the last job of the claim before the last one). It walks the index
// entries of the jobs claimed since (they are gone from the queue), and takes the jobs that
// committed late: a job whose transaction began before another's and committed after that one
// was claimed (concurrent enqueuers; run_at is the transaction's start) sorts before the last
// claims' jobs. One claim back was enough at 200 jobs a second from two connections; with eight
// enqueuers two claims or more often took jobs while such an enqueue committed, and about one job
// in 300 waited for the passed-over probe, up to RescanInterval (docs/wake-up.md). Going back by
// time rather than by claims takes every job whose enqueuing transaction lasted less than settle,
// for a walk over settle's worth of claimed jobs.
// A claim starts from the head of every queue when there is no position yet, and when a rescan
// is wanted: the passed-over probe found a job the positions pass over, or a runner started with
// Once needs a claim from the head to know it is done. The positions belong to the claim loop;
// the probe reads the copy published after each claim, and asks for a rescan through an atomic
// flag.
type claimPositions struct {
	off       bool                                            // RescanInterval < 0: every claim from the head
	settle    time.Duration                                   // how far back in time claims start (0: one claim back)
	clock     func() time.Time                                // time.Now; tests set their own
	marks     map[string][]positionMark                       // each queue's last positions, oldest first (claim loop only)
	from      map[string]engine.ClaimPosition                 // where claims start (claim loop only)
	published atomic.Pointer[map[string]engine.ClaimPosition] // a copy of from, for the probe
	wanted    atomic.Bool                                     // the next claim starts from the head
}

// positionMark is a queue's last position after a claim that moved it, and when that claim
// returned. The job at pos began before the claim's snapshot, so before at: a job that sorts
// before pos began earlier still, and if a claim that starts settle after at cannot see it, its
// transaction has lasted longer than settle.
type positionMark struct {
	at  time.Time
	pos engine.ClaimPosition
}

// positionSettle is how far back in time the runner's claims start (claimPositions.settle).
const positionSettle = 250 * time.Millisecond

// maxPositionMarks bounds the marks kept per queue: past it the oldest go, and claims start
// fewer than settle back (thousands of claims within settle).
const maxPositionMarks = 4096

func newClaimPositions(every time.Duration) *claimPositions {
	return &claimPositions{off: every < 0, clock: time.Now, marks: make(map[string][]positionMark),
		from: make(map[string]engine.ClaimPosition)}
}

// withSettle makes claims start settle back in time (claimPositions.settle) and returns p.
func (p *claimPositions) withSettle(settle time.Duration) *claimPositions {
	p.settle = settle
	return p
}

// next returns the positions the next claim starts from, or nil when it claims from the head of
// every queue. In each queue, that is the newest mark at least settle old but never the last one
// (at least one claim back); a queue without such a mark (the runner's first claims) is claimed
// from its head.
func (p *claimPositions) next() map[string]engine.ClaimPosition {
	if p.wanted.Swap(false) || p.off {
		return nil
	}
	p.settleFrom(p.clock())
	if len(p.from) == 0 {
		return nil
	}
	return p.from
}

// settleFrom moves each queue's start to the newest mark at least settle older than now, never
// the last one, and publishes the starts when they moved.
func (p *claimPositions) settleFrom(now time.Time) {
	cutoff := now.Add(-p.settle)
	from := make(map[string]engine.ClaimPosition, len(p.marks))
	for q, marks := range p.marks {
		// Marks before the newest one old enough are never wanted again: the cutoff only grows.
		i := 0
		for i+2 < len(marks) && !marks[i+1].at.After(cutoff) {
			i++
		}
		if i > 0 {
			marks = append(marks[:0], marks[i:]...)
			p.marks[q] = marks
		}
		if len(marks) >= 2 && (!marks[0].at.After(cutoff) || len(marks) >= maxPositionMarks) {
			from[q] = marks[0].pos
		}
	}
	if !maps.Equal(from, p.from) {
		p.from = from
		c := maps.Clone(from)
		p.published.Store(&c)
	}
}

// claimed records the jobs a claim took, as it returns: in each queue it took jobs of, the last
// position moves to the last job it took, marked with the time. The claim returns each queue's
// jobs in claim order (the engine states the order; the runner never compares positions). A
// claim from the head that took only jobs passed over moves a position back: the next claims
// from it walk once more over the entries up to where the claims had got, and nothing is missed.
func (p *claimPositions) claimed(jobs []jobq.Job) {
	took := make(map[string]engine.ClaimPosition)
	for i := range jobs {
		took[jobs[i].Queue] = engine.PositionOf(&jobs[i])
	}
	now := p.clock()
	for q, pos := range took {
		marks := p.marks[q]
		if n := len(marks); n > 0 && marks[n-1].pos.ID == pos.ID {
			continue
		}
		if len(marks) >= maxPositionMarks { // thousands of claims within settle: start fewer back
			marks = append(marks[:0], marks[1:]...)
		}
		p.marks[q] = append(marks, positionMark{at: now, pos: pos})
	}
	p.settleFrom(now)
}

// rescan makes the next claim start from the head of every queue; safe from any goroutine.
func (p *claimPositions) rescan() { p.wanted.Store(true) }

// current returns the positions published by the last claim that moved one (nil: none yet);
// safe from any goroutine.
func (p *claimPositions) current() map[string]engine.ClaimPosition {
	if c := p.published.Load(); c != nil {
		return *c
	}
	return nil
}

// passedOverEngine is the engine's side of the probe: jobq.claim_passed_over. *engine.Engine
// satisfies it.
type passedOverEngine interface {
	ClaimPassedOver(ctx context.Context, queues, tasks []string, after map[string]engine.ClaimPosition) (bool, error)
}

// passedOverProbe asks the engine, once per interval, whether this runner's positioned claims
// pass over a due job, and if so wants a claim from the head and wakes the claim loop. It runs
// beside the claim loop, on a connection of its own, because the answer costs the walk over the
// index entries of claimed jobs that positioned claims avoid (with a snapshot held open, one per
// job claimed since): on the claim loop it would delay every job enqueued meanwhile. A failed
// probe wants a claim from the head too, so no job waits on an engine that does not answer.
type passedOverProbe struct {
	engine    passedOverEngine
	queues    []string
	tasks     []string // the tasks the runner's claims pass (a job of another task is none of its)
	every     time.Duration
	positions *claimPositions
	wake      func()
	rescans   prometheus.Counter // jobq_claim_rescans_total
	log       *slog.Logger
}

// run probes every interval until ctx ends; it does nothing while no claim took a job.
func (p *passedOverProbe) run(ctx context.Context) {
	if p.every < 0 {
		return
	}
	errs := newErrorLog(p.log, "claim_passed_over failed")
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		after := p.positions.current()
		if len(after) == 0 {
			continue
		}
		found, err := p.engine.ClaimPassedOver(ctx, p.queues, p.tasks, after)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			errs.failed(err)
		} else {
			errs.ok()
		}
		if err != nil || found {
			p.rescans.Inc()
			p.positions.rescan()
			p.wake()
		}
	}
}
