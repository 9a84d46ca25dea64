package runner_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// enqueueMany enqueues n jobs of task in one statement.
func (b *testBundle) enqueueMany(t *testing.T, task string, n int, opts jobq.EnqueueOptions) []int64 {
	t.Helper()
	specs := make([]jobq.JobSpec, n)
	for i := range specs {
		specs[i] = jobq.JobSpec{Task: task, EnqueueOptions: opts}
	}
	ids, err := b.client.EnqueueMany(context.Background(), specs)
	require.NoError(t, err)
	return ids
}

// A runner at its defaults drains a busy queue holding more leases than it has handler slots:
// it claims ahead of its free slots, so a handler that returns starts the next job at once.
func TestClaimAheadHoldsMoreJobsThanSlotsOnABusyQueue(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "fast")
	r, err := runner.New(b.config())
	require.NoError(t, err)
	r.HandleFunc("fast", func(ctx context.Context, job *jobq.Job) error { return nil })
	start(t, r)

	b.enqueueMany(t, "fast", 20000, jobq.EnqueueOptions{})
	var most atomic.Int64
	waitFor(t, 60*time.Second, "every job done", func() bool {
		held := b.count(t, `SELECT count(*) FROM jobq.jobs WHERE state = 'running' AND locked_by = $1`, r.WorkerID())
		if int64(held) > most.Load() {
			most.Store(int64(held))
		}
		return b.count(t, `SELECT count(*) FROM jobq.job_history WHERE task = 'fast' AND state = 'succeeded'`) == 20000
	})
	require.Greater(t, most.Load(), int64(runner.DefaultConcurrency),
		"at some point the runner held more leases than its %d slots", runner.DefaultConcurrency)
	require.Zero(t, b.count(t, `SELECT count(*) FROM jobq.job_history WHERE task = 'fast' AND attempt <> 1`),
		"every job ran once")
}

// claimedAheadBehindABlockedSlot starts a runner with one slot and warms it with fast jobs, then
// enqueues a job that blocks its slot and, behind it, five fast jobs, and waits until the runner
// has claimed all six: the five wait in the runner for the slot. It returns the runner's stop,
// the ids of the five and the release of the blocked handler.
func claimedAheadBehindABlockedSlot(t *testing.T, b *testBundle) (r *runner.Runner, stop func() error, ahead []int64, release func()) {
	t.Helper()
	b.define(t, "fast", "block")
	cfg := b.config()
	cfg.Concurrency = 1
	cfg.ClaimAhead = time.Second // claims ahead while handlers return within a second; jobs wait ahead at most 10 s
	r, err := runner.New(cfg)
	require.NoError(t, err)
	released := make(chan struct{})
	r.HandleFunc("fast", func(ctx context.Context, job *jobq.Job) error { return nil })
	r.HandleFunc("block", func(ctx context.Context, job *jobq.Job) error {
		select {
		case <-released:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	})
	stop = start(t, r)
	warm := b.enqueueMany(t, "fast", 500, jobq.EnqueueOptions{})
	b.waitState(t, warm[len(warm)-1], "succeeded")

	// One statement: the blocking job first (priority -1), then the five behind it.
	_, err = b.client.EnqueueMany(context.Background(), []jobq.JobSpec{
		{Task: "block", EnqueueOptions: jobq.EnqueueOptions{Priority: -1}},
		{Task: "fast"}, {Task: "fast"}, {Task: "fast"}, {Task: "fast"}, {Task: "fast"},
	})
	require.NoError(t, err)
	waitFor(t, waitCeiling, "the blocking job and the five behind it claimed by the runner", func() bool {
		return b.count(t, `SELECT count(*) FROM jobq.jobs WHERE state = 'running' AND locked_by = $1`, r.WorkerID()) == 6
	})
	rows, err := b.admin.Query(context.Background(), `SELECT id FROM jobq.jobs WHERE task = 'fast' ORDER BY id`)
	require.NoError(t, err)
	for rows.Next() {
		var id int64
		require.NoError(t, rows.Scan(&id))
		ahead = append(ahead, id)
	}
	require.NoError(t, rows.Err())
	require.Len(t, ahead, 5)
	var once atomic.Bool
	return r, stop, ahead, func() {
		if once.CompareAndSwap(false, true) {
			close(released)
		}
	}
}

// Jobs claimed ahead never wait behind a long handler for longer than the bound (ten times
// ClaimAhead): they go back to the queue without using an attempt, and another runner runs them
// while the first runner's only slot is still busy.
func TestClaimAheadHandsBackJobsStuckBehindALongHandler(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, _, ahead, release := claimedAheadBehindABlockedSlot(t, b)
	defer release()

	other, err := runner.New(b.config())
	require.NoError(t, err)
	other.HandleFunc("fast", func(ctx context.Context, job *jobq.Job) error { return nil })
	start(t, other)
	for _, id := range ahead {
		row := b.waitState(t, id, "succeeded")
		require.Equal(t, 1, row.Attempt, "the hand-back did not use an attempt")
		require.Equal(t, other.WorkerID(), row.LockedBy, "run by the other runner")
	}
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'block' AND state = 'running'`),
		"the long handler still runs")
	require.Len(t, b.logs.lines("handing back jobs claimed ahead"), 1)
}

// A runner that stops hands back its jobs claimed ahead at once, before it waits for its running
// handlers, without using their attempts.
func TestClaimAheadJobsGoBackAtShutdown(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, stop, ahead, release := claimedAheadBehindABlockedSlot(t, b)
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	for _, id := range ahead {
		row := b.waitState(t, id, "queued")
		require.Equal(t, 0, row.Attempt, "the hand-back did not use an attempt")
	}
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'block' AND state = 'running'`),
		"the running handler is still being waited for")
	release()
	require.NoError(t, <-stopped)
	require.Equal(t, 5, b.count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'fast' AND state = 'queued'`),
		"the five stay queued for the next runner")
}
