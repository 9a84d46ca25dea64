package sql_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/engine"
	"github.com/jobqdev/jobq/internal/testbundle"
)

// claimBatch is one Claim call of a claimer: what it asked for and what it got.
type claimBatch struct {
	Asked int
	Jobs  []jobq.Job
}

// TestClaimExactlyOnce drains 10,000 jobs with 20 claimers on 20 connections at once, each asking
// for a different batch size and completing what it got at once. Half of them claim as the runner
// does: after the position of the last job they claimed (jobq.Client.ClaimAfter), and from the
// head every fifth call and before they stop. Every job must be claimed by exactly one claimer,
// in its first attempt, and end succeeded under that claimer's lease.
func TestClaimExactlyOnce(t *testing.T) {
	t.Parallel()
	const total, claimers = 10_000, 20
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: claimers})
	b.Define(t, "drain")

	enqueued := b.EnqueueMany(t, testbundle.ManyArgs{Count: total, Spec: jobq.JobSpec{Task: "drain"}})
	require.Equal(t, total, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE state = 'queued'`))

	batchSizes := []int{1, 50, 2, 49, 3, 25, 7, 13, 31, 17, 1, 50, 5, 11, 19, 23, 29, 37, 43, 47}
	require.Len(t, batchSizes, claimers)
	workerConns := conns(t, b.WorkerPool, claimers)
	batches := make([][]claimBatch, claimers)

	errs := together(claimers, func(i int) error {
		client := engine.New(workerConns[i])
		worker := fmt.Sprintf("claimer-%02d", i)
		positioned := i%2 == 1
		after := map[string]engine.ClaimPosition{}
		for call := 0; ; call++ {
			var from map[string]engine.ClaimPosition
			if positioned && call%5 != 0 {
				from = after
			}
			jobs, err := client.ClaimAfter(b.Ctx, worker, []string{"default"}, nil, batchSizes[i], 30*time.Second, from)
			if err != nil {
				return err
			}
			batches[i] = append(batches[i], claimBatch{Asked: batchSizes[i], Jobs: jobs})
			if len(jobs) > 0 { // the claim returns its jobs in claim order: the last is the position
				after["default"] = engine.PositionOf(&jobs[len(jobs)-1])
			}
			if len(jobs) == 0 && len(from) > 0 {
				call = -1 // only a claim from the head shows the queue is empty
				continue
			}
			if len(jobs) == 0 {
				return nil
			}
			outcomes, err := client.Complete(b.Ctx, leasesOf(jobs))
			if err != nil {
				return err
			}
			if len(outcomes) != len(jobs) {
				return fmt.Errorf("%s: %d outcomes for %d leases", worker, len(outcomes), len(jobs))
			}
			for k, o := range outcomes {
				if o.JobID != jobs[k].ID || o.Outcome != "succeeded" {
					return fmt.Errorf("%s: complete of job %d (attempt %d) gave %+v", worker, jobs[k].ID, jobs[k].Attempt, o)
				}
			}
		}
	})
	requireNoErrors(t, errs, "claimer")

	claimedBy := make(map[int64]string, total)
	tokenOf := make(map[int64]string, total)
	tokens := make(map[string]bool, total)
	for i, calls := range batches {
		worker := fmt.Sprintf("claimer-%02d", i)
		for _, call := range calls {
			require.LessOrEqual(t, len(call.Jobs), call.Asked, "%s got more jobs than it asked for", worker)
			for _, j := range call.Jobs {
				prev, dup := claimedBy[j.ID]
				require.False(t, dup, "job %d claimed by %s and again by %s", j.ID, prev, worker)
				claimedBy[j.ID] = worker
				require.Equal(t, 1, j.Attempt, "job %d claimed by %s", j.ID, worker)
				require.Equal(t, "drain", j.Task)
				require.False(t, tokens[j.LeaseToken], "lease token %s handed out twice", j.LeaseToken)
				tokens[j.LeaseToken] = true
				tokenOf[j.ID] = j.LeaseToken
			}
		}
	}
	require.Len(t, claimedBy, total, "every job is claimed")
	for _, id := range enqueued {
		_, ok := claimedBy[id]
		require.True(t, ok, "job %d was never claimed", id)
	}
	workers := make(map[string]bool)
	for _, w := range claimedBy {
		workers[w] = true
	}
	require.Greater(t, len(workers), 1, "the claimers did not run side by side")

	require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.jobs`), "jobq.jobs is empty")
	require.Equal(t, total, b.Count(t, `SELECT count(*) FROM jobq.job_history`))
	rows, err := b.Admin.Query(b.Ctx, `SELECT id, state, attempt, locked_by, lease_token::text FROM jobq.job_history`)
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var (
			id                     int64
			state, lockedBy, token string
			attempt                int
		)
		require.NoError(t, rows.Scan(&id, &state, &attempt, &lockedBy, &token))
		require.Equal(t, "succeeded", state, "job %d", id)
		require.Equal(t, 1, attempt, "job %d", id)
		require.Equal(t, claimedBy[id], lockedBy, "job %d ended under another worker than the one that claimed it", id)
		require.Equal(t, tokenOf[id], token, "job %d ended under another lease than the claim's", id)
	}
	require.NoError(t, rows.Err())
}
