package sql_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
)

// TestFanInChildReleasedOnceUnderParallelCompletions: a child depends on 50 parents; 50
// connections complete one parent each at the same moment, round after round. Every round the
// child ends up queued (no completion misses that it was the last) and a claim takes it exactly
// once. The guarantee is jobq._release_blocked's row lock before its count: without it, each
// completion counts the edges the others have deleted but not committed, and the child stays
// blocked.
func TestFanInChildReleasedOnceUnderParallelCompletions(t *testing.T) {
	t.Parallel()
	const parents, rounds = 50, 5
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: parents + 4})
	b.Define(t, "fanin-parent", "fanin-child")
	cs := conns(t, b.WorkerPool, parents)

	for round := range rounds {
		ids := make([]int64, parents)
		for i := range ids {
			ids[i] = b.Enqueue(t, testbundle.EnqueueArgs{Task: "fanin-parent", Payload: testbundle.Payload{N: i},
				EnqueueOptions: jobq.EnqueueOptions{Queue: "fanin-parents"}})
		}
		var child int64
		require.NoError(t, b.WorkerPool.QueryRow(b.Ctx,
			`SELECT jobq.enqueue(task => 'fanin-child', queue => 'fanin-child', depends_on => $1::bigint[])`, ids).Scan(&child))
		require.Equal(t, "blocked", b.Live(t, child).State, "round %d: the child waits", round)

		claimed := b.Claim(t, testbundle.ClaimArgs{Queues: []string{"fanin-parents"}, Max: parents})
		require.Len(t, claimed, parents, "round %d: every parent claimed", round)
		errs := together(parents, func(i int) error {
			out, err := jobq.NewClient(cs[i]).Complete(b.Ctx, []jobq.Lease{claimed[i].Lease()})
			if err == nil && (len(out) != 1 || out[0].Outcome != "succeeded") {
				err = fmt.Errorf("complete of job %d: %+v", claimed[i].ID, out)
			}
			return err
		})
		requireNoErrors(t, errs, fmt.Sprintf("round %d: parallel completions", round))

		require.Equal(t, "queued", b.Live(t, child).State, "round %d: the last completion released the child", round)
		require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.job_dependencies WHERE child_id = $1`, child),
			"round %d: no edge left", round)
		got := b.Claim(t, testbundle.ClaimArgs{Queues: []string{"fanin-child"}, Max: 10})
		require.Len(t, got, 1, "round %d: the child is claimed once", round)
		require.Equal(t, child, got[0].ID)
		require.Empty(t, b.Claim(t, testbundle.ClaimArgs{Queues: []string{"fanin-child"}, Max: 10}),
			"round %d: nothing more to claim", round)
		_, err := b.Worker.Complete(b.Ctx, []jobq.Lease{got[0].Lease()})
		require.NoError(t, err)
	}
}

// TestSequenceEnqueueStormRunsOneAtATimeInOrder: 50 connections enqueue into one sequence key at
// the same moment. Exactly one job of the key is claimable; the others are blocked; claiming with
// room for 50 always returns exactly one job, the lowest id left, until all ran in id order. The
// guarantee is the key's advisory lock taken before the ids are drawn (jobq._lock_sequences):
// without it, enqueuers that see no live job of the key each queue theirs.
func TestSequenceEnqueueStormRunsOneAtATimeInOrder(t *testing.T) {
	t.Parallel()
	const enqueuers, rounds = 50, 3
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: enqueuers + 4})
	b.Define(t, "seq-step")
	cs := conns(t, b.WorkerPool, enqueuers)

	for round := range rounds {
		key := fmt.Sprintf("account-%d", round)
		ids := make([]int64, enqueuers)
		errs := together(enqueuers, func(i int) error {
			return cs[i].QueryRow(b.Ctx, `SELECT jobq.enqueue(task => 'seq-step', queue => 'seq', payload => jsonb_build_object('n', $1::int),
			                                                 sequence_key => $2)`, i, key).Scan(&ids[i])
		})
		requireNoErrors(t, errs, fmt.Sprintf("round %d: parallel enqueues", round))
		require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE sequence_key = $1 AND state = 'queued'`, key),
			"round %d: one job of the key is claimable", round)
		require.Equal(t, enqueuers-1, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE sequence_key = $1 AND state = 'blocked'`, key),
			"round %d: the others wait", round)

		var ran []int64
		for range enqueuers {
			got := b.Claim(t, testbundle.ClaimArgs{Queues: []string{"seq"}, Max: enqueuers, Lease: time.Minute})
			require.Len(t, got, 1, "round %d: one job at a time (after %d ran)", round, len(ran))
			ran = append(ran, got[0].ID)
			_, err := b.Worker.Complete(b.Ctx, []jobq.Lease{got[0].Lease()})
			require.NoError(t, err)
		}
		require.IsIncreasing(t, ran, "round %d: in enqueue (id) order", round)
		require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE sequence_key = $1`, key))
	}
}

// TestChildCanceledWhileItsLastParentCompletes: an operator cancels a blocked job at the moment
// the job it waits for completes, round after round, on two connections: a child whose last
// parent completes, and the second job of a sequence whose head completes. Both calls succeed
// whichever commits first (no deadlock: the trigger locks the child's row before its edges, as
// cancel does, and cancel takes the sequence's lock before the row's, as the trigger does), the
// job ends canceled, and no edge is left behind.
func TestChildCanceledWhileItsLastParentCompletes(t *testing.T) {
	t.Parallel()
	const rounds = 30
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: 6})
	b.Define(t, "race-parent", "race-child")
	cs := conns(t, b.WorkerPool, 2)
	op := b.Admin // cancel_job is an operator's (postgres has its rights)

	for round := range rounds {
		for _, kind := range []string{"dependency", "sequence"} {
			var first, second int64
			if kind == "dependency" {
				first = b.Enqueue(t, testbundle.EnqueueArgs{Task: "race-parent", EnqueueOptions: jobq.EnqueueOptions{Queue: "race-first"}})
				require.NoError(t, b.WorkerPool.QueryRow(b.Ctx,
					`SELECT jobq.enqueue(task => 'race-child', queue => 'race-second', depends_on => ARRAY[$1::bigint])`, first).Scan(&second))
			} else {
				key := fmt.Sprintf("race-%d", round)
				require.NoError(t, b.WorkerPool.QueryRow(b.Ctx,
					`SELECT jobq.enqueue(task => 'race-parent', queue => 'race-first', sequence_key => $1)`, key).Scan(&first))
				require.NoError(t, b.WorkerPool.QueryRow(b.Ctx,
					`SELECT jobq.enqueue(task => 'race-child', queue => 'race-second', sequence_key => $1)`, key).Scan(&second))
			}
			require.Equal(t, "blocked", b.Live(t, second).State)
			claimed := b.ClaimOne(t, testbundle.ClaimArgs{Queues: []string{"race-first"}})
			require.Equal(t, first, claimed.ID)
			errs := together(2, func(i int) error {
				if i == 0 {
					_, err := jobq.NewClient(cs[0]).Complete(b.Ctx, []jobq.Lease{claimed.Lease()})
					return err
				}
				_, err := op.Exec(b.Ctx, `SELECT jobq.cancel_job($1)`, second)
				return err
			})
			requireNoErrors(t, errs, fmt.Sprintf("round %d (%s): complete and cancel at once", round, kind))
			require.Equal(t, "succeeded", b.Finished(t, first).State, "round %d (%s)", round, kind)
			require.Equal(t, "canceled", b.Finished(t, second).State, "round %d (%s): the waiting job ends canceled", round, kind)
			require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.job_dependencies`), "round %d (%s): no edge left", round, kind)
		}
	}
}
