package jobq_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
)

// batchCounts is one batch's row as jobq.batch_status reports it.
type batchCounts struct {
	State                            string
	Total, Succeeded, Dead, Canceled int64
	Pending                          int64
	CallbackJobIDs                   []int64
}

func readBatch(t *testing.T, b *testbundle.Bundle, id int64) batchCounts {
	t.Helper()
	var c batchCounts
	require.NoError(t, b.Admin.QueryRow(b.Ctx,
		`SELECT state, total, succeeded, dead, canceled, pending, callback_job_ids FROM jobq.batch_status($1)`, id).
		Scan(&c.State, &c.Total, &c.Succeeded, &c.Dead, &c.Canceled, &c.Pending, &c.CallbackJobIDs))
	return c
}

// openConns opens n connections of the worker pool first, so that the parallel calls start
// together rather than as each connection comes up.
func openConns(t *testing.T, b *testbundle.Bundle, n int) {
	t.Helper()
	release := make([]func(), 0, n)
	for range n {
		c, err := b.WorkerPool.Acquire(b.Ctx)
		require.NoError(t, err)
		release = append(release, c.Release)
	}
	for _, r := range release {
		r()
	}
}

// completeAll claims and completes every due job of queue, max a claim.
func completeAll(t *testing.T, b *testbundle.Bundle, queue string, max int) {
	t.Helper()
	for {
		claimed := b.Claim(t, testbundle.ClaimArgs{Queues: []string{queue}, Max: max})
		if len(claimed) == 0 {
			return
		}
		leases := make([]jobq.Lease, len(claimed))
		for i, j := range claimed {
			leases[i] = testbundle.LeaseOf(j)
		}
		_, err := b.Worker.Complete(b.Ctx, leases)
		require.NoError(t, err)
	}
}

// Fifty workers complete the fifty jobs of one sealed batch at the same instant, each on its own
// connection, round after round. Every completion is counted (no lost update of the batch's
// row), the batch settles exactly once, and each callback is enqueued exactly once: the trigger
// counts under the batch's row lock and settles only where settled_at is still NULL.
// Without the lock (a read of the counts, then a write of the sum) completions are lost and the
// batch never settles: the test fails on counts below 50.
func TestBatchSettlesOnceUnderFiftyParallelCompletions(t *testing.T) {
	t.Parallel()
	const workers, rounds = 50, 5
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: workers})
	b.Define(t, "batch-job", "batch-done")
	openConns(t, b, workers)

	for round := range rounds {
		var batch int64
		require.NoError(t, b.WorkerPool.QueryRow(b.Ctx, `SELECT jobq.create_batch(
			on_success => '{"task": "batch-done", "payload": {"kind": "success"}}',
			on_complete => '{"task": "batch-done", "payload": {"kind": "complete"}}')`).Scan(&batch))
		jobs := "["
		for i := range workers {
			if i > 0 {
				jobs += ","
			}
			jobs += fmt.Sprintf(`{"task": "batch-job", "queue": "race", "payload": {"n": %d}}`, i)
		}
		jobs += "]"
		_, err := b.WorkerPool.Exec(b.Ctx, `SELECT jobq.batch_enqueue($1, $2::jsonb)`, batch, jobs)
		require.NoError(t, err)
		_, err = b.WorkerPool.Exec(b.Ctx, `SELECT jobq.seal_batch($1)`, batch)
		require.NoError(t, err)
		claimed := b.Claim(t, testbundle.ClaimArgs{Queues: []string{"race"}, Max: workers})
		require.Len(t, claimed, workers)

		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for _, job := range claimed {
			wg.Add(1)
			go func(l jobq.Lease) {
				defer wg.Done()
				<-start
				_, err := b.Worker.Complete(b.Ctx, []jobq.Lease{l})
				errs <- err
			}(testbundle.LeaseOf(job))
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}

		got := readBatch(t, b, batch)
		require.Equal(t, batchCounts{State: "settled", Total: workers, Succeeded: workers, CallbackJobIDs: got.CallbackJobIDs}, got,
			"round %d: every completion counted, the batch settled", round)
		require.Len(t, got.CallbackJobIDs, 2, "round %d: on_success and on_complete, once each", round)
		require.Equal(t, 2, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'batch-done' AND (payload -> 'batch' ->> 'id')::bigint = $1`, batch),
			"round %d: exactly two callback jobs of the batch exist", round)
		require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'batch-done' AND payload ->> 'kind' = 'success'
			AND (payload -> 'batch' ->> 'id')::bigint = $1 AND (payload -> 'batch' ->> 'succeeded')::int = 50`, batch),
			"round %d: on_success once, carrying the final counts", round)
	}
}

// Fifty adders add twenty jobs each to one batch at the same instant while a sealer seals it.
// The batch's row lock orders them: every adder that came before the seal has all its jobs in the
// batch and counted, every one after it is refused with JQ721 (ErrBatchSealed) and wrote nothing;
// the total equals the jobs that carry the batch id. The batch then settles once when they end.
func TestBatchCountsFiftyParallelAddersAndASealExactly(t *testing.T) {
	t.Parallel()
	const adders, each = 50, 20
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: adders + 1})
	b.Define(t, "batch-job", "batch-done")
	var batch int64
	require.NoError(t, b.WorkerPool.QueryRow(b.Ctx,
		`SELECT jobq.create_batch(on_complete => '{"task": "batch-done"}')`).Scan(&batch))
	jobs := "["
	for i := range each {
		if i > 0 {
			jobs += ","
		}
		jobs += `{"task": "batch-job", "queue": "adders"}`
	}
	jobs += "]"
	openConns(t, b, adders+1)

	start := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	added, sealed := 0, 0
	for i := range adders + 1 {
		wg.Add(1)
		go func(sealer bool) {
			defer wg.Done()
			<-start
			if sealer {
				if _, err := b.WorkerPool.Exec(b.Ctx, `SELECT jobq.seal_batch($1)`, batch); err != nil {
					t.Errorf("seal: %v", err)
				}
				return
			}
			_, err := b.WorkerPool.Exec(b.Ctx, `SELECT jobq.batch_enqueue($1, $2::jsonb)`, batch, jobs)
			mu.Lock()
			defer mu.Unlock()
			var pgErr *pgconn.PgError
			switch {
			case err == nil:
				added++
			case errors.As(err, &pgErr) && pgErr.Code == "JQ721":
				sealed++
			default:
				t.Errorf("adder: %v", err)
			}
		}(i == adders/2)
	}
	close(start)
	wg.Wait()
	require.Equal(t, adders, added+sealed)
	t.Logf("%d adders came before the seal, %d after it", added, sealed)

	got := readBatch(t, b, batch)
	require.Equal(t, int64(added*each), got.Total, "the total is every job of the adders before the seal")
	require.Equal(t, added*each, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE batch_id = $1`, batch),
		"and exactly that many jobs carry the batch id")
	require.Equal(t, added*each, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE queue = 'adders'`),
		"a refused adder wrote no job")

	completeAll(t, b, "adders", 100)
	got = readBatch(t, b, batch)
	require.Equal(t, "settled", got.State)
	require.Equal(t, int64(added*each), got.Succeeded)
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'batch-done'`), "on_complete enqueued once")
}

// A batch of 100,000 jobs (one batch_enqueue call, enqueue_many's limit) is counted exactly and
// settles once when ten claims of 10,000 have completed them all: one UPDATE of the batch per
// completing statement, whatever its size.
func TestBatchOfOneHundredThousandJobsSettlesOnce(t *testing.T) {
	t.Parallel()
	const n = 100000
	b := testbundle.New(t)
	b.Define(t, "big-job", "big-done")
	var batch int64
	require.NoError(t, b.WorkerPool.QueryRow(b.Ctx, `SELECT jobq.create_batch(on_complete => '{"task": "big-done"}')`).Scan(&batch))
	var added int
	require.NoError(t, b.WorkerPool.QueryRow(b.Ctx, `SELECT count(*) FROM jobq.batch_enqueue($1,
		(SELECT jsonb_agg(jsonb_build_object('task', 'big-job', 'queue', 'big')) FROM generate_series(1, $2::int)))`, batch, n).Scan(&added))
	require.Equal(t, n, added)
	_, err := b.WorkerPool.Exec(b.Ctx, `SELECT jobq.seal_batch($1)`, batch)
	require.NoError(t, err)
	completeAll(t, b, "big", 10000)
	got := readBatch(t, b, batch)
	require.Equal(t, "settled", got.State)
	require.Equal(t, int64(n), got.Total)
	require.Equal(t, int64(n), got.Succeeded)
	require.Len(t, got.CallbackJobIDs, 1)
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'big-done'`))
}

// Fifty workers each complete, in one call, one job of batch A and one of batch B, half of them
// naming B's job first: every transaction counts in both batches, and none deadlocks (the trigger
// locks the batches of a statement in id order, so the order never depends on the plan; without
// that lock this plan's grouped UPDATE happened to lock in one order too, so the test guards the
// outcome rather than proving the lock necessary). Both batches settle once.
func TestBatchCountsJobsOfTwoBatchesCompletedTogetherWithoutDeadlock(t *testing.T) {
	t.Parallel()
	const workers = 50
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: workers})
	b.Define(t, "two-job", "two-done")
	openConns(t, b, workers)
	batches := make([]int64, 2)
	for i, q := range []string{"two-a", "two-b"} {
		require.NoError(t, b.WorkerPool.QueryRow(b.Ctx, `SELECT jobq.create_batch(on_complete => '{"task": "two-done"}')`).Scan(&batches[i]))
		_, err := b.WorkerPool.Exec(b.Ctx, `SELECT jobq.batch_enqueue($1,
			(SELECT jsonb_agg(jsonb_build_object('task', 'two-job', 'queue', $2::text)) FROM generate_series(1, $3::int)))`, batches[i], q, workers)
		require.NoError(t, err)
		_, err = b.WorkerPool.Exec(b.Ctx, `SELECT jobq.seal_batch($1)`, batches[i])
		require.NoError(t, err)
	}
	as := b.Claim(t, testbundle.ClaimArgs{Queues: []string{"two-a"}, Max: workers})
	bs := b.Claim(t, testbundle.ClaimArgs{Queues: []string{"two-b"}, Max: workers})
	require.Len(t, as, workers)
	require.Len(t, bs, workers)

	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for i := range workers {
		pair := []jobq.Lease{testbundle.LeaseOf(as[i]), testbundle.LeaseOf(bs[i])}
		if i%2 == 1 {
			pair[0], pair[1] = pair[1], pair[0]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := b.Worker.Complete(b.Ctx, pair)
			errs <- err
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err, "no completion deadlocks or fails")
	}
	for _, id := range batches {
		got := readBatch(t, b, id)
		require.Equal(t, "settled", got.State)
		require.Equal(t, int64(workers), got.Succeeded)
		require.Len(t, got.CallbackJobIDs, 1)
	}
	require.Equal(t, 2, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'two-done'`))
}
