package sql_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
)

// TestFairClaimingServesSmallStoresUnder50Claimers is the example with 50 claimers on 50
// connections at once: in one queue and priority, one store's 5,000 due jobs enqueued an hour
// before the others, nine stores with 10 jobs each and 10 system jobs (one more store). With fair
// claiming on, every claimer claims 1 to 4 jobs at a time and completes them, until 1,000 jobs are
// claimed. Each job gets its rank in the order the claims returned (a counter the claimers share,
// bumped when a claim returns). Claims of a fair queue without limits run side by side: one may
// start from the same store as another and take the next jobs of the stores whose heads the
// other holds, and their answers reach the claimers in any order, each by at most the jobs of
// the claims in flight (50 claimers, 4 jobs each). So the 100 small-store and system jobs must all
// rank within the first 110 + 2 × 200 = 510, where in plain claim order they would come after the
// 5,000. No job is claimed twice.
func TestFairClaimingServesSmallStoresUnder50Claimers(t *testing.T) {
	t.Parallel()
	const (
		claimers  = 50
		maxBatch  = 4
		bigJobs   = 5000
		stores    = 9 // and the system jobs
		perStore  = 10
		stopAfter = 1000
	)
	small := (stores + 1) * perStore
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: claimers})
	b.Define(t, "fair")
	_, err := b.Admin.Exec(b.Ctx, `
		INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
		SELECT 'fair', 'fair-q', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 3, now() - interval '1 hour' FROM generate_series(1, $1)`, bigJobs)
	require.NoError(t, err)
	_, err = b.Admin.Exec(b.Ctx, `
		INSERT INTO jobq.jobs (task, queue, store_id, max_attempts)
		SELECT 'fair', 'fair-q', CASE WHEN s = 0 THEN NULL ELSE ('00000000-0000-0000-0000-' || lpad(s::text, 12, '0'))::uuid END, 3
		FROM generate_series(0, $1) AS s, generate_series(1, $2) AS n ORDER BY s, n`, stores, perStore)
	require.NoError(t, err)
	var changed bool
	require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT jobq.set_fair_claiming('fair-q', true)`).Scan(&changed))
	require.True(t, changed)

	ctx, cancel := context.WithTimeout(b.Ctx, 3*time.Minute) // a liveness guard, not a speed assertion
	defer cancel()
	workerConns := conns(t, b.WorkerPool, claimers)
	var (
		rank    atomic.Int64
		mu      sync.Mutex
		ranks   = make(map[int64]int64, stopAfter+claimers*maxBatch)
		storeOf = make(map[int64]string, stopAfter+claimers*maxBatch)
	)
	errs := together(claimers, func(i int) error {
		client := jobq.NewClient(workerConns[i])
		worker := fmt.Sprintf("claimer-%02d", i)
		for rank.Load() < stopAfter {
			jobs, err := client.Claim(ctx, worker, []string{"fair-q"}, 1+i%maxBatch, 30*time.Second)
			if err != nil {
				return fmt.Errorf("%s: claim: %w", worker, err)
			}
			if len(jobs) == 0 {
				return fmt.Errorf("%s: a claim found nothing with %d jobs left", worker, bigJobs+small-int(rank.Load()))
			}
			last := rank.Add(int64(len(jobs)))
			mu.Lock()
			for k, j := range jobs {
				if _, dup := ranks[j.ID]; dup {
					mu.Unlock()
					return fmt.Errorf("%s: job %d claimed twice", worker, j.ID)
				}
				ranks[j.ID] = last - int64(len(jobs)) + int64(k) + 1
				if j.StoreID != nil {
					storeOf[j.ID] = *j.StoreID
				} else {
					storeOf[j.ID] = "system"
				}
			}
			mu.Unlock()
			if err := completeSucceeded(ctx, client, worker, jobs); err != nil {
				return err
			}
		}
		return nil
	})
	requireNoErrors(t, errs, "claimer")

	var smallSeen, worst int64
	for id, r := range ranks {
		if storeOf[id] == "ffffffff-ffff-ffff-ffff-ffffffffffff" {
			continue
		}
		smallSeen++
		worst = max(worst, r)
	}
	// The same rank from the database: the jobs in the order their claims began (claimed_at, the
	// start of the claim's transaction), which no scheduling of the claimers' goroutines skews.
	dbWorst := b.Count(t, `SELECT max(r) FROM (SELECT store_id, row_number() OVER (ORDER BY claimed_at, id) AS r
	                                           FROM jobq.job_history) AS h
	                       WHERE store_id IS DISTINCT FROM 'ffffffff-ffff-ffff-ffff-ffffffffffff'`)
	t.Logf("%d jobs claimed; the last small-store or system job ranked %d as the claims returned, %d as they began", len(ranks), worst, dbWorst)
	require.EqualValues(t, small, smallSeen, "every small-store and system job was claimed")
	require.LessOrEqual(t, dbWorst, small+stores+1+2*claimers*maxBatch,
		"the small stores' jobs all came within the first 110 claimed (and twice the claims in flight)")
	require.Equal(t, len(ranks), b.Count(t, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded' AND attempt = 1`),
		"every claimed job succeeded in its first attempt")
}

// TestFairClaimsSideBySideTakeEachStoresNextJobs: two claims of a fair queue without limits, the
// first still open (its transaction holds the rows it claimed), start from the same store. The
// second neither waits for the first nor comes back empty: it takes the next job of each store
// whose first job the first claim holds, in the same turn, and no job twice.
func TestFairClaimsSideBySideTakeEachStoresNextJobs(t *testing.T) {
	t.Parallel()
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: 2})
	b.Define(t, "fair")
	_, err := b.Admin.Exec(b.Ctx, `
		INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
		SELECT 'fair', 'side-q', ('00000000-0000-0000-0000-' || lpad(s::text, 12, '0'))::uuid, 3, now() - interval '1 minute' * (10 - n)
		FROM generate_series(1, 3) AS s, generate_series(1, 3) AS n`)
	require.NoError(t, err)
	_, err = b.Admin.Exec(b.Ctx, `SELECT jobq.set_fair_claiming('side-q', true)`)
	require.NoError(t, err)
	two := conns(t, b.WorkerPool, 2)

	ctx, cancel := context.WithTimeout(b.Ctx, time.Minute) // a liveness guard
	defer cancel()
	first, err := two[0].Begin(ctx)
	require.NoError(t, err)
	defer first.Rollback(context.WithoutCancel(ctx))
	require.Len(t, claimIDsIn(ctx, t, first, "side-1", "side-q", 3), 3, "the first claim takes one job of each store")
	require.Len(t, claimIDsIn(ctx, t, two[1], "side-2", "side-q", 3), 3, "the second claim, side by side, is neither blocked nor empty")
	require.NoError(t, first.Commit(ctx))
	require.Equal(t, 3, b.Count(t, `SELECT count(DISTINCT store_id) FROM jobq.jobs WHERE locked_by = 'side-1'`),
		"the first claim served every store")
	require.Equal(t, 3, b.Count(t, `SELECT count(DISTINCT store_id) FROM jobq.jobs WHERE locked_by = 'side-2'`),
		"the second claim served every store in the same turn")
	require.Equal(t, 3, b.Count(t, `
		SELECT count(*) FROM jobq.jobs s
		WHERE s.locked_by = 'side-2'
		  AND (s.run_at, s.id) > (SELECT f.run_at, f.id FROM jobq.jobs f WHERE f.locked_by = 'side-1' AND f.store_id = s.store_id)
		  AND NOT EXISTS (SELECT 1 FROM jobq.jobs m WHERE m.store_id = s.store_id AND m.state = 'queued' AND (m.run_at, m.id) < (s.run_at, s.id))`),
		"each store's job the second claim took is the one after the first claim's, nothing skipped")
}

// TestOneStoreFairClaimsSideBySideTakeTheNextJobs: two claims of a fair queue whose backlog is one
// store's (jobq._pick_fair's one-store scan), the first still open. The second neither waits for
// the first nor comes back empty: it takes the store's next jobs after those the first holds, in
// claim order, and no job twice.
func TestOneStoreFairClaimsSideBySideTakeTheNextJobs(t *testing.T) {
	t.Parallel()
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: 2})
	b.Define(t, "fair")
	_, err := b.Admin.Exec(b.Ctx, `
		INSERT INTO jobq.jobs (task, queue, store_id, max_attempts, run_at)
		SELECT 'fair', 'one-q', 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', 3, now() - interval '1 minute' * (10 - n)
		FROM generate_series(1, 9) AS n`)
	require.NoError(t, err)
	_, err = b.Admin.Exec(b.Ctx, `SELECT jobq.set_fair_claiming('one-q', true)`)
	require.NoError(t, err)
	two := conns(t, b.WorkerPool, 2)

	// A claim that waited for the first would wait until the test's end: a liveness guard.
	ctx, cancel := context.WithTimeout(b.Ctx, 30*time.Second)
	defer cancel()
	first, err := two[0].Begin(ctx)
	require.NoError(t, err)
	defer first.Rollback(context.WithoutCancel(ctx))
	require.Len(t, claimIDsIn(ctx, t, first, "one-1", "one-q", 3), 3, "the first claim takes three jobs")
	require.Len(t, claimIDsIn(ctx, t, two[1], "one-2", "one-q", 3), 3, "the second claim, side by side, is neither blocked nor empty")
	require.NoError(t, first.Commit(ctx))
	rank := func(worker string) string {
		return fmt.Sprintf(`SELECT array_agg(r ORDER BY r)::text FROM (
			SELECT locked_by, row_number() OVER (ORDER BY run_at, id) AS r FROM jobq.jobs) AS j WHERE locked_by = '%s'`, worker)
	}
	var got1, got2 string
	require.NoError(t, b.Admin.QueryRow(b.Ctx, rank("one-1")).Scan(&got1))
	require.NoError(t, b.Admin.QueryRow(b.Ctx, rank("one-2")).Scan(&got2))
	require.Equal(t, "{1,2,3}", got1, "the first claim took the store's first three jobs")
	require.Equal(t, "{4,5,6}", got2, "the second took the next three, nothing skipped and none twice")
}

// claimIDsIn claims up to n jobs of queue for worker through q (a pooled connection or an open
// transaction) and returns their ids.
func claimIDsIn(ctx context.Context, t *testing.T, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, worker, queue string, n int) []int64 {
	t.Helper()
	rows, err := q.Query(ctx, `SELECT id FROM jobq.claim_job($1, ARRAY[$2], $3)`, worker, queue, n)
	require.NoError(t, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	return ids
}
