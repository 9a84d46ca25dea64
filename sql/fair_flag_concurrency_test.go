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

// TestFairFlagFollowsItsQueueWhileEnqueuesRaceTheToggle: every job carries its queue's fair
// (jobq.jobs.fair, the predicate of jobs_fair_idx), read by the statement that inserts it, and
// jobq.set_fair_claiming rewrites it for the queue's jobs under a lock of jobq.jobs that waits
// for open writers and holds off new ones. Eight connections enqueue into one queue without
// pause (jobq.enqueue, jobq.enqueue_many, and every third time both in a transaction left open
// until the toggler has moved on once, or a while), while a ninth turns fair claiming off and on
// 20 times, each time after the enqueuers have inserted more jobs. Afterwards no job's flag
// differs from its queue's fair, and a claim of the queue, fair again, takes every waiting job.
// Without the lock, an insert that read the queue before a toggle committed, or a transaction
// still open when it ran, leaves jobs flagged as the queue was.
func TestFairFlagFollowsItsQueueWhileEnqueuesRaceTheToggle(t *testing.T) {
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
				// Open across a toggle when one comes: committed once the toggler has moved on
				// (it waits for this transaction first), or after a while.
				err = pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
					if _, err := tx.Exec(ctx, `SELECT jobq.enqueue('flag')`); err != nil {
						return err
					}
					if _, err := tx.Exec(ctx, `SELECT jobq.enqueue_many('[{"task": "flag"}, {"task": "flag"}]')`); err != nil {
						return err
					}
					f := flips.Load()
					for w := 0; w < 20 && flips.Load() == f && !done.Load(); w++ {
						time.Sleep(time.Millisecond)
					}
					return nil
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
	t.Logf("%d jobs enqueued across %d toggles", total, toggles)
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.queues WHERE name = $1 AND fair`, queue), "the queue ends fair")
	require.Equal(t, 0, b.Count(t, `
		SELECT count(*) FROM jobq.jobs j LEFT JOIN jobq.queues q ON q.name = j.queue
		WHERE j.fair IS DISTINCT FROM coalesce(q.fair, false)`), "no job's fair differs from its queue's")
	claimed := 0
	for {
		n := b.Count(t, `SELECT count(*) FROM jobq.claim_job('flag-w', ARRAY[$1], 10000)`, queue)
		if n == 0 {
			break
		}
		claimed += n
	}
	require.Equal(t, total, claimed, "fair claims take every waiting job")
}
