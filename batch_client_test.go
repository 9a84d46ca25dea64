package jobq_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
)

// The Go client's batch calls: an application creates a batch of its store with a callback, adds
// jobs to it and seals it; a runner outside any store completes them and the callback is enqueued
// once in the store with the batch's counts. Another store's application is told the batch does
// not exist; a sealed batch refuses jobs; a callback with a store of its own is refused before
// the database is asked; sealing again is harmless. One CreateBatch with Jobs and Seal makes a
// whole batch.
func TestClientBatches(t *testing.T) {
	t.Parallel()
	const other = "7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"
	b := testbundle.New(t)
	b.DefineStore(t, "store-job", "store-done")

	var batch int64
	var ids []int64
	require.NoError(t, b.InStore(b.AppPool, testbundle.StoreID, func(c *jobq.Client) error {
		var err error
		batch, err = c.CreateBatch(b.Ctx, jobq.BatchOptions{
			OnComplete:  &jobq.JobSpec{Task: "store-done", Payload: map[string]string{"kind": "report"}},
			Description: "go client",
		})
		if err != nil {
			return err
		}
		ids, err = c.BatchEnqueue(b.Ctx, batch, []jobq.JobSpec{{Task: "store-job"}, {Task: "store-job"}})
		if err != nil {
			return err
		}
		settled, err := c.SealBatch(b.Ctx, batch)
		require.False(t, settled, "two live jobs: sealed, not settled")
		return err
	}))
	require.Len(t, ids, 2)

	err := b.InStore(b.AppPool, other, func(c *jobq.Client) error {
		_, err := c.BatchEnqueue(b.Ctx, batch, []jobq.JobSpec{{Task: "store-job"}})
		return err
	})
	require.True(t, errors.Is(err, jobq.ErrBatchNotFound), "another store's batch is not found: %v", err)
	err = b.InStore(b.AppPool, testbundle.StoreID, func(c *jobq.Client) error {
		_, err := c.BatchEnqueue(b.Ctx, batch, []jobq.JobSpec{{Task: "store-job"}})
		return err
	})
	require.True(t, errors.Is(err, jobq.ErrBatchSealed), "a sealed batch takes no job: %v", err)
	_, err = b.App.CreateBatch(b.Ctx, jobq.BatchOptions{OnSuccess: &jobq.JobSpec{Task: "store-done",
		EnqueueOptions: jobq.EnqueueOptions{StoreID: other}}})
	require.True(t, errors.Is(err, jobq.ErrBatchCallbackInvalid), "a callback with a store of its own: %v", err)

	jobs := b.Claim(t, testbundle.ClaimArgs{Max: 2})
	require.Len(t, jobs, 2)
	_, err = b.Worker.Complete(b.Ctx, []jobq.Lease{testbundle.LeaseOf(jobs[0]), testbundle.LeaseOf(jobs[1])})
	require.NoError(t, err)

	var st jobq.BatchStatus
	require.NoError(t, b.InStore(b.AppPool, testbundle.StoreID, func(c *jobq.Client) error {
		var err error
		st, err = c.BatchStatus(b.Ctx, batch)
		if err != nil {
			return err
		}
		settled, err := c.SealBatch(b.Ctx, batch)
		require.True(t, settled, "sealing a settled batch again says settled")
		return err
	}))
	require.Equal(t, "settled", st.State)
	require.Equal(t, int64(2), st.Succeeded)
	require.Nil(t, st.CallbackError)
	require.Len(t, st.CallbackJobIDs, 1)
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE id = $1 AND store_id = $2
		AND payload ->> 'kind' = 'report' AND (payload -> 'batch' ->> 'succeeded')::int = 2`, st.CallbackJobIDs[0], testbundle.StoreID))

	// One call makes a whole batch: its jobs added and the batch sealed.
	require.NoError(t, b.InStore(b.AppPool, testbundle.StoreID, func(c *jobq.Client) error {
		id, err := c.CreateBatch(b.Ctx, jobq.BatchOptions{Jobs: []jobq.JobSpec{{Task: "store-job"}, {Task: "store-job"}, {Task: "store-job"}}, Seal: true})
		if err != nil {
			return err
		}
		st, err = c.BatchStatus(b.Ctx, id)
		return err
	}))
	require.Equal(t, "sealed", st.State)
	require.Equal(t, int64(3), st.Total)
}
