package runner

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
)

func TestClaimPositionsStartFromTheHeadFirstAndOncePerInterval(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	p := newClaimPositions(time.Second)
	require.Nil(t, p.next(t0), "the first claim starts from the head")
	job := func(queue string, prio int16, at time.Duration, id int64) jobq.Job {
		return jobq.Job{Queue: queue, Priority: prio, RunAt: t0.Add(at), ID: id}
	}
	p.claimed(t0, nil, []jobq.Job{job("a", 0, 0, 7), job("a", 0, 0, 9), job("b", 1, -time.Second, 3)})
	after := p.next(t0.Add(999 * time.Millisecond))
	require.Equal(t, map[string]jobq.ClaimPosition{
		"a": {Priority: 0, RunAt: t0, ID: 9},
		"b": {Priority: 1, RunAt: t0.Add(-time.Second), ID: 3},
	}, after, "within the interval a claim starts after the last job claimed in each queue")

	// A claim after the positions that takes a job sorting before one (a higher priority) does
	// not move that position back.
	p.claimed(t0.Add(time.Millisecond), after, []jobq.Job{job("a", -1, 0, 20), job("b", 1, 0, 4)})
	require.Equal(t, jobq.ClaimPosition{Priority: 0, RunAt: t0, ID: 9}, p.at["a"], "a position never moves back")
	require.Equal(t, jobq.ClaimPosition{Priority: 1, RunAt: t0, ID: 4}, p.at["b"], "a position moves forward")

	require.Nil(t, p.next(t0.Add(time.Second)), "one interval after the last claim from the head, the next starts there")
	p.claimed(t0.Add(time.Second), nil, nil)
	require.NotNil(t, p.next(t0.Add(1500*time.Millisecond)), "a claim from the head that took nothing keeps the positions")
	p.rescan()
	require.Nil(t, p.next(t0.Add(1500*time.Millisecond)), "rescan makes the next claim start from the head")
}

func TestClaimPositionsWithANegativeIntervalAlwaysStartFromTheHead(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	p := newClaimPositions(-1)
	p.claimed(t0, nil, []jobq.Job{{Queue: "a", RunAt: t0, ID: 1}})
	require.Nil(t, p.next(t0))
}
