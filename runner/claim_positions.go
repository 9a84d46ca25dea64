package runner

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/jobqdev/jobq"
)

// DefaultRescanInterval is used when Config.RescanInterval is zero.
const DefaultRescanInterval = time.Second

// claimPositions keeps, for each queue, the place in claim order where this runner's claims
// have got to, so that the next claim starts there (jobq.Client.ClaimAfter) instead of walking
// again over the jobs claimed since the last vacuum. A claim starts from the head of every queue
// when there is no position yet, and when a rescan is wanted: the passed-over probe found a job
// the positions pass over, or a runner started with Once needs a claim from the head to know it
// is done. The positions belong to the claim loop; the probe reads the copy published after each
// claim, and asks for a rescan through an atomic flag.
type claimPositions struct {
	off       bool                                          // RescanInterval < 0: every claim from the head
	at        map[string]jobq.ClaimPosition                 // claim loop only
	published atomic.Pointer[map[string]jobq.ClaimPosition] // a copy of at, for the probe
	wanted    atomic.Bool                                   // the next claim starts from the head
}

func newClaimPositions(every time.Duration) *claimPositions {
	return &claimPositions{off: every < 0, at: make(map[string]jobq.ClaimPosition)}
}

// next returns the positions the next claim starts from, or nil when it claims from the head of
// every queue.
func (p *claimPositions) next() map[string]jobq.ClaimPosition {
	if p.wanted.Swap(false) || p.off || len(p.at) == 0 {
		return nil
	}
	return p.at
}

// claimed records the jobs a claim took: each queue's position moves to the last of them, never
// back (a claim from the head may take a passed-over job before the position).
func (p *claimPositions) claimed(jobs []jobq.Job) {
	moved := false
	for i := range jobs {
		pos := jobq.PositionOf(&jobs[i])
		if old, ok := p.at[jobs[i].Queue]; !ok || old.Before(pos) {
			p.at[jobs[i].Queue] = pos
			moved = true
		}
	}
	if moved {
		c := make(map[string]jobq.ClaimPosition, len(p.at))
		for q, pos := range p.at {
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
