package sql_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
)

// The promises of docs/flow-control.md that held for the runner's one-statement claims and broke
// for a caller that claims several times inside one open transaction (issue 29): a concurrency
// limit exceeded by uncommitted claims the other transactions cannot see, limited claims that
// deadlock, and a paused queue claimed through a snapshot taken before the pause.

// openClaimers makes 1,000 queued jobs in queue big, limited to limit running jobs, and opens
// one READ COMMITTED transaction on each of n worker connections (rolled back when t ends unless
// committed).
func openClaimers(t *testing.T, n, limit int) (*testbundle.Bundle, []pgx.Tx) {
	t.Helper()
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: int32(n)})
	b.Define(t, "limited")
	_, err := b.Admin.Exec(b.Ctx, `INSERT INTO jobq.jobs (task, queue, max_attempts) SELECT 'limited', 'big', 3 FROM generate_series(1, 1000)`)
	require.NoError(t, err)
	setControls(t, b, fmt.Sprintf(`SELECT jobq.set_concurrency_limit('big', %d)`, limit))
	workers := conns(t, b.WorkerPool, n)
	txs := make([]pgx.Tx, n)
	for i := range txs {
		txs[i], err = workers[i].Begin(b.Ctx)
		require.NoError(t, err)
		t.Cleanup(func() { _ = txs[i].Rollback(context.WithoutCancel(b.Ctx)) })
	}
	return b, txs
}

// TestLimitHoldsAcrossClaimsInOneOpenTransaction: two READ COMMITTED transactions side by side
// each claim 16 jobs twelve times from a queue with max_running 300, then commit. Each sees its
// own uncommitted claims and not the other's; together they must not run more than 300. A
// transaction's shared claims of a queue take at most one shared batch (16) in all until it
// commits, so the other slot holders' unseen claims stay within the 112 the ceiling leaves them.
func TestLimitHoldsAcrossClaimsInOneOpenTransaction(t *testing.T) {
	t.Parallel()
	const sessions, rounds, batch, limit = 2, 12, 16, 300
	b, txs := openClaimers(t, sessions, limit)
	// The rounds alternate between the sessions, so that each round of one follows the other's.
	claimed := make([]int, sessions)
	for range rounds {
		for i, tx := range txs {
			got, err := jobq.NewClient(tx).Claim(b.Ctx, fmt.Sprintf("w%d", i), []string{"big"}, batch, time.Minute)
			require.NoError(t, err)
			claimed[i] += len(got)
		}
	}
	for i, tx := range txs {
		require.NoError(t, tx.Commit(b.Ctx), "commit %d", i)
	}
	running := b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE queue = 'big' AND state = 'running'`)
	t.Logf("claimed %v, %d running of a limit of %d", claimed, running, limit)
	require.LessOrEqual(t, running, limit, "the two transactions together stay within max_running")
	require.Equal(t, claimed[0]+claimed[1], running)
	require.Positive(t, claimed[0])
	require.Positive(t, claimed[1])
}

// TestLimitedClaimsInOpenTransactionsDoNotDeadlock: the two transactions of the test above go on
// claiming after their short claims, now batches above a shared claim's 16 (which take the queue's
// lock alone when nothing is held): neither may get a deadlock (40P01), and the limit holds.
func TestLimitedClaimsInOpenTransactionsDoNotDeadlock(t *testing.T) {
	t.Parallel()
	const sessions, limit = 2, 300
	b, txs := openClaimers(t, sessions, limit)
	for i := range txs {
		got, err := jobq.NewClient(txs[i]).Claim(b.Ctx, fmt.Sprintf("w%d", i), []string{"big"}, 4, time.Minute)
		require.NoError(t, err)
		require.Len(t, got, 4, "the short claim of session %d", i)
	}
	// Both claim a long batch at once: before the fix each upgraded its shared hold of the
	// queue's lock to an exclusive one, and waited for the other's shared hold.
	errs := together(sessions, func(i int) error {
		for range 3 {
			if _, err := jobq.NewClient(txs[i]).Claim(b.Ctx, fmt.Sprintf("w%d", i), []string{"big"}, 100, time.Minute); err != nil {
				return err
			}
		}
		return nil
	})
	requireNoErrors(t, errs, "long claims after short ones in open transactions")
	for i, tx := range txs {
		require.NoError(t, tx.Commit(b.Ctx), "commit %d", i)
	}
	require.LessOrEqual(t, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE queue = 'big' AND state = 'running'`), limit)
}

// TestFiftyTransactionsClaimingMixedQueuesNeverDeadlock: 50 connections, each in a READ COMMITTED
// transaction of its own, claim three to six times from limited queues (a queue limit high enough
// to share, a low queue limit, a store limit, and a queue without limits) in an order of their
// own, with batches of 1 to 40, then commit, five rounds each. Two transactions that lock limited
// queues in different orders across their claims are where a deadlock would come from. None may
// fail, and a sampler on its own connection checks every limit the whole time.
func TestFiftyTransactionsClaimingMixedQueuesNeverDeadlock(t *testing.T) {
	t.Parallel()
	const claimers, rounds = 50, 5
	queues := []string{"mix-shared", "mix-low", "mix-store", "mix-free"}
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: claimers})
	b.Define(t, "limited")
	_, err := b.Admin.Exec(b.Ctx, `
		INSERT INTO jobq.jobs (task, queue, store_id, max_attempts)
		SELECT 'limited', q, CASE WHEN n % 5 = 0 THEN NULL
		                          ELSE ('00000000-0000-0000-0000-' || lpad((n % 5)::text, 12, '0'))::uuid END, 3
		FROM unnest($1::text[]) AS q, generate_series(1, 3000) AS n`, queues)
	require.NoError(t, err)
	setControls(t, b,
		`SELECT jobq.set_concurrency_limit('mix-shared', 200)`,
		`SELECT jobq.set_concurrency_limit('mix-low', 7)`,
		`SELECT jobq.set_store_concurrency_limit('mix-store', 3)`)

	sampling := startSampler(t, b.Ctx, b.Admin, `
		SELECT (SELECT count(*) FROM jobq.jobs WHERE state = 'running' AND queue = 'mix-shared'),
		       (SELECT count(*) FROM jobq.jobs WHERE state = 'running' AND queue = 'mix-low'),
		       (SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM jobq.jobs
		                                         WHERE state = 'running' AND queue = 'mix-store' GROUP BY store_id) s)`, 3)
	workers := conns(t, b.WorkerPool, claimers)
	errs := together(claimers, func(i int) error {
		rng := rand.New(rand.NewPCG(uint64(i), 29))
		client := jobq.NewClient(workers[i])
		for r := range rounds {
			tx, err := workers[i].Begin(b.Ctx)
			if err != nil {
				return err
			}
			var held []jobq.Job
			for range 3 + rng.IntN(4) {
				list := []string{queues[rng.IntN(len(queues))]}
				if rng.IntN(3) == 0 {
					list = append(list, queues[rng.IntN(len(queues))])
				}
				if len(list) == 2 && list[0] == list[1] {
					list = list[:1]
				}
				got, err := jobq.NewClient(tx).Claim(b.Ctx, fmt.Sprintf("mix-%d", i), list, 1+rng.IntN(40), time.Minute)
				if err != nil {
					_ = tx.Rollback(b.Ctx)
					return fmt.Errorf("round %d, claim of %v: %w", r, list, err)
				}
				held = append(held, got...)
			}
			if err := tx.Commit(b.Ctx); err != nil {
				return fmt.Errorf("round %d: commit: %w", r, err)
			}
			if err := completeSucceeded(b.Ctx, client, fmt.Sprintf("mix-%d", i), held); err != nil {
				return err
			}
		}
		return nil
	})
	samples, serr := sampling.finish()
	require.NoError(t, serr)
	for _, err := range errs {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "40P01" {
			t.Errorf("a claim deadlocked: %v (%s)", err, pgErr.Detail)
		}
	}
	requireNoErrors(t, errs, "50 transactions claiming mixed queues")
	require.NotEmpty(t, samples)
	for _, s := range samples {
		require.LessOrEqual(t, s[0], 200, "mix-shared within its limit")
		require.LessOrEqual(t, s[1], 7, "mix-low within its limit")
		require.LessOrEqual(t, s[2], 3, "mix-store within its store limit")
	}
	require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE state = 'running'`), "every claimed job completed")
}

// TestAClaimHoldingALimitedQueuesLockGivesUpAWaitInItsPick: a transaction that holds a limited
// queue's claim lock never waits long in a pick. PostgreSQL can make a SKIP LOCKED pick wait (for
// whoever locks a newer version of a row the pick's snapshot sees), and such a wait by a holder of
// a claim lock closed cycles with the claims waiting for that lock (40P01 under CI load). Here the
// wait is forced where it can be made at will: another session holds the fair queues' cursor table
// (jobq.claim_cursors) locked, which a fair pick writes. The claim of the fair queue must come back
// at once, without error and with nothing from that queue, while the lock is still held (before
// the guard it waited for the lock, here up to the test's deadline); the caller's lock_timeout is
// as it set it afterwards; and once the lock is gone the next claim takes jobs of the fair queue.
func TestAClaimHoldingALimitedQueuesLockGivesUpAWaitInItsPick(t *testing.T) {
	t.Parallel()
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: 1})
	b.Define(t, "guarded")
	_, err := b.Admin.Exec(b.Ctx, `
		INSERT INTO jobq.jobs (task, queue, max_attempts)
		SELECT 'guarded', q, 3 FROM unnest(ARRAY['g-limited', 'g-fair']) AS q, generate_series(1, 10)`)
	require.NoError(t, err)
	setControls(t, b, `SELECT jobq.set_concurrency_limit('g-limited', 5)`, `SELECT jobq.set_fair_claiming('g-fair', true)`)
	worker := conns(t, b.WorkerPool, 1)[0]

	tx, err := worker.Begin(b.Ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(b.Ctx) }()
	_, err = tx.Exec(b.Ctx, `SET LOCAL lock_timeout = '30s'`)
	require.NoError(t, err)
	client := jobq.NewClient(tx)
	got, err := client.Claim(b.Ctx, "g-worker", []string{"g-limited"}, 2, time.Minute)
	require.NoError(t, err)
	require.Len(t, got, 2, "the claim of the limited queue, which takes its lock until the transaction ends")

	holder, err := b.Admin.Begin(b.Ctx)
	require.NoError(t, err)
	defer func() { _ = holder.Rollback(b.Ctx) }()
	_, err = holder.Exec(b.Ctx, `LOCK TABLE jobq.claim_cursors IN ACCESS EXCLUSIVE MODE`)
	require.NoError(t, err)

	// Well past any wait the guard allows, and well short of the caller's 30 s: a claim that waits
	// for the lock fails here instead of hanging the test.
	ctx, cancel := context.WithTimeout(b.Ctx, 15*time.Second)
	defer cancel()
	got, err = client.Claim(ctx, "g-worker", []string{"g-fair"}, 3, time.Minute)
	require.NoError(t, err, "the claim of the fair queue gives its wait up instead of waiting")
	require.Empty(t, got, "nothing from the fair queue while its cursors are locked")
	var stillHeld bool
	require.NoError(t, holder.QueryRow(b.Ctx, `SELECT true`).Scan(&stillHeld), "the lock was held throughout")
	var timeout string
	require.NoError(t, tx.QueryRow(b.Ctx, `SHOW lock_timeout`).Scan(&timeout))
	require.Equal(t, "30s", timeout, "the caller's lock_timeout, as it set it")

	require.NoError(t, holder.Rollback(b.Ctx))
	got, err = client.Claim(b.Ctx, "g-worker", []string{"g-fair"}, 3, time.Minute)
	require.NoError(t, err)
	require.Len(t, got, 3, "the fair queue's jobs once the lock is gone")
	require.NoError(t, tx.Commit(b.Ctx))
}

// TestPauseHoldsForAClaimUnderAnOlderSnapshot: a REPEATABLE READ transaction takes its snapshot,
// then an operator pauses the queue and the pause commits; the transaction's claim must take
// nothing of the paused queue. Its snapshot cannot see the pause, so a claim under REPEATABLE READ
// or SERIALIZABLE is refused with JOB.CLAIM_ISOLATION (the claim runs under READ COMMITTED, as the
// runner's does), and writes nothing.
func TestPauseHoldsForAClaimUnderAnOlderSnapshot(t *testing.T) {
	t.Parallel()
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: 2})
	b.Define(t, "paused")
	_, err := b.Admin.Exec(b.Ctx, `INSERT INTO jobq.jobs (task, queue, max_attempts) SELECT 'paused', 'pq', 3 FROM generate_series(1, 20)`)
	require.NoError(t, err)
	workers := conns(t, b.WorkerPool, 1)
	for _, level := range []pgx.TxIsoLevel{pgx.RepeatableRead, pgx.Serializable} {
		tx, err := workers[0].BeginTx(b.Ctx, pgx.TxOptions{IsoLevel: level})
		require.NoError(t, err)
		_, err = tx.Exec(b.Ctx, `SELECT 1`) // the snapshot
		require.NoError(t, err)
		var changed bool
		require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT jobq.pause_queue('pq')`).Scan(&changed))
		got, err := jobq.NewClient(tx).Claim(b.Ctx, "snap", []string{"pq"}, 5, time.Minute)
		require.ErrorIs(t, err, jobq.ErrClaimIsolation, "%s: the claim is refused, not served from the old snapshot", level)
		require.Empty(t, got)
		require.NoError(t, tx.Rollback(b.Ctx))
		require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE queue = 'pq' AND state = 'running'`), "%s: nothing claimed", level)
		require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT jobq.resume_queue('pq')`).Scan(&changed))
	}
	// Under READ COMMITTED the pause holds from its commit on: the claim's own statements read it.
	tx, err := workers[0].Begin(b.Ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(context.WithoutCancel(b.Ctx)) }()
	_, err = tx.Exec(b.Ctx, `SELECT 1`)
	require.NoError(t, err)
	var changed bool
	require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT jobq.pause_queue('pq')`).Scan(&changed))
	got, err := jobq.NewClient(tx).Claim(b.Ctx, "rc", []string{"pq"}, 5, time.Minute)
	require.NoError(t, err)
	require.Empty(t, got, "a READ COMMITTED claim after the pause committed takes nothing")
}
