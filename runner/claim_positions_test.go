package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// A runner's claims start where its last ones got to in each queue, so they pass over a job
// that commits late with an earlier run_at (a long transaction's enqueue: run_at is the
// transaction's start). The claim from the head that the runner makes at least once per
// RescanInterval takes it while the queue is still saturated, not after the backlog drains.
func TestRunnerClaimsAJobCommittedLateWithinTheRescanIntervalWhileTheQueueIsSaturated(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	b.define(t, "backlog", "late")

	// The long transaction starts first: the job it enqueues has the oldest run_at of all.
	tx, err := b.admin.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	var lateID int64
	require.NoError(t, tx.QueryRow(ctx, `SELECT jobq.enqueue('late')`).Scan(&lateID))

	const backlog = 20000
	_, err = b.admin.Exec(ctx, `SELECT jobq.enqueue_many((SELECT jsonb_agg(jsonb_build_object('task', 'backlog'))
		FROM generate_series(1, $1)))`, backlog)
	require.NoError(t, err)

	cfg := b.config()
	cfg.Concurrency = 4
	cfg.RescanInterval = 300 * time.Millisecond
	r, err := runner.New(cfg)
	require.NoError(t, err)
	r.HandleFunc("backlog", func(ctx context.Context, job *jobq.Job) error {
		time.Sleep(5 * time.Millisecond) // at most 800 jobs a second: the backlog lasts 25 s or more
		return nil
	})
	r.HandleFunc("late", func(ctx context.Context, job *jobq.Job) error { return nil })
	start(t, r)

	// The runner claims from the head once, then after its position, past the late job's place.
	waitFor(t, waitCeiling, "500 backlog jobs claimed", func() bool {
		return b.count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'backlog' AND state = 'queued'`) <= backlog-500
	})
	committed := dbNow(t, b.admin)
	require.NoError(t, tx.Commit(ctx))

	var claimedAt time.Time
	waitFor(t, waitCeiling, "the late job claimed", func() bool {
		err := b.admin.QueryRow(ctx, `SELECT coalesce(j.claimed_at, h.claimed_at)
			FROM (SELECT $1::bigint AS id) x
			LEFT JOIN jobq.jobs j ON j.id = x.id AND j.state = 'running'
			LEFT JOIN jobq.job_history h ON h.id = x.id`, lateID).Scan(&claimedAt)
		return err == nil && !claimedAt.IsZero()
	})
	waiting := b.count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'backlog' AND state = 'queued'`)
	require.Positive(t, waiting, "the late job was claimed while backlog jobs still waited")
	// RescanInterval, plus a poll interval and slack for a loaded machine: far less than the
	// 25 seconds or more the backlog takes to drain.
	require.Less(t, claimedAt.Sub(committed), 5*time.Second, "the late job waited at most about one rescan interval")
}
