package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// Issue 16, point 2: while results cannot be written (here complete_jobs is refused to
// worker_runtime, while claims still work, as when a write path fails after a fault), the runner
// holds at most Config.MaxUnwrittenResults of them and claims nothing more; the metrics show it.
// Once writing works again every result is written and claiming resumes.
func TestRunnerStopsClaimingAtMaxUnwrittenResults(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "unwritten")
	ctx := context.Background()
	_, err := b.admin.Exec(ctx, `REVOKE EXECUTE ON FUNCTION jobq.complete_jobs(bigint[],uuid[],text[],text[],integer[],jsonb[]) FROM worker_runtime`)
	require.NoError(t, err)

	const limit, n = 3, 10
	cfg := b.config()
	cfg.Concurrency = 1
	cfg.ClaimAhead = -1 // one job per claim: the bound is reached exactly
	cfg.MaxUnwrittenResults = limit
	cfg.NoLeader = true
	r, err := runner.New(cfg)
	require.NoError(t, err)
	r.HandleFunc("unwritten", func(context.Context, *jobq.Job) error { return nil })
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = b.enqueue(t, "unwritten", map[string]int{"i": i}, jobq.EnqueueOptions{})
	}
	start(t, r)

	waitFor(t, waitCeiling, "claims held back", func() bool {
		v, _ := metricValue(t, r, "jobq_claims_held_back_total")
		return v > 0
	})
	time.Sleep(1500 * time.Millisecond) // more polls: none may claim
	v, _ := metricValue(t, r, "jobq_results_unwritten")
	require.Equal(t, float64(limit), v, "jobq_results_unwritten")
	require.Equal(t, limit, b.count(t, `SELECT count(*) FROM jobq.jobs WHERE state = 'running'`),
		"the runner claimed exactly as many jobs as it may hold unwritten results")
	require.Equal(t, n-limit, b.count(t, `SELECT count(*) FROM jobq.jobs WHERE state = 'queued'`))

	_, err = b.admin.Exec(ctx, `GRANT EXECUTE ON FUNCTION jobq.complete_jobs(bigint[],uuid[],text[],text[],integer[],jsonb[]) TO worker_runtime`)
	require.NoError(t, err)
	waitFor(t, waitCeiling, "every job succeeded", func() bool {
		return b.count(t, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded' AND id = ANY($1)`, ids) == n
	})
	require.Equal(t, n, b.count(t, `SELECT count(*) FROM jobq.job_history WHERE attempt = 1 AND id = ANY($1)`, ids),
		"each job ran once")
}
