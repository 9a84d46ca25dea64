package runner

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/engine"
)

func TestClaimPositionsStartOneClaimBackMoveForwardAndARescanStartsOneClaimFromTheHead(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	job := func(queue string, prio int16, at time.Duration, id int64) jobq.Job {
		return jobq.Job{Queue: queue, Priority: prio, RunAt: t0.Add(at), ID: id}
	}
	p := newClaimPositions(time.Second)
	require.Nil(t, p.next(), "the first claim starts from the head")
	p.claimed([]jobq.Job{job("a", 0, 0, 7), job("a", 0, 0, 9), job("b", 1, -time.Second, 3)})
	require.Nil(t, p.next(), "after one claim there is no position one claim back: from the head again")
	require.Nil(t, p.current(), "nothing is published before a position exists")

	p.claimed([]jobq.Job{job("a", 0, time.Second, 12), job("b", 1, 0, 4)})
	want := map[string]engine.ClaimPosition{
		"a": {Priority: 0, RunAt: t0, ID: 9},
		"b": {Priority: 1, RunAt: t0.Add(-time.Second), ID: 3},
	}
	require.Equal(t, want, p.next(), "the next claim starts after the last job the claim before the last took")
	require.Equal(t, want, p.current(), "the probe sees the same positions")

	// A claim from the head that took only jobs before the last position (passed over) marks the
	// last job it took, in the order the claim returned them: the start may move back, so that
	// claims walk once more over entries they had passed, and never past a waiting job. A claim
	// that took nothing in a queue leaves it where it was.
	p.claimed([]jobq.Job{job("a", -1, 0, 20), job("a", 0, 0, 1)})
	require.Equal(t, engine.ClaimPosition{Priority: 0, RunAt: t0.Add(time.Second), ID: 12}, p.next()["a"], "a's start moves one claim on")
	require.Equal(t, want["b"], p.next()["b"], "b's start stays")
	p.claimed([]jobq.Job{job("a", 0, 2*time.Second, 30)})
	require.Equal(t, engine.ClaimPosition{Priority: 0, RunAt: t0, ID: 1}, p.next()["a"], "one claim back is the passed-over job: the start moves back to it")
	require.Equal(t, p.next(), p.current(), "the published copy follows")

	p.rescan()
	require.Nil(t, p.next(), "after a rescan the next claim starts from the head")
	require.NotNil(t, p.next(), "and only that one")
}

func TestClaimPositionsWithANegativeIntervalAlwaysStartFromTheHead(t *testing.T) {
	p := newClaimPositions(-1)
	p.claimed([]jobq.Job{{Queue: "a", RunAt: time.Now(), ID: 1}})
	p.claimed([]jobq.Job{{Queue: "a", RunAt: time.Now(), ID: 2}})
	require.Nil(t, p.next())
}

// fakePassedOver answers the probe's questions from a script, recording the positions asked about.
type fakePassedOver struct {
	mu      sync.Mutex
	answers []error // nil: found; errNotFound: not found; else: the call fails
	asked   []map[string]engine.ClaimPosition
}

var errNotFound = errors.New("not found")

func (f *fakePassedOver) ClaimPassedOver(_ context.Context, _, _ []string, after map[string]engine.ClaimPosition) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, after)
	if len(f.answers) == 0 {
		return false, nil
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	switch a {
	case nil:
		return true, nil
	case errNotFound:
		return false, nil
	default:
		return false, a
	}
}

func (f *fakePassedOver) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.asked)
}

func TestThePassedOverProbeWantsAClaimFromTheHeadWhenTheEngineFindsAJobOrFails(t *testing.T) {
	positions := newClaimPositions(time.Millisecond)
	engine := &fakePassedOver{answers: []error{errNotFound, nil, errNotFound, errors.New("connection refused")}}
	var woken sync.WaitGroup
	woken.Add(2)
	var wakes int
	var mu sync.Mutex
	probe := &passedOverProbe{engine: engine, queues: []string{"a"}, every: time.Millisecond, positions: positions,
		wake: func() {
			mu.Lock()
			defer mu.Unlock()
			wakes++
			if wakes <= 2 {
				woken.Done()
			}
		},
		rescans: prometheus.NewCounter(prometheus.CounterOpts{Name: "rescans"}),
		log:     slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); probe.run(ctx) }()

	time.Sleep(20 * time.Millisecond)
	require.Zero(t, engine.calls(), "no question is asked before a claim took a job")
	positions.claimed([]jobq.Job{{Queue: "a", RunAt: time.Now(), ID: 5}})
	positions.claimed([]jobq.Job{{Queue: "a", RunAt: time.Now(), ID: 6}})
	woken.Wait() // a found job, then a failed call
	cancel()
	<-done
	require.GreaterOrEqual(t, engine.calls(), 4)
	require.Equal(t, int64(5), engine.asked[0]["a"].ID, "the probe asks about the published positions")
	require.Nil(t, positions.next(), "the claim after a wake starts from the head")
	var m dto.Metric
	require.NoError(t, probe.rescans.Write(&m))
	require.GreaterOrEqual(t, m.GetCounter().GetValue(), 2.0, "each rescan wanted is counted")
}

func TestThePassedOverProbeDoesNotRunWithANegativeInterval(t *testing.T) {
	engine := &fakePassedOver{}
	probe := &passedOverProbe{engine: engine, every: -1, positions: newClaimPositions(-1), wake: func() {},
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	probe.run(context.Background()) // returns at once
	require.Zero(t, engine.calls())
}
