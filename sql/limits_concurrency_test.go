package sql_test

import (
	"context"
	"fmt"
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
// pick comes before the lock, through jobq._pick_fair). Each claimer lists the three queues in its own rotation (so
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

	setControls(t, b,
		fmt.Sprintf(`SELECT jobq.set_concurrency_limit('lim-queue', %d)`, queueLimit),
		fmt.Sprintf(`SELECT jobq.set_store_concurrency_limit('lim-store', %d)`, storeLimit),
		fmt.Sprintf(`SELECT jobq.set_partition_concurrency_limit('lim-part', 'customerId', %d)`, partitionLimit),
		fmt.Sprintf(`SELECT jobq.set_store_concurrency_limit('lim-fair', %d)`, storeLimit),
		`SELECT jobq.set_fair_claiming('lim-fair', true)`)

	// The sampler: one connection, one statement after another, until the claimers are done.
	sampling := startSampler(t, b.Ctx, b.Admin, `
		SELECT (SELECT count(*) FROM jobq.jobs WHERE state = 'running' AND queue = 'lim-queue'),
		       (SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM jobq.jobs
		                                         WHERE state = 'running' AND queue = 'lim-store' GROUP BY store_id) s),
		       (SELECT count(*) FROM jobq.jobs WHERE state = 'running' AND queue = 'lim-store'),
		       (SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM jobq.jobs
		                                         WHERE state = 'running' AND queue = 'lim-part' GROUP BY payload ->> 'customerId') s),
		       (SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM jobq.jobs
		                                         WHERE state = 'running' AND queue = 'lim-fair' GROUP BY store_id) s)`, 5)

	// A liveness guard, not a speed assertion: a job the limits hold back forever would otherwise
	// hang the test.
	ctx, cancel := context.WithTimeout(b.Ctx, 3*time.Minute)
	defer cancel()
	queues := []string{"lim-queue", "lim-store", "lim-part", "lim-fair"}
	workerConns := conns(t, b.WorkerPool, claimers)
	claimed := make([][]jobq.Job, claimers)
	// The jobs run 2 ms, so that claims overlap them.
	errs := drainTogether(ctx, workerConns, rotated(queues), total, 2*time.Millisecond, func(i int, jobs []jobq.Job) {
		claimed[i] = append(claimed[i], jobs...)
	})
	rows, errSamp := sampling.finish()
	requireNoErrors(t, errs, "claimer")
	require.NoError(t, errSamp, "sampler")

	var most limitSample
	samples := make([]limitSample, len(rows))
	for n, r := range rows {
		samples[n] = limitSample{Queue: r[0], StoreMax: r[1], StoreTotal: r[2], PartitionMax: r[3], FairStoreMax: r[4]}
	}
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

// TestSharedClaimsHoldTheLimitsUnder50Claimers drains two queues whose limits are far above a
// shared claim's margin (jobq._pick_limited: claims of at most 16 jobs count side by side under
// one of 8 slots while 7 batches of 16 stay below the lowest limit) with 50 claimers on 50
// connections, each listing one queue and asking for 1 to 16 jobs, which run 30 ms: one queue
// with max_running 150, and a fair one with 130 per store (four stores and the system jobs). The
// claimers ask for more than the limits allow, so the running jobs stay at the limit and claims
// race for it, shared ones and those under the queue's lock alone. (With no room left for the
// other slot holders, a shared claim took the queue past 150: 158 running, seen by this test.) A separate connection samples the running jobs and the slot locks
// held as fast as it can: no sample may exceed a limit, shared claims must have run side by side,
// and every job must succeed, in its first attempt, exactly once.
func TestSharedClaimsHoldTheLimitsUnder50Claimers(t *testing.T) {
	t.Parallel()
	const (
		claimers   = 50
		queueLimit = 150
		storeLimit = 130
		queueJobs  = 3000
		stores     = 4
		perStore   = 500 // and as many system jobs
	)
	total := queueJobs + (stores+1)*perStore
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: claimers})
	b.Define(t, "limited")
	_, err := b.Admin.Exec(b.Ctx, `
		INSERT INTO jobq.jobs (task, queue, max_attempts) SELECT 'limited', 'shared-queue', 3 FROM generate_series(1, $1);
		`, queueJobs)
	require.NoError(t, err)
	_, err = b.Admin.Exec(b.Ctx, `
		INSERT INTO jobq.jobs (task, queue, store_id, max_attempts)
		SELECT 'limited', 'shared-store', CASE WHEN s = 0 THEN NULL ELSE ('00000000-0000-0000-0000-' || lpad(s::text, 12, '0'))::uuid END, 3
		FROM generate_series(0, $1) AS s, generate_series(1, $2) AS n ORDER BY s, n`, stores, perStore)
	require.NoError(t, err)
	setControls(t, b,
		fmt.Sprintf(`SELECT jobq.set_concurrency_limit('shared-queue', %d)`, queueLimit),
		fmt.Sprintf(`SELECT jobq.set_store_concurrency_limit('shared-store', %d)`, storeLimit),
		`SELECT jobq.set_fair_claiming('shared-store', true)`)

	sampling := startSampler(t, b.Ctx, b.Admin, `
		SELECT (SELECT count(*) FROM jobq.jobs WHERE state = 'running' AND queue = 'shared-queue'),
		       (SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM jobq.jobs
		                                         WHERE state = 'running' AND queue = 'shared-store' GROUP BY store_id) s),
		       (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted
		                                        AND classid BETWEEN 1785684594 AND 1785684601)`, 3)

	ctx, cancel := context.WithTimeout(b.Ctx, 3*time.Minute)
	defer cancel()
	plan := func(i int) ([]string, int) {
		return []string{[]string{"shared-queue", "shared-store"}[i%2]}, 1 + i%16
	}
	claimed := make([][]jobq.Job, claimers)
	errs := drainTogether(ctx, conns(t, b.WorkerPool, claimers), plan, total, 30*time.Millisecond, func(i int, jobs []jobq.Job) {
		claimed[i] = append(claimed[i], jobs...)
	})
	samples, errSamp := sampling.finish()
	requireNoErrors(t, errs, "claimer")
	require.NoError(t, errSamp, "sampler")

	type sample struct{ queue, storeMax, slots int }
	var most sample
	for n, r := range samples {
		s := sample{r[0], r[1], r[2]}
		require.LessOrEqual(t, s.queue, queueLimit, "sample %d: %d jobs of shared-queue running", n, s.queue)
		require.LessOrEqual(t, s.storeMax, storeLimit, "sample %d: %d jobs of one store running in shared-store", n, s.storeMax)
		most = sample{max(most.queue, s.queue), max(most.storeMax, s.storeMax), max(most.slots, s.slots)}
	}
	t.Logf("%d samples; most running: shared-queue %d, one store of shared-store %d; most slots held at once %d",
		len(samples), most.queue, most.storeMax, most.slots)
	require.Greater(t, len(samples), 50, "the sampler ran throughout the drain")
	require.Greater(t, most.slots, 1, "shared claims ran side by side")
	require.Greater(t, most.queue, queueLimit-7*16, "the drain went past what shared claims alone take")

	seen := make(map[int64]bool, total)
	for _, jobs := range claimed {
		for _, j := range jobs {
			require.False(t, seen[j.ID], "job %d claimed twice", j.ID)
			seen[j.ID] = true
			require.Equal(t, 1, j.Attempt, "job %d: a job the limits held back used no attempt", j.ID)
		}
	}
	require.Len(t, seen, total, "every job was claimed")
	require.Equal(t, total, b.Count(t, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded' AND attempt = 1`),
		"every job succeeded in its first attempt")
}

// TestSharedClaimsLeaveRoomForEverySlotHolder holds eight shared claims of a queue limited to 200
// open at once, each in its own uncommitted transaction, with 80 jobs already running: none of
// them sees the others' jobs, so each may take only what leaves seven batches of 16 below the
// limit (8 of the 16 it asks for), and together they cannot pass it. A ninth claim finds every
// slot taken and waits for the queue's lock alone until the eight commit, then counts all of them
// and takes its 16.
func TestSharedClaimsLeaveRoomForEverySlotHolder(t *testing.T) {
	t.Parallel()
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: 10})
	b.Define(t, "limited")
	_, err := b.Admin.Exec(b.Ctx, `INSERT INTO jobq.jobs (task, queue, max_attempts) SELECT 'limited', 'slots', 3 FROM generate_series(1, 300)`)
	require.NoError(t, err)
	var changed bool
	require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT jobq.set_concurrency_limit('slots', 200)`).Scan(&changed))
	workers := conns(t, b.WorkerPool, 10)
	first, err := jobq.NewClient(workers[9]).Claim(b.Ctx, "before", []string{"slots"}, 80, time.Minute)
	require.NoError(t, err)
	require.Equal(t, 80, len(first), "a claim of 80 (above a shared claim's batch) takes 80")

	txs := make([]pgx.Tx, 8)
	for i := range txs {
		txs[i], err = workers[i].Begin(b.Ctx)
		require.NoError(t, err)
		defer func() { _ = txs[i].Rollback(context.WithoutCancel(b.Ctx)) }()
		got, err := jobq.NewClient(txs[i]).Claim(b.Ctx, fmt.Sprintf("holder-%d", i), []string{"slots"}, 16, time.Minute)
		require.NoError(t, err)
		require.Equal(t, 8, len(got), "shared claim %d: 200 - 7 × 16 - 80 running leaves it 8", i)
	}

	type result struct {
		jobs []jobq.Job
		err  error
	}
	ninth := make(chan result, 1)
	go func() {
		jobs, err := jobq.NewClient(workers[8]).Claim(b.Ctx, "ninth", []string{"slots"}, 16, time.Minute)
		ninth <- result{jobs, err}
	}()
	require.Eventually(t, func() bool {
		return b.Count(t, `SELECT count(*) FROM pg_stat_activity
		                   WHERE wait_event_type = 'Lock' AND wait_event = 'advisory' AND query LIKE '%claim_job%'`) == 1
	}, time.Minute, 10*time.Millisecond, "the ninth claim waits for the queue's lock") // a ceiling for a loaded machine
	select {
	case r := <-ninth:
		t.Fatalf("the ninth claim returned while the eight held their slots: %d jobs, %v", len(r.jobs), r.err)
	default:
	}
	for i, tx := range txs {
		require.NoError(t, tx.Commit(b.Ctx), "commit %d", i)
	}
	r := <-ninth
	require.NoError(t, r.err)
	require.Equal(t, 16, len(r.jobs), "the ninth claim counts the 144 running and takes its 16")
	require.Equal(t, 160, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE queue = 'slots' AND state = 'running'`))
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
	setControls(t, b,
		fmt.Sprintf(`SELECT jobq.set_rate_limit('rate-queue', %d, '%s')`, queueRate, windowSpec),
		fmt.Sprintf(`SELECT jobq.set_store_rate_limit('rate-store', %d, '%s')`, storeRate, windowSpec))

	ctx, cancel := context.WithTimeout(b.Ctx, 3*time.Minute) // a liveness guard, not a speed assertion
	defer cancel()
	queues := []string{"rate-queue", "rate-store"}
	workerConns := conns(t, b.WorkerPool, claimers)
	errs := drainTogether(ctx, workerConns, rotated(queues), total, 0, nil)
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
