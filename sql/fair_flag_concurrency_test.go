package sql_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/testbundle"
)

// Only jobs flagged fair (jobq.jobs.fair) are in jobs_fair_idx, which fair claims read. An insert
// reads its queue's fair in its own statement; one whose snapshot is older than the
// jobq.set_fair_claiming that turned the queue fair writes the job unflagged, and the setter
// cannot see it. maintain (jobq._settle_fair_flags) flags such jobs once no transaction or
// snapshot older than the setter is left. These tests hold such transactions open on their own
// connections and check when the flag comes, and that fair claims then take every job.

// settleFair calls maintain until the queue's recheck is done (jobq.queues.fair_recheck false):
// other tests' transactions on the same cluster may hold it back for a while, so it waits up to
// a minute (a liveness guard, not a speed assertion).
func settleFair(t *testing.T, b *testbundle.Bundle, queue string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := b.Admin.Exec(b.Ctx, `SELECT jobq.maintain()`)
		require.NoError(t, err)
		if b.Count(t, `SELECT count(*) FROM jobq.queues WHERE name = $1 AND fair_recheck`, queue) == 0 {
			return
		}
		require.True(t, time.Now().Before(deadline), "maintain did not settle queue %s's fair flags within a minute", queue)
		time.Sleep(20 * time.Millisecond)
	}
}

// claimAll claims the queue until a claim returns nothing, and returns how many it took.
func claimAll(t *testing.T, b *testbundle.Bundle, queue string) int {
	t.Helper()
	claimed := 0
	for {
		n := b.Count(t, `SELECT count(*) FROM jobq.claim_job('fair-w', ARRAY[$1], 10000)`, queue)
		if n == 0 {
			return claimed
		}
		claimed += n
	}
}

// TestAJobInsertedUnderASnapshotOlderThanTheFairSetterIsFlaggedByMaintainOnceNoOlderOneIsLeft:
// a REPEATABLE READ transaction that took its snapshot before jobq.set_fair_claiming committed
// enqueues into the queue, and its job is unflagged. Two cases: it enqueues before maintain first
// looks at the queue (its transaction id is below the mark maintain records), and after (its id is
// above the mark, but its snapshot is older). Either way maintain leaves the queue marked while
// the transaction is open, a fair claim does not see the job after it commits, and the next
// maintain flags it, after which a fair claim takes it.
func TestAJobInsertedUnderASnapshotOlderThanTheFairSetterIsFlaggedByMaintainOnceNoOlderOneIsLeft(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		enqueueBeforeLook bool
	}{
		{"enqueued before maintain's first look", true},
		{"enqueued after maintain's first look", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := testbundle.New(t)
			b.Define(t, "fair-t")
			_, err := b.Admin.Exec(b.Ctx, `UPDATE jobq.tasks SET queue = 'fair-q' WHERE name = 'fair-t'`)
			require.NoError(t, err)
			_, err = b.Admin.Exec(b.Ctx, `SELECT jobq.enqueue('fair-t')`) // seen by the setter
			require.NoError(t, err)

			old := conns(t, b.DB.Pool(t, "postgres", 1), 1)[0]
			tx, err := old.BeginTx(b.Ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
			require.NoError(t, err)
			defer func() { _ = tx.Rollback(context.WithoutCancel(b.Ctx)) }()
			_, err = tx.Exec(b.Ctx, `SELECT count(*) FROM jobq.queues`) // the snapshot, before the setter
			require.NoError(t, err)

			_, err = b.Admin.Exec(b.Ctx, `SELECT jobq.set_fair_claiming('fair-q', true)`)
			require.NoError(t, err)
			var stale int64
			enqueue := func() {
				require.NoError(t, tx.QueryRow(b.Ctx, `SELECT jobq.enqueue('fair-t')`).Scan(&stale))
			}
			if tc.enqueueBeforeLook {
				enqueue()
			}
			for range 3 {
				_, err = b.Admin.Exec(b.Ctx, `SELECT jobq.maintain()`)
				require.NoError(t, err)
			}
			require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.queues WHERE name = 'fair-q' AND fair_recheck AND fair_recheck_after IS NOT NULL`),
				"while the older transaction is open, the queue stays marked")
			if !tc.enqueueBeforeLook {
				enqueue()
			}
			require.NoError(t, tx.Commit(b.Ctx))
			require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE id = $1 AND NOT fair`, stale),
				"the job its snapshot enqueued is unflagged")
			require.Equal(t, 1, claimAll(t, b, "fair-q"), "before maintain, a fair claim takes only the job the setter saw")

			settleFair(t, b, "fair-q")
			require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE id = $1 AND fair`, stale), "maintain flagged it")
			require.Equal(t, stale, b.ClaimOne(t, testbundle.ClaimArgs{Worker: "fair-w", Queues: []string{"fair-q"}}).ID,
				"and a fair claim takes it")
		})
	}
}

// TestFairClaimsTakeEveryJobOnceMaintainSettlesWhileEnqueuesRaceTheToggle: eight connections
// enqueue into one queue without pause (jobq.enqueue, jobq.enqueue_many, and every third time both
// in a REPEATABLE READ transaction left open until the toggler has moved on once, or a while),
// while a ninth turns fair claiming off and on 20 times, each time after the enqueuers have
// inserted more jobs, and calls maintain between toggles. Once maintain has settled the queue,
// fair again, every job of it is flagged and fair claims take every job.
func TestFairClaimsTakeEveryJobOnceMaintainSettlesWhileEnqueuesRaceTheToggle(t *testing.T) {
	t.Parallel()
	const (
		enqueuers = 8
		toggles   = 20
		queue     = "flag-q"
	)
	b := testbundle.New(t)
	b.Define(t, "flag")
	_, err := b.Admin.Exec(b.Ctx, `UPDATE jobq.tasks SET queue = $1 WHERE name = 'flag'`, queue)
	require.NoError(t, err)
	_, err = b.Admin.Exec(b.Ctx, `SELECT jobq.set_fair_claiming($1, true)`, queue)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(b.Ctx, 5*time.Minute) // a liveness guard, not a speed assertion
	defer cancel()
	cs := conns(t, b.DB.Pool(t, "postgres", enqueuers+1), enqueuers+1)
	var (
		done     atomic.Bool
		inserted atomic.Int64 // jobs committed by the enqueuers
		flips    atomic.Int64 // toggles committed
	)
	errs := together(enqueuers+1, func(i int) error {
		c := cs[i]
		if i == enqueuers { // the toggler
			defer done.Store(true)
			for n := range toggles {
				// Each toggle after the enqueuers have committed more jobs, so that they overlap.
				for seen := inserted.Load(); inserted.Load() < seen+int64(enqueuers); {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					time.Sleep(time.Millisecond)
				}
				var changed bool
				if err := c.QueryRow(ctx, `SELECT jobq.set_fair_claiming($1, $2)`, queue, n%2 == 1).Scan(&changed); err != nil {
					return fmt.Errorf("toggle %d: %w", n, err)
				}
				if !changed {
					return fmt.Errorf("toggle %d to %v changed nothing", n, n%2 == 1)
				}
				flips.Add(1)
				if _, err := c.Exec(ctx, `SELECT jobq.maintain()`); err != nil {
					return fmt.Errorf("maintain after toggle %d: %w", n, err)
				}
			}
			return nil
		}
		for k := 0; !done.Load(); k++ {
			var err error
			switch k % 3 {
			case 0:
				_, err = c.Exec(ctx, `SELECT jobq.enqueue('flag')`)
				inserted.Add(1)
			case 1:
				_, err = c.Exec(ctx, `SELECT jobq.enqueue_many('[{"task": "flag"}, {"task": "flag"}, {"task": "flag"}]')`)
				inserted.Add(3)
			default:
				// A snapshot from before a toggle when one comes: committed once the toggler has
				// moved on, or after a while.
				err = pgx.BeginTxFunc(ctx, c, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
					if _, err := tx.Exec(ctx, `SELECT count(*) FROM jobq.queues`); err != nil {
						return err
					}
					f := flips.Load()
					for w := 0; w < 20 && flips.Load() == f && !done.Load(); w++ {
						time.Sleep(time.Millisecond)
					}
					if _, err := tx.Exec(ctx, `SELECT jobq.enqueue('flag')`); err != nil {
						return err
					}
					_, err := tx.Exec(ctx, `SELECT jobq.enqueue_many('[{"task": "flag"}, {"task": "flag"}]')`)
					return err
				})
				inserted.Add(3)
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				return fmt.Errorf("enqueuer %d: %w", i, err)
			}
		}
		return nil
	})
	requireNoErrors(t, errs, "enqueuer or toggler")

	total := b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE queue = $1`, queue)
	unflagged := b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE queue = $1 AND NOT fair`, queue)
	t.Logf("%d jobs enqueued across %d toggles, %d of them unflagged before maintain settled the queue", total, toggles, unflagged)
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.queues WHERE name = $1 AND fair`, queue), "the queue ends fair")
	settleFair(t, b, queue)
	require.Equal(t, 0, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE queue = $1 AND NOT fair`, queue),
		"once settled, every job of the fair queue is flagged")
	require.Equal(t, total, claimAll(t, b, queue), "fair claims take every waiting job")
}
