package runner

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A job that starts wakes the fence watcher only when its fence, less its margin, falls due
// before the watcher's next look, or while the watcher is looking (its next look unknown): the
// watcher scans every held job each time it wakes.
func TestAStartedJobWakesTheFenceWatcherOnlyWhenItsFenceComesFirst(t *testing.T) {
	r := &Runner{fenceWake: make(chan struct{}, 1)}
	rj := &runningJob{}
	rj.fence.Store(10_000)
	rj.margin.Store(1_000) // due at 9,000

	for _, c := range []struct {
		look  int64
		woken bool
		why   string
	}{
		{5_000, false, "due at 9,000, the watcher looks at 5,000: not woken"},
		{9_000, false, "due when the watcher looks: not woken"},
		{9_001, true, "due before the watcher looks: woken"},
		{0, true, "while the watcher looks: woken, it may have missed the job"},
	} {
		r.fenceLook.Store(c.look)
		r.fenceStarted(rj)
		woken := false
		select {
		case <-r.fenceWake:
			woken = true
		default:
		}
		require.Equal(t, c.woken, woken, c.why)
	}
}
