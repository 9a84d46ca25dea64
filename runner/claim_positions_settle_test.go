package runner_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// A job that commits late, after three claims that each took a job enqueued after it began (two
// enqueuers whose commits crossed, slowed down here), is taken at its own wake-up. Its run_at is
// its transaction's start, so it sorts before all three; runners that started one claim back
// began after the second claim's job and passed it over, and it waited for the passed-over probe
// (RescanInterval): at eight enqueuers about one job in 300 did (docs/wake-up.md). The runner
// here polls once a minute and probes once an hour, so only a claim that starts far enough back
// takes the job in time. Its positions settle back an hour (runner.SetPositionSettle) rather
// than 250 ms, so that the machine's load cannot stretch the crossing past the settle. Run with
// JOBQ_TEST_SETTLE=0 (one claim back, as before) and it fails.
func TestRunnerTakesAJobCommittedLateAcrossSeveralClaims(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.define(t, "crossing")

	cfg := b.config()
	cfg.PollInterval = time.Minute
	cfg.RescanInterval = time.Hour
	cfg.NoLeader = true
	r, err := runner.New(cfg)
	require.NoError(t, err)
	settle := time.Hour
	if os.Getenv("JOBQ_TEST_SETTLE") == "0" {
		settle = 0
	}
	runner.SetPositionSettle(r, settle)
	var mu sync.Mutex
	started := map[int64]bool{}
	r.HandleFunc("crossing", func(ctx context.Context, job *jobq.Job) error {
		mu.Lock()
		started[job.ID] = true
		mu.Unlock()
		return nil
	})
	start(t, r)
	hasStarted := func(id int64) bool {
		mu.Lock()
		defer mu.Unlock()
		return started[id]
	}

	// The late enqueue begins first.
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	late, err := jobq.NewClient(tx).Enqueue(ctx, "crossing", nil, jobq.EnqueueOptions{})
	require.NoError(t, err)

	// Three jobs enqueued after it, each taken by a claim of its own.
	for range 3 {
		id := b.enqueue(t, "crossing", nil, jobq.EnqueueOptions{})
		waitFor(t, waitCeiling, "a job enqueued after the late one started", func() bool { return hasStarted(id) })
	}
	require.False(t, hasStarted(late), "the late job is not committed yet")

	require.NoError(t, tx.Commit(ctx))
	waitFor(t, waitCeiling, "the late job started without a poll or a rescan", func() bool { return hasStarted(late) })
}
