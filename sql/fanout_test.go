package sql_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
)

// addStores inserts n stores into public.store (the minimal table the migrations made) and
// returns their ids in id order. As the superuser: the application owns its stores.
func addStores(t *testing.T, b *testbundle.Bundle, n int) []string {
	t.Helper()
	rows, err := b.Admin.Query(b.Ctx, `
		WITH s AS (INSERT INTO public.store (name) SELECT 'store ' || i FROM generate_series(1, $1) AS i RETURNING id)
		SELECT id::text FROM s ORDER BY id`, n)
	require.NoError(t, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Len(t, ids, n)
	return ids
}

// fanOutTimed fans task out for every store as worker_runtime and returns how many jobs it
// reported and how long the call took.
func fanOutTimed(t *testing.T, b *testbundle.Bundle, task string) (int, time.Duration) {
	t.Helper()
	began := time.Now()
	n, err := b.Worker.FanOut(b.Ctx, task, map[string]string{"reason": "nightly"}, "expire_tentative:{storeId}", "")
	took := time.Since(began)
	require.NoError(t, err)
	return n, took
}

// Store jobs for every store go through jobq.fan_out (seed GWT-5, GWT-6), called by a runner's
// worker_runtime role.
func TestFanOut(t *testing.T) {
	t.Parallel()

	// GWT-5: one job per store, each with its store, its payload and its own key. GWT-6: a
	// second run (a scheduler that fires twice) adds nothing.
	t.Run("OneJobPerStoreAndNoDuplicates", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.DefineStore(t, "expire-tentative-for-store")
		stores := addStores(t, b, 3)

		n, err := b.Worker.FanOut(b.Ctx, "expire-tentative-for-store", map[string]string{"reason": "nightly"},
			"expire_tentative:{storeId}", "")
		require.NoError(t, err)
		require.Equal(t, 3, n)
		first := b.Rows(t, "jobs", "true")
		require.Len(t, first, 3)
		for i, row := range first {
			require.Equal(t, "expire-tentative-for-store", row.Task)
			require.Equal(t, testbundle.Ptr(stores[i]), row.StoreID)
			require.Equal(t, testbundle.Ptr("expire_tentative:"+stores[i]), row.JobKey)
			require.JSONEq(t, `{"reason": "nightly", "storeId": "`+stores[i]+`"}`, string(row.Payload))
			require.Equal(t, "queued", row.State)
		}

		n, err = b.Worker.FanOut(b.Ctx, "expire-tentative-for-store", map[string]string{"reason": "nightly"},
			"expire_tentative:{storeId}", "")
		require.NoError(t, err)
		require.Equal(t, 3, n, "the second run reports the jobs it merged into")
		second := b.Rows(t, "jobs", "true")
		require.Len(t, second, 3, "still one live job per store")
		for i := range second {
			require.Equal(t, first[i].ID, second[i].ID)
			require.True(t, first[i].RunAt.Equal(second[i].RunAt), "preserve_run_at keeps the run_at")
		}
	})

	t.Run("DefaultKeyIsTheTaskAndStore", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.DefineStore(t, "expire-tentative-for-store")
		stores := addStores(t, b, 2)
		for range 2 {
			n, err := b.Worker.FanOut(b.Ctx, "expire-tentative-for-store", nil, "", "")
			require.NoError(t, err)
			require.Equal(t, 2, n)
		}
		rows := b.Rows(t, "jobs", "true")
		require.Len(t, rows, 2)
		for i, row := range rows {
			require.Equal(t, testbundle.Ptr("expire-tentative-for-store:"+stores[i]), row.JobKey)
		}
	})

	t.Run("Refusals", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.Define(t, "nightly-rollup")
		b.DefineStore(t, "expire-tentative-for-store")
		addStores(t, b, 2)

		_, err := b.Worker.FanOut(b.Ctx, "nightly-rollup", nil, "", "")
		require.ErrorIs(t, err, jobq.ErrInvalidArgument)
		require.ErrorContains(t, err, "fan_out needs a store-scoped task; nightly-rollup is a system task")
		_, err = b.Worker.FanOut(b.Ctx, "undeclared-task", nil, "", "")
		require.ErrorIs(t, err, jobq.ErrUnknownTask)
		_, err = b.Worker.FanOut(b.Ctx, "expire-tentative-for-store", nil, "expire_tentative", "")
		require.ErrorIs(t, err, jobq.ErrInvalidArgument)
		require.ErrorContains(t, err, "must contain {storeId}")
		// An application cannot list every store, so it cannot fan out.
		_, err = b.App.FanOut(b.Ctx, "expire-tentative-for-store", nil, "", "")
		var pg *pgconn.PgError
		require.True(t, errors.As(err, &pg), "%v", err)
		require.Equal(t, "42501", pg.Code)
		require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.jobs`), "a refused fan-out writes nothing")
	})

	// The seed's bound: 100 stores within 1 minute. Measured and logged; the benchmark issue
	// tracks the figure.
	t.Run("HundredStores", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.DefineStore(t, "expire-tentative-for-store")
		addStores(t, b, 100)
		n, took := fanOutTimed(t, b, "expire-tentative-for-store")
		t.Logf("fan-out to 100 stores: %s", took.Round(100*time.Microsecond))
		require.Equal(t, 100, n)
		require.Equal(t, 100, b.Count(t, `SELECT count(DISTINCT store_id) FROM jobq.jobs`))
		require.Less(t, took, time.Minute, "the seed's limit")
	})

	// 10,000 stores in one statement. Only a generous sanity bound is asserted: the seed's minute
	// for 100 stores (it was 10 s, which a loaded machine can miss: issue 29).
	t.Run("TenThousandStores", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.DefineStore(t, "expire-tentative-for-store")
		addStores(t, b, 10_000)
		n, took := fanOutTimed(t, b, "expire-tentative-for-store")
		t.Logf("fan-out to 10,000 stores: %s", took.Round(time.Millisecond))
		require.Equal(t, 10_000, n)
		require.Equal(t, 10_000, b.Count(t, `SELECT count(DISTINCT store_id) FROM jobq.jobs`))
		again, tookAgain := fanOutTimed(t, b, "expire-tentative-for-store")
		t.Logf("fan-out to 10,000 stores again (every key merged): %s", tookAgain.Round(time.Millisecond))
		require.Equal(t, 10_000, again)
		require.Equal(t, 10_000, b.Count(t, `SELECT count(*) FROM jobq.jobs`))
		require.Less(t, took, time.Minute, "sanity bound only")
	})
}

// TestARepeatedFanOutUnderGenericPlansReadsOneKeyProbeAStore: a repeated fan-out finds every
// store's job waiting and reads it back by its key. The statements of jobq._enqueue_keyed name the
// store key as jobs_job_key_idx spells it (jobq._store_key), so the look-up is one probe of that
// index whatever plan PostgreSQL caches. Spelt coalesce(store_id, v_zero), a PL/pgSQL variable, it
// matched the index only in plans made for the call's values: from a session's sixth call on, the
// generic plan probed the index by job_key alone, reading all of it for every store (the sixth
// repeated fan-out of 100,000 stores in one session took 4 minutes instead of 2.6 s). The session
// here plans generically from the first call (plan_cache_mode pinned), and the index blocks a
// repeated fan-out reads are counted (pg_stat_get_xact_blocks_fetched): a few probes a store (the
// insert's conflict check, the read back, the look for a running holder of the key), 10 blocks a
// store when this was written, against 78 with the old spelling, a number that grows with the
// stores (each probe read the whole index). The bound is 20 a store.
func TestARepeatedFanOutUnderGenericPlansReadsOneKeyProbeAStore(t *testing.T) {
	t.Parallel()
	const stores = 3000
	b := testbundle.New(t)
	b.DefineStore(t, "fan-generic")
	addStores(t, b, stores)
	conn := conns(t, b.DB.Pool(t, "postgres", 1), 1)[0]
	_, err := conn.Exec(b.Ctx, `SET plan_cache_mode = force_generic_plan`)
	require.NoError(t, err)
	fanOut := func() {
		var n int
		require.NoError(t, conn.QueryRow(b.Ctx, `SELECT jobq.fan_out('fan-generic', '{}'::jsonb)`).Scan(&n))
		require.Equal(t, stores, n)
	}
	fanOut() // every store's job inserted
	tx, err := conn.Begin(b.Ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(context.WithoutCancel(b.Ctx)) }()
	var n int
	var fetched int64
	require.NoError(t, tx.QueryRow(b.Ctx, `SELECT jobq.fan_out('fan-generic', '{}'::jsonb),
		pg_stat_get_xact_blocks_fetched('jobq.jobs_job_key_idx'::regclass)`).Scan(&n, &fetched))
	require.Equal(t, stores, n, "the repeated fan-out finds every store's job")
	t.Logf("a repeated fan-out of %d stores under generic plans fetched %d blocks of jobs_job_key_idx (%.1f a store)",
		stores, fetched, float64(fetched)/stores)
	require.LessOrEqual(t, fetched, int64(20*stores), "a few probes of its key a store, not a read of the whole index")
	require.Equal(t, stores, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'fan-generic'`), "and it added no job")
}

// TestFiftyFanOutsAtOnce: 50 connections fan the same task out over the same 300 stores at once,
// while 40 stores' jobs are running (their keys go to new waiting jobs in a second round of
// jobq._enqueue_keyed, which ends its rounds once every pending key is settled). Half the callers
// use preserve_run_at, half replace. No call fails (no deadlock between overlapping fan-outs),
// each reports every store, and every store ends with exactly one waiting job holding its key,
// beside its running job where it had one.
func TestFiftyFanOutsAtOnce(t *testing.T) {
	t.Parallel()
	const callers, storeCount, running = 50, 300, 40
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: callers + 2})
	b.DefineStore(t, "fan-storm")
	addStores(t, b, storeCount)
	n, err := b.Worker.FanOut(b.Ctx, "fan-storm", nil, "", "")
	require.NoError(t, err)
	require.Equal(t, storeCount, n)
	held := b.Claim(t, testbundle.ClaimArgs{Worker: "holder", Max: running})
	require.Len(t, held, running)

	cs := conns(t, b.WorkerPool, callers)
	counts := make([]int, callers)
	errs := together(callers, func(i int) error {
		mode := jobq.JobKeyMode("")
		if i%2 == 1 {
			mode = jobq.JobKeyReplace
		}
		got, err := jobq.NewClient(cs[i]).FanOut(b.Ctx, "fan-storm", map[string]int{"caller": i}, "", mode)
		counts[i] = got
		return err
	})
	requireNoErrors(t, errs, "fan-out")
	for i, c := range counts {
		require.Equal(t, storeCount, c, "caller %d reports every store", i)
	}
	require.Equal(t, storeCount, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE state = 'queued' AND job_key IS NOT NULL`),
		"one waiting job holds each store's key")
	require.Equal(t, storeCount, b.Count(t, `SELECT count(DISTINCT store_id) FROM jobq.jobs WHERE state = 'queued'`))
	require.Equal(t, running, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE state = 'running' AND job_key IS NULL`),
		"each running job gave its key up and still runs")
	require.Equal(t, storeCount+running, b.Count(t, `SELECT count(*) FROM jobq.jobs`))
	require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.job_history`))
}
