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

	woken := func() bool {
		select {
		case <-r.fenceWake:
			return true
		default:
			return false
		}
	}
	r.fenceLook.Store(5_000)
	r.fenceStarted(rj)
	require.False(t, woken(), "due at 9,000, the watcher looks at 5,000: not woken")
	r.fenceLook.Store(9_000)
	r.fenceStarted(rj)
	require.False(t, woken(), "due when the watcher looks: not woken")
	r.fenceLook.Store(9_001)
	r.fenceStarted(rj)
	require.True(t, woken(), "due before the watcher looks: woken")
	r.fenceLook.Store(0)
	r.fenceStarted(rj)
	require.True(t, woken(), "while the watcher looks: woken, it may have missed the job")
}
