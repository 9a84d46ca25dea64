package sql_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
)

// uniqueWave releases one enqueuer per connection at the same moment; each enqueues key with
// unique_for an hour calls times in a row, in queue q, and the ids they got come back per enqueuer.
// Any error fails the test.
func uniqueWave(t *testing.T, b *testbundle.Bundle, cs []*pgxpool.Conn, key, q string, calls int) [][]int64 {
	t.Helper()
	ids := make([][]int64, len(cs))
	errs := together(len(cs), func(i int) error {
		c := jobq.NewClient(cs[i])
		for range calls {
			id, err := c.Enqueue(b.Ctx, "keyed", testbundle.Payload{N: i},
				jobq.EnqueueOptions{Queue: q, JobKey: key, UniqueFor: time.Hour})
			if err != nil {
				return err
			}
			ids[i] = append(ids[i], id)
		}
		return nil
	})
	requireNoErrors(t, errs, "enqueue of key "+key+" with unique_for")
	return ids
}

// drainQueue claims and completes the jobs of queue q on c until stop is closed, then once more,
// and returns the first error.
func drainQueue(b *testbundle.Bundle, c *jobq.Client, q string, stop <-chan struct{}) error {
	for {
		jobs, err := c.Claim(b.Ctx, "w-unique", []string{q}, 10, time.Minute)
		if err != nil {
			return err
		}
		if len(jobs) > 0 {
			if _, err := c.Complete(b.Ctx, leasesOf(jobs)); err != nil {
				return err
			}
		}
		select {
		case <-stop:
			if len(jobs) == 0 {
				return nil
			}
		default:
		}
	}
}

// TestUniqueForEnqueueStorm: 50 connections enqueue one job key with unique_for at the same moment,
// 5 times each, while a runner claims and completes the queue's jobs as fast as it can, so the job
// moves to jobq.job_history while the storm goes on: enqueuers meet it waiting, running, finished,
// and finishing between their look-up and their insert. Every call of a round gets the one job's
// id and the key has exactly one job, live or finished. A second wave, once the job has finished,
// gets the finished job's id and adds none.
func TestUniqueForEnqueueStorm(t *testing.T) {
	t.Parallel()
	const enqueuers, calls, rounds = 50, 5, 4
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: enqueuers + 3})
	b.Define(t, "keyed")
	cs := conns(t, b.WorkerPool, enqueuers+1) // keyed system jobs: runners' enqueues (applications may not key them)
	runner := jobq.NewClient(cs[enqueuers])
	enq := cs[:enqueuers]

	for round := range rounds {
		key := fmt.Sprintf("unique-%d", round)
		q := fmt.Sprintf("uq%d", round)
		stop := make(chan struct{})
		drained := make(chan error, 1)
		go func() { drained <- drainQueue(b, runner, q, stop) }()
		ids := uniqueWave(t, b, enq, key, q, calls)
		close(stop)
		require.NoError(t, <-drained, "round %d: the runner", round)

		want := ids[0][0]
		for i, got := range ids {
			require.Len(t, got, calls, "round %d: enqueuer %d", round, i)
			for n, id := range got {
				require.Equal(t, want, id, "round %d: enqueuer %d call %d got another job", round, i, n)
			}
		}
		require.Equal(t, 1, b.Count(t, `SELECT (SELECT count(*) FROM jobq.jobs WHERE job_key = $1)
		                                     + (SELECT count(*) FROM jobq.job_history WHERE job_key = $1)`, key),
			"round %d: jobs of the key, live and finished", round)
		require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.job_history WHERE job_key = $1 AND id = $2`, key, want),
			"round %d: the runner finished the job", round)

		// The job is finished now: a second storm finds it in history.
		again := uniqueWave(t, b, enq, key, q, 1)
		for i, got := range again {
			require.Equal(t, []int64{want}, got, "round %d: enqueuer %d after the job finished", round, i)
		}
		require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE job_key = $1`, key),
			"round %d: the second storm added a job", round)
	}
}
