package runner

import (
	"time"

	"github.com/jobqdev/jobq"
)

// DefaultRescanInterval is used when Config.RescanInterval is zero.
const DefaultRescanInterval = time.Second

// claimPositions keeps, for each queue, the place in claim order where this runner's claims
// have got to, so that the next claim starts there (jobq.Client.ClaimAfter) instead of walking
// again over the jobs claimed since the last vacuum. Once per interval a claim starts from the
// head of every queue, and takes the jobs that were passed over. It belongs to the claim loop.
type claimPositions struct {
	every    time.Duration // longest time between claims from the head; negative: always from the head
	lastFull time.Time     // when the last claim from the head started; zero: none yet
	at       map[string]jobq.ClaimPosition
}

func newClaimPositions(every time.Duration) *claimPositions {
	return &claimPositions{every: every, at: make(map[string]jobq.ClaimPosition)}
}

// next returns the positions the claim starting at now should start from, or nil when it must
// claim from the head of every queue.
func (p *claimPositions) next(now time.Time) map[string]jobq.ClaimPosition {
	if p.every < 0 || p.lastFull.IsZero() || now.Sub(p.lastFull) >= p.every || len(p.at) == 0 {
		return nil
	}
	return p.at
}

// claimed records a claim that started at now, from the head when after was nil, and the jobs
// it took: each queue's position moves to the last of them, never back.
func (p *claimPositions) claimed(now time.Time, after map[string]jobq.ClaimPosition, jobs []jobq.Job) {
	if after == nil {
		p.lastFull = now
	}
	for i := range jobs {
		pos := jobq.PositionOf(&jobs[i])
		if old, ok := p.at[jobs[i].Queue]; !ok || old.Before(pos) {
			p.at[jobs[i].Queue] = pos
		}
	}
}

// rescan makes the next claim start from the head of every queue.
func (p *claimPositions) rescan() { p.lastFull = time.Time{} }
