package runner

import (
	"sync/atomic"
	"time"
)

// aheadControl decides how many jobs the claim loop claims beyond the free handler slots
// (Config.ClaimAhead). It claims ahead only what keeps the handlers fed across one claim's
// round trip: the target doubles when a handler found no job waiting although the last claim
// got all it asked for (the queue had more), and drops to zero when no handler returned for a
// whole ClaimAhead (handlers run long: a job claimed ahead would only wait). The claim loop
// alone calls ahead; handlers report through starved.
type aheadControl struct {
	target  int
	starved atomic.Bool // a handler returned and found no job claimed ahead
	full    bool        // the last claim got every job it asked for
}

// ahead returns the number of jobs to claim beyond the free slots, at most maxClaimBatch.
// sinceReturn is how long ago a handler last returned; window is Config.ClaimAhead.
func (a *aheadControl) ahead(sinceReturn, window time.Duration, concurrency int) int {
	starved := a.starved.Swap(false)
	switch {
	case window <= 0 || sinceReturn > window:
		a.target = 0
	case starved && a.full:
		a.target = min(max(2*a.target, concurrency), maxClaimBatch)
	}
	return a.target
}

// claimed records whether the last claim got every job it asked for.
func (a *aheadControl) claimed(full bool) { a.full = full }
