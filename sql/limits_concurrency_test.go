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

// limitSample is what the sampler saw in one statement (one snapshot) of the running jobs.
type limitSample struct {
	Queue        int // running jobs of the queue with max_running
	StoreMax     int // the most running jobs of one store in the queue with max_running_per_store
	StoreTotal   int // running jobs of that queue, every store
	PartitionMax int // the most running jobs of one customerId in the queue with a partition limit
	FairStoreMax int // the most running jobs of one store in the fair queue with max_running_per_store
}

// TestConcurrencyLimitsHoldUnder50Claimers drains four limited queues with 50 claimers on 50
// connections at once: one with max_running 4, one with 2 per store (eight stores and the system
// jobs), one with 1 per customerId, and a fair one with 2 per store (as many stores; its first
// pick comes before the lock, through jobq._fair_pick). Each claimer lists the three queues in its own rotation (so
// two claims lock the limited queues in different list orders), asks for 1 to 4 jobs, holds what
// it got for a moment and completes it. A separate connection counts the running jobs per queue,
// store and customer as fast as it can; no sample may exceed a limit, and every job must still
// succeed, in its first attempt, exactly once.
func TestConcurrencyLimitsHoldUnder50Claimers(t *testing.T) {
	t.Parallel()
	const (
		claimers       = 50
		queueLimit     = 4
		storeLimit     = 2
		partitionLimit = 1
		queueJobs      = 300
		stores         = 8
		perStore       = 30 // and as many system jobs
		customers      = 5
		perCustomer    = 30
	)
	total := queueJobs + 2*(stores+1)*perStore + customers*perCustomer
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: claimers})
	b.Define(t, "limited")

	_, err := b.Admin.Exec(b.Ctx, `
		INSERT INTO jobq.jobs (task, queue, max_attempts)
		SELECT 'limited', 'lim-queue', 3 FROM generate_series(1, $1);
		`, queueJobs)
	require.NoError(t, err)
	_, err = b.Admin.Exec(b.Ctx, `
		INSERT INTO jobq.jobs (task, queue, store_id, max_attempts)
		SELECT 'limited', q, CASE WHEN s = 0 THEN NULL ELSE ('00000000-0000-0000-0000-' || lpad(s::text, 12, '0'))::uuid END, 3
		FROM unnest(ARRAY['lim-store', 'lim-fair']) AS q, generate_series(0, $1) AS s, generate_series(1, $2) AS n
		ORDER BY q, s, n`, stores, perStore)
	require.NoError(t, err)
	_, err = b.Admin.Exec(b.Ctx, `
		INSERT INTO jobq.jobs (task, queue, payload, max_attempts)
		SELECT 'limited', 'lim-part', jsonb_build_object('customerId', 'c' || c, 'n', n), 3
		FROM generate_series(1, $1) AS c, generate_series(1, $2) AS n
		ORDER BY c, n`, customers, perCustomer)
	require.NoError(t, err)
	require.Equal(t, total, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE state = 'queued'`))

	for _, set := range []string{
		fmt.Sprintf(`SELECT jobq.set_concurrency_limit('lim-queue', %d)`, queueLimit),
		fmt.Sprintf(`SELECT jobq.set_store_concurrency_limit('lim-store', %d)`, storeLimit),
		fmt.Sprintf(`SELECT jobq.set_partition_concurrency_limit('lim-part', 'customerId', %d)`, partitionLimit),
		fmt.Sprintf(`SELECT jobq.set_store_concurrency_limit('lim-fair', %d)`, storeLimit),
		`SELECT jobq.set_fair_claiming('lim-fair', true)`,
	} {
		var changed bool
		require.NoError(t, b.Admin.QueryRow(b.Ctx, set).Scan(&changed), set)
		require.True(t, changed, set)
	}

	// The sampler: one connection, one statement after another, until the claimers are done.
	sampler, err := b.Admin.Acquire(b.Ctx)
	require.NoError(t, err)
	defer sampler.Release()
	var (
		stop     atomic.Bool
		samples  []limitSample
		sampleWG sync.WaitGroup
		errSamp  error
	)
	sampleWG.Add(1)
	go func() {
		defer sampleWG.Done()
		for !stop.Load() {
			var s limitSample
			errSamp = sampler.QueryRow(b.Ctx, `
				SELECT (SELECT count(*) FROM jobq.jobs WHERE state = 'running' AND queue = 'lim-queue'),
				       (SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM jobq.jobs
				                                         WHERE state = 'running' AND queue = 'lim-store' GROUP BY store_id) s),
				       (SELECT count(*) FROM jobq.jobs WHERE state = 'running' AND queue = 'lim-store'),
				       (SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM jobq.jobs
				                                         WHERE state = 'running' AND queue = 'lim-part' GROUP BY payload ->> 'customerId') s),
				       (SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM jobq.jobs
				                                         WHERE state = 'running' AND queue = 'lim-fair' GROUP BY store_id) s)`,
			).Scan(&s.Queue, &s.StoreMax, &s.StoreTotal, &s.PartitionMax, &s.FairStoreMax)
			if errSamp != nil {
				return
			}
			samples = append(samples, s)
		}
	}()

	// A liveness guard, not a speed assertion: a job the limits hold back forever would otherwise
	// hang the test.
	ctx, cancel := context.WithTimeout(b.Ctx, 3*time.Minute)
	defer cancel()
	queues := []string{"lim-queue", "lim-store", "lim-part", "lim-fair"}
	workerConns := conns(t, b.WorkerPool, claimers)
	claimed := make([][]jobq.Job, claimers)
	// The jobs run 2 ms, so that claims overlap them.
	errs := drainTogether(ctx, workerConns, queues, total, 2*time.Millisecond, func(i int, jobs []jobq.Job) {
		claimed[i] = append(claimed[i], jobs...)
	})
	stop.Store(true)
	sampleWG.Wait()
	requireNoErrors(t, errs, "claimer")
	require.NoError(t, errSamp, "sampler")

	var most limitSample
	for n, s := range samples {
		require.LessOrEqual(t, s.Queue, queueLimit, "sample %d: %d jobs of lim-queue running", n, s.Queue)
		require.LessOrEqual(t, s.StoreMax, storeLimit, "sample %d: %d jobs of one store running in lim-store", n, s.StoreMax)
		require.LessOrEqual(t, s.PartitionMax, partitionLimit, "sample %d: %d jobs of one customer running in lim-part", n, s.PartitionMax)
		require.LessOrEqual(t, s.FairStoreMax, storeLimit, "sample %d: %d jobs of one store running in lim-fair", n, s.FairStoreMax)
		most.Queue = max(most.Queue, s.Queue)
		most.StoreMax = max(most.StoreMax, s.StoreMax)
		most.StoreTotal = max(most.StoreTotal, s.StoreTotal)
	}
	t.Logf("%d samples; most running: lim-queue %d, one store %d, lim-store %d", len(samples), most.Queue, most.StoreMax, most.StoreTotal)
	require.Greater(t, len(samples), 50, "the sampler ran throughout the drain")
	require.Greater(t, most.Queue, 1, "claims of lim-queue ran side by side")
	require.Greater(t, most.StoreTotal, storeLimit, "several stores ran at once: the limit is per store")

	seen := make(map[int64]string, total)
	for i, jobs := range claimed {
		for _, j := range jobs {
			prev, dup := seen[j.ID]
			require.False(t, dup, "job %d claimed by %s and by claimer-%02d", j.ID, prev, i)
			seen[j.ID] = fmt.Sprintf("claimer-%02d", i)
			require.Equal(t, 1, j.Attempt, "job %d: a job the limits held back used no attempt", j.ID)
		}
	}
	require.Len(t, seen, total, "every job was claimed")
	require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.jobs`), "jobq.jobs is empty")
	require.Equal(t, total, b.Count(t, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded' AND attempt = 1`),
		"every job succeeded in its first attempt")
}

// TestRateLimitsHoldUnder50Claimers drains a queue with a rate limit of 5 starts per 200 ms and
// one with 2 starts per store per 200 ms (three stores and the system jobs) with 50 claimers on
// 50 connections, each completing what it claimed at once. No window of 200 ms may hold more
// starts than its limit: every start's claimed_at (the instant the claim counted the window,
// under the queue's lock) is checked against the starts before it, so every window that ends at
// a start is checked, and those are the windows with the most starts. Every job must still
// succeed exactly once.
func TestRateLimitsHoldUnder50Claimers(t *testing.T) {
	t.Parallel()
	const (
		claimers   = 50
		queueRate  = 5
		storeRate  = 2
		queueJobs  = 40
		stores     = 3
		perStore   = 8 // and as many system jobs
		windowMs   = 200
		windowSpec = "200 milliseconds"
	)
	total := queueJobs + (stores+1)*perStore
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: claimers})
	b.Define(t, "rated")
	_, err := b.Admin.Exec(b.Ctx, `INSERT INTO jobq.jobs (task, queue, max_attempts) SELECT 'rated', 'rate-queue', 3 FROM generate_series(1, $1)`, queueJobs)
	require.NoError(t, err)
	_, err = b.Admin.Exec(b.Ctx, `
		INSERT INTO jobq.jobs (task, queue, store_id, max_attempts)
		SELECT 'rated', 'rate-store', CASE WHEN s = 0 THEN NULL ELSE ('00000000-0000-0000-0000-' || lpad(s::text, 12, '0'))::uuid END, 3
		FROM generate_series(0, $1) AS s, generate_series(1, $2) AS n ORDER BY s, n`, stores, perStore)
	require.NoError(t, err)
	for _, set := range []string{
		fmt.Sprintf(`SELECT jobq.set_rate_limit('rate-queue', %d, '%s')`, queueRate, windowSpec),
		fmt.Sprintf(`SELECT jobq.set_store_rate_limit('rate-store', %d, '%s')`, storeRate, windowSpec),
	} {
		var changed bool
		require.NoError(t, b.Admin.QueryRow(b.Ctx, set).Scan(&changed), set)
		require.True(t, changed, set)
	}

	ctx, cancel := context.WithTimeout(b.Ctx, 3*time.Minute) // a liveness guard, not a speed assertion
	defer cancel()
	queues := []string{"rate-queue", "rate-store"}
	workerConns := conns(t, b.WorkerPool, claimers)
	errs := drainTogether(ctx, workerConns, queues, total, 0, nil)
	requireNoErrors(t, errs, "claimer")

	require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.jobs`), "jobq.jobs is empty")
	require.Equal(t, total, b.Count(t, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded' AND attempt = 1`),
		"every job succeeded in its first attempt")
	// The most starts in a window of 200 ms that ends at a start, per queue and per store.
	type windowMax struct {
		Queue string
		Store string
		Most  int
	}
	rows, err := b.Admin.Query(b.Ctx, `
		SELECT w.queue, w.grp, max(w.n)::integer
		FROM (SELECT h.queue, CASE WHEN h.queue = 'rate-store' THEN coalesce(h.store_id::text, 'system') ELSE '' END AS grp,
		             (SELECT count(*) FROM jobq.job_history o
		              WHERE o.queue = h.queue
		                AND (h.queue = 'rate-queue' OR o.store_id IS NOT DISTINCT FROM h.store_id)
		                AND o.claimed_at > h.claimed_at - make_interval(secs => $1::double precision / 1000)
		                AND o.claimed_at <= h.claimed_at) AS n
		      FROM jobq.job_history h) AS w
		GROUP BY 1, 2 ORDER BY 1, 2`, windowMs)
	require.NoError(t, err)
	maxima, err := pgx.CollectRows(rows, pgx.RowToStructByPos[windowMax])
	require.NoError(t, err)
	require.Len(t, maxima, 1+stores+1, "one row for rate-queue, one per store and the system jobs")
	for _, m := range maxima {
		limit := queueRate
		if m.Queue == "rate-store" {
			limit = storeRate
		}
		t.Logf("%s %s: at most %d starts in a window of %d ms", m.Queue, m.Store, m.Most, windowMs)
		require.LessOrEqual(t, m.Most, limit, "%s %s: %d starts in one window of %d ms", m.Queue, m.Store, m.Most, windowMs)
		require.Equal(t, limit, m.Most, "%s %s: the claimers reached the limit (else the test proves nothing)", m.Queue, m.Store)
	}
}

// TestControlSettersUnder50CallersAtOnce: 50 operators set the controls of a queue that has no
// jobq.queues row yet at the same moment, 25 turning fair claiming on and 25 setting the same
// concurrency limit. The queue gets one row, each control changes once (one caller of each kind
// is told true, the others false), and the audit log holds one entry of each.
func TestControlSettersUnder50CallersAtOnce(t *testing.T) {
	t.Parallel()
	const callers = 50
	b := testbundle.New(t)
	b.Define(t, "race")
	_, err := b.Admin.Exec(b.Ctx, `UPDATE jobq.tasks SET queue = 'race-q' WHERE name = 'race'`)
	require.NoError(t, err)
	ops := conns(t, b.DB.Pool(t, "postgres", callers), callers)
	changed := make([]bool, callers)
	errs := together(callers, func(i int) error {
		query := `SELECT jobq.set_fair_claiming('race-q', true)`
		if i%2 == 1 {
			query = `SELECT jobq.set_concurrency_limit('race-q', 7)`
		}
		return ops[i].QueryRow(b.Ctx, query).Scan(&changed[i])
	})
	requireNoErrors(t, errs, "setter")
	var fairTrue, limitTrue int
	for i, c := range changed {
		if c && i%2 == 0 {
			fairTrue++
		}
		if c && i%2 == 1 {
			limitTrue++
		}
	}
	require.Equal(t, 1, fairTrue, "one caller turned fair claiming on; the others found it on")
	require.Equal(t, 1, limitTrue, "one caller set the limit; the others found it set")
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.queues WHERE name = 'race-q' AND fair AND max_running = 7`))
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.audit_log WHERE action = 'set_fair_claiming'`))
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.audit_log WHERE action = 'set_concurrency_limit'`))
}
