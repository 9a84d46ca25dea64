package runner

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/engine"
)

// Claims start after the last job of the newest claim that returned at least settle before, never
// after the last claim's: a job whose transaction began before the jobs of several claims and
// lasted less than settle is still ahead of the start.
func TestClaimPositionsStartSettleBackInTime(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	now := t0
	p := newClaimPositions(time.Second).withSettle(250 * time.Millisecond)
	p.clock = func() time.Time { return now }
	pos := func(id int64) engine.ClaimPosition { return engine.ClaimPosition{RunAt: t0, ID: id} }
	claim := func(at time.Duration, ids ...int64) {
		now = t0.Add(at)
		var jobs []jobq.Job
		for _, id := range ids {
			jobs = append(jobs, jobq.Job{Queue: "a", RunAt: t0, ID: id})
		}
		p.claimed(jobs)
	}
	at := func(d time.Duration) map[string]engine.ClaimPosition {
		now = t0.Add(d)
		return p.next()
	}

	claim(0, 1, 2)
	claim(10*time.Millisecond, 3)
	claim(20*time.Millisecond, 4, 5)
	require.Nil(t, at(30*time.Millisecond), "three claims within settle, none settle old: from the head")
	require.Nil(t, p.current(), "nothing published while claims start from the head")

	require.Equal(t, map[string]engine.ClaimPosition{"a": pos(3)}, at(260*time.Millisecond),
		"after the newest claim that returned settle before: the one at 10 ms")
	require.Equal(t, p.next(), p.current(), "the probe sees the same start")

	require.Equal(t, map[string]engine.ClaimPosition{"a": pos(3)}, at(time.Second),
		"never after the last claim's jobs: one claim back at least")

	claim(time.Second, 6)
	require.Equal(t, map[string]engine.ClaimPosition{"a": pos(5)}, p.current(), "a claim moves the start it publishes")
	claim(1100*time.Millisecond, 7)
	require.Equal(t, map[string]engine.ClaimPosition{"a": pos(5)}, at(1200*time.Millisecond),
		"the claims at 1 s and 1.1 s are not settle old")
	require.Equal(t, map[string]engine.ClaimPosition{"a": pos(6)}, at(1300*time.Millisecond), "the one at 1 s is")

	claim(1400*time.Millisecond, 2, 7)
	require.Equal(t, map[string]engine.ClaimPosition{"a": pos(6)}, at(2*time.Second),
		"a claim that took nothing after the last position moves nothing")

	p.rescan()
	require.Nil(t, p.next(), "after a rescan the next claim starts from the head")
	require.Equal(t, map[string]engine.ClaimPosition{"a": pos(6)}, p.next(), "and only that one")
}

// Thousands of claims within settle: past maxPositionMarks the oldest marks go and claims start
// after the oldest kept, rather than from the head.
func TestClaimPositionsKeepABoundedNumberOfMarks(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	p := newClaimPositions(time.Second).withSettle(time.Hour)
	p.clock = func() time.Time { return now }
	for id := range int64(maxPositionMarks + 10) {
		p.claimed([]jobq.Job{{Queue: "a", RunAt: now, ID: id + 1}})
	}
	require.Len(t, p.marks["a"], maxPositionMarks)
	require.Equal(t, int64(11), p.next()["a"].ID, "after the oldest mark kept")
}
