package runner

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// aheadControl takes no dependency at all: the claim loop gives it how long ago a handler
// returned, the window and the concurrency, and reports each claim's fullness.
func TestAheadControl(t *testing.T) {
	t.Parallel()
	const window, concurrency = 100 * time.Millisecond, 4

	t.Run("DoublesWhileHandlersStarveAndTheQueueHasMore", func(t *testing.T) {
		t.Parallel()
		var a aheadControl
		require.Zero(t, a.ahead(time.Millisecond, window, concurrency), "nothing ahead until a handler starves")
		var got []int
		for range 4 {
			a.claimed(true)
			a.starved.Store(true)
			got = append(got, a.ahead(time.Millisecond, window, concurrency))
		}
		require.Equal(t, []int{4, 8, 16, 32}, got)
		require.Equal(t, 32, a.ahead(time.Millisecond, window, concurrency), "kept while no handler starves")
		a.claimed(false)
		a.starved.Store(true)
		require.Equal(t, 32, a.ahead(time.Millisecond, window, concurrency), "not raised when the queue ran dry")
	})

	t.Run("DropsToZeroWhenHandlersRunLong", func(t *testing.T) {
		t.Parallel()
		a := aheadControl{target: 64}
		require.Zero(t, a.ahead(2*window, window, concurrency))
	})

	t.Run("BoundedByTheClaimBatch", func(t *testing.T) {
		t.Parallel()
		a := aheadControl{target: maxClaimBatch - 1, full: true}
		a.starved.Store(true)
		require.Equal(t, maxClaimBatch, a.ahead(time.Millisecond, window, concurrency))
	})

	t.Run("OffWithANegativeWindow", func(t *testing.T) {
		t.Parallel()
		a := aheadControl{target: 8, full: true}
		a.starved.Store(true)
		require.Zero(t, a.ahead(0, -1, concurrency))
	})
}
