package sql_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
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

// TestEnqueueAndCancelCascadeDeadlockIsRetried drives the one pair of paths that take a
// sequence's lock and a job's row in opposite orders into their deadlock, step by step, and
// checks that whichever side PostgreSQL aborts takes its locks again and succeeds. Job a heads
// sequence s and job p depends on a. A cancel of a takes s's lock, then waits for a's row (held
// by a third session); an enqueue of c (depending on p, in sequence s) locks p's row and waits
// for s's lock; the third session lets a go, and the cancel's cascade to p waits for the
// enqueue. The side whose deadlock_timeout runs out first is the one PostgreSQL aborts:
//   - "cancel aborted": the cancel's timeout is short. Without the retry in jobq.cancel_job the
//     cancel fails with 40P01 every time.
//   - "enqueue aborted": the enqueue's timeout is short, and the cancel's backend is paused
//     (SIGSTOP) once the cycle has closed, so it is the enqueue that PostgreSQL aborts, and its
//     next try runs before the cancel can take p's row: the worst moment. While the cancel is
//     paused the retrying enqueue must hold no lock on p's row (a fourth session takes it with
//     NOWAIT). A retry that took p's row again at once would close the same deadlock, try after
//     try (the row goes to whoever asks first), and fail with 40P01 after five: CI saw it.
//
// Either way a, p and c all end canceled (c by the cascade, or at its enqueue because p has
// ended) and no edge or live job of the sequence is left.
func TestEnqueueAndCancelCascadeDeadlockIsRetried(t *testing.T) {
	t.Parallel()
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: 4})
	b.Define(t, "dl-head", "dl-child", "dl-late")
	cs := conns(t, b.Admin, 3) // deadlock_timeout is a superuser's setting
	holder, canceler, enqueuer := cs[0], cs[1], cs[2]
	pid := func(c *pgxpool.Conn) int {
		var p int
		require.NoError(t, c.QueryRow(b.Ctx, `SELECT pg_backend_pid()`).Scan(&p))
		return p
	}
	cancelPid, enqueuePid := pid(canceler), pid(enqueuer)
	// waits polls pg_locks (through the fourth connection) until backend p waits for a lock of
	// the kind given: no sleep decides the order, the waits do.
	waits := func(p int, locktype string) {
		require.Eventually(t, func() bool {
			return b.Count(t, `SELECT count(*) FROM pg_locks WHERE pid = $1 AND NOT granted AND locktype LIKE $2`, p, locktype) > 0
		}, time.Minute, 5*time.Millisecond, "backend %d waits for a %s lock", p, locktype)
	}

	for round, c := range []struct {
		name                    string
		cancelWait, enqueueWait string

		pause bool
	}{
		{"cancel aborted", "20ms", "10min", false},
		{"enqueue aborted", "30s", "5s", true},
	} {
		key := fmt.Sprintf("dl-%d", round)
		var a, p int64
		require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT jobq.enqueue(task => 'dl-head', queue => 'dl', sequence_key => $1)`, key).Scan(&a))
		require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT jobq.enqueue(task => 'dl-child', queue => 'dl', depends_on => ARRAY[$1::bigint])`, a).Scan(&p))
		require.Equal(t, "blocked", b.Live(t, p).State)

		hold, err := holder.Begin(b.Ctx)
		require.NoError(t, err)
		_, err = hold.Exec(b.Ctx, `SELECT 1 FROM jobq.jobs WHERE id = $1 FOR UPDATE`, a)
		require.NoError(t, err)

		cancelDone := make(chan error, 1)
		go func() {
			cancelDone <- pgx.BeginFunc(b.Ctx, canceler, func(tx pgx.Tx) error {
				if _, err := tx.Exec(b.Ctx, `SELECT set_config('deadlock_timeout', $1, true)`, c.cancelWait); err != nil {
					return err
				}
				_, err := tx.Exec(b.Ctx, `SELECT jobq.cancel_job($1)`, a)
				return err
			})
		}()
		waits(cancelPid, "transactionid") // holding s's lock, waiting for a's row

		var child int64
		enqueueDone := make(chan error, 1)
		go func() {
			enqueueDone <- pgx.BeginFunc(b.Ctx, enqueuer, func(tx pgx.Tx) error {
				if _, err := tx.Exec(b.Ctx, `SELECT set_config('deadlock_timeout', $1, true)`, c.enqueueWait); err != nil {
					return err
				}
				return tx.QueryRow(b.Ctx, `SELECT jobq.enqueue(task => 'dl-late', queue => 'dl', depends_on => ARRAY[$1::bigint], sequence_key => $2)`,
					p, key).Scan(&child)
			})
		}()
		waits(enqueuePid, "advisory") // holding p's row, waiting for s's lock

		require.NoError(t, hold.Commit(b.Ctx))
		if c.pause {
			pauseCancelAtTheWorstMoment(t, b, cancelPid, enqueuePid, p)
		}
		require.NoError(t, <-cancelDone, "%s: the cancel succeeds", c.name)
		require.NoError(t, <-enqueueDone, "%s: the enqueue succeeds", c.name)

		for _, id := range []int64{a, p, child} {
			require.Equal(t, "canceled", b.Finished(t, id).State, "%s: job %d ends canceled", c.name, id)
		}
		require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.job_dependencies WHERE child_id = ANY ($1)`, []int64{p, child}), "%s: no edge left", c.name)
		require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE sequence_key = $1`, key), "%s: nothing of the sequence is live", c.name)
	}
}

// pauseCancelAtTheWorstMoment pauses the cancel's backend once its cascade waits for the
// enqueue's transaction (the cycle is closed), waits until PostgreSQL has aborted the enqueue's
// side (the cancel's wait is granted) and the enqueue waits again for the sequence, checks that
// the enqueue then holds no lock on p's row (the cancel's own lock on it may be there), and lets
// the cancel go on. The server's backends run on this machine (make test's sandbox): the test
// signals one, as root or as their user.
func pauseCancelAtTheWorstMoment(t *testing.T, b *testbundle.Bundle, cancelPid, enqueuePid int, p int64) {
	t.Helper()
	waitsFor := `SELECT count(*) FROM pg_locks w JOIN pg_locks h ON h.locktype = 'transactionid' AND h.transactionid = w.transactionid AND h.granted
	             WHERE w.pid = $1 AND NOT w.granted AND w.locktype = 'transactionid' AND h.pid = $2`
	require.Eventually(t, func() bool { return b.Count(t, waitsFor, cancelPid, enqueuePid) > 0 },
		time.Minute, 5*time.Millisecond, "the cancel's cascade waits for the enqueue's row lock on p")
	require.NoError(t, syscall.Kill(cancelPid, syscall.SIGSTOP), "pause the cancel's backend (pid %d)", cancelPid)
	paused := true
	resume := func() {
		if paused {
			paused = false
			require.NoError(t, syscall.Kill(cancelPid, syscall.SIGCONT), "resume the cancel's backend")
		}
	}
	defer resume()
	require.Positive(t, b.Count(t, waitsFor, cancelPid, enqueuePid),
		"precondition: the cancel was paused still waiting for the enqueue (the enqueue's deadlock_timeout had not run out)")

	require.Eventually(t, func() bool {
		return b.Count(t, `SELECT count(*) FROM pg_locks WHERE pid = $1 AND NOT granted`, cancelPid) == 0 &&
			b.Count(t, `SELECT count(*) FROM pg_locks WHERE pid = $1 AND NOT granted AND locktype = 'advisory'`, enqueuePid) > 0
	}, time.Minute, 5*time.Millisecond, "the enqueue is aborted and waits for the sequence again")

	// pgrowlocks (contrib, shipped with PostgreSQL) lists the transactions that lock p's row; none
	// may be one the enqueue's backend holds (its transaction or a live subtransaction of it).
	_, err := b.Admin.Exec(b.Ctx, `CREATE EXTENSION IF NOT EXISTS pgrowlocks`)
	require.NoError(t, err)
	require.Zero(t, b.Count(t, `SELECT count(*) FROM public.pgrowlocks('jobq.jobs') AS r
	                            JOIN jobq.jobs j ON j.ctid = r.locked_row AND j.id = $1
	                            WHERE r.xids::text[] && ARRAY(SELECT l.transactionid::text FROM pg_locks l
	                                                          WHERE l.pid = $2 AND l.locktype = 'transactionid' AND l.granted AND l.mode = 'ExclusiveLock')`, p, enqueuePid),
		"the retrying enqueue holds no lock on p's row while the cancel is paused")
	resume()
}
