package runner

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/jobqdev/jobq"
)

// claimPositions keeps, for each queue, the place in claim order where this runner's claims
// have got to, so that the next claim starts there (jobq.Client.ClaimAfter) instead of walking
// again over the jobs claimed since the last vacuum. A claim starts one claim back: from the last
// job the claim before the last one took. It walks the index entries of one claim (the jobs it
// took are gone from the queue), and takes the jobs that committed late by a moment: a job whose
// transaction began before another's and committed after that one was claimed (two enqueuers at
// once) sorts before the last claim's jobs, and at 200 jobs a second from two connections that
// happened to one job in 500 (each waited for the probe, up to a second). A claim starts from the
// head of every queue when there is no position yet, and when a rescan is wanted: the
// passed-over probe found a job the positions pass over, or a runner started with Once needs a
// claim from the head to know it is done. The positions belong to the claim loop; the probe reads
// the copy published after each claim, and asks for a rescan through an atomic flag.
type claimPositions struct {
	off       bool                                          // RescanInterval < 0: every claim from the head
	last      map[string]jobq.ClaimPosition                 // the last job claimed in each queue (claim loop only)
	from      map[string]jobq.ClaimPosition                 // where claims start: last, one claim back (claim loop only)
	published atomic.Pointer[map[string]jobq.ClaimPosition] // a copy of from, for the probe
	wanted    atomic.Bool                                   // the next claim starts from the head
}

func newClaimPositions(every time.Duration) *claimPositions {
	return &claimPositions{off: every < 0, last: make(map[string]jobq.ClaimPosition), from: make(map[string]jobq.ClaimPosition)}
}

// next returns the positions the next claim starts from, or nil when it claims from the head of
// every queue.
func (p *claimPositions) next() map[string]jobq.ClaimPosition {
	if p.wanted.Swap(false) || p.off || len(p.from) == 0 {
		return nil
	}
	return p.from
}

// claimed records the jobs a claim took. In each queue where it took a job after the last
// position, the last position moves to the last job it took, and the start moves to where the
// last position was; positions never move back (a claim from the head may take a passed-over job
// before them).
func (p *claimPositions) claimed(jobs []jobq.Job) {
	took := make(map[string]jobq.ClaimPosition)
	for i := range jobs {
		pos := jobq.PositionOf(&jobs[i])
		if old, ok := took[jobs[i].Queue]; !ok || old.Before(pos) {
			took[jobs[i].Queue] = pos
		}
	}
	moved := false
	for q, pos := range took {
		old, ok := p.last[q]
		if ok && !old.Before(pos) {
			continue
		}
		if ok {
			p.from[q] = old
			moved = true
		}
		p.last[q] = pos
	}
	if moved {
		c := make(map[string]jobq.ClaimPosition, len(p.from))
		for q, pos := range p.from {
			c[q] = pos
		}
		p.published.Store(&c)
	}
}

// rescan makes the next claim start from the head of every queue; safe from any goroutine.
func (p *claimPositions) rescan() { p.wanted.Store(true) }

// current returns the positions published by the last claim that moved one (nil: none yet);
// safe from any goroutine.
func (p *claimPositions) current() map[string]jobq.ClaimPosition {
	if c := p.published.Load(); c != nil {
		return *c
	}
	return nil
}

// passedOverEngine is the engine's side of the probe: jobq.claim_passed_over. *jobq.Client
// satisfies it.
type passedOverEngine interface {
	ClaimPassedOver(ctx context.Context, queues []string, after map[string]jobq.ClaimPosition) (bool, error)
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
		found, err := p.engine.ClaimPassedOver(ctx, p.queues, after)
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
