package sql_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/testbundle"
)

// History by day (migration 00037) changes the schema from inside jobq.maintain: it makes the
// next days' partitions of jobq.job_history and drops the days past retention. Both give way
// rather than queue (lock_timeout 100 ms inside): runners' maintains racing to make the same days
// make each once and never fail, and a reader holding history keeps its day from being dropped
// until it ends, without failing maintain.

// Fifty runners' maintains (worker_runtime, unfenced, as pg_cron calls it) race to make today's
// partition and the next two days' after they were dropped: no call fails, and each day they made
// spans its UTC day. A maker gives way when a lock is not free within 100 ms (the others skip
// while it holds the day-maker's advisory lock), so under load a day may be left to the next
// maintain: one more maintain after the race makes whatever is missing, and then today and the
// next two days are each there once.
func TestFiftyMaintainsMakeEachDayOfHistoryOnce(t *testing.T) {
	t.Parallel()
	const callers = 50
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: callers + 2})
	_, err := b.Admin.Exec(b.Ctx, `
		DO $$
		DECLARE p record;
		BEGIN
		    FOR p IN SELECT part FROM jobq._history_partitions() WHERE by_day LOOP
		        EXECUTE format('DROP TABLE %s', p.part);
		    END LOOP;
		END $$`)
	require.NoError(t, err, "setup: every day of history dropped")
	cs := conns(t, b.WorkerPool, callers)
	errs := together(callers, func(i int) error {
		_, err := cs[i].Exec(b.Ctx, `SELECT jobq.maintain()`)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			return fmt.Errorf("%w (where: %s)", err, pgErr.Where)
		}
		return err
	})
	requireNoErrors(t, errs, "jobq.maintain")

	days := func() []string {
		t.Helper()
		var out []string
		require.NoError(t, b.Admin.QueryRow(b.Ctx, `
			SELECT coalesce(array_agg(p.name || ' ' || (p.lower = d.day)::text || ' ' || (p.upper = d.day + interval '1 day')::text
			                          ORDER BY p.lower), '{}')
			FROM jobq._history_partitions() p
			CROSS JOIN LATERAL (SELECT date_trunc('day', p.lower AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day) d
			WHERE p.by_day`).Scan(&out))
		return out
	}
	var want []string
	require.NoError(t, b.Admin.QueryRow(b.Ctx, `
		SELECT array_agg('job_history_p' || to_char(now() AT TIME ZONE 'UTC' + make_interval(days => k), 'YYYYMMDD') || ' true true' ORDER BY k)
		FROM generate_series(0, 2) k`).Scan(&want))
	afterRace := days()
	t.Logf("after the race: %v", afterRace)
	require.Subset(t, want, afterRace, "the race made only today and the next two days, each spanning its UTC day")
	_, err = b.WorkerPool.Exec(b.Ctx, `SELECT jobq.maintain()`)
	require.NoError(t, err)
	require.Equal(t, want, days(), "today and the next two days, each once, each spanning its UTC day")
}

// A reader that holds history (a long report, a dump) keeps a day past retention from being
// dropped: maintain gives way after 100 ms and succeeds, and the next maintain after the reader
// ends drops the day. Also as worker_runtime, the role of the runners' maintain.
func TestMaintainGivesWayToAReaderOfHistory(t *testing.T) {
	t.Parallel()
	b := testbundle.New(t)
	ctx := b.Ctx
	var past string
	require.NoError(t, b.Admin.QueryRow(ctx, `
		SELECT CASE WHEN jobq._history_add_span(now() - interval '30 days', 1)
		            THEN 'jobq.job_history_p' || to_char((now() - interval '30 days') AT TIME ZONE 'UTC', 'YYYYMMDD') END`).Scan(&past))
	require.NotEmpty(t, past, "setup: a day thirty days ago")
	exists := func() bool {
		var ok bool
		require.NoError(t, b.Admin.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, past).Scan(&ok))
		return ok
	}

	reader, err := b.Admin.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = reader.Rollback(context.WithoutCancel(ctx)) }()
	_, err = reader.Exec(ctx, `SELECT count(*) FROM jobq.job_history`)
	require.NoError(t, err)

	maintain := func() (dropped int) {
		t.Helper()
		var out string
		require.NoError(t, b.WorkerPool.QueryRow(ctx, `SELECT jobq.maintain()::text`).Scan(&out))
		require.NoError(t, b.Admin.QueryRow(ctx, `SELECT ($1::jsonb ->> 'history_days_dropped')::int`, out).Scan(&dropped))
		return dropped
	}
	require.Equal(t, 0, maintain(), "maintain does not drop a day a reader holds, and does not fail")
	require.True(t, exists(), "the day is still there")

	require.NoError(t, reader.Rollback(ctx))
	require.Equal(t, 1, maintain(), "once the reader ended, maintain drops the day")
	require.False(t, exists(), fmt.Sprintf("%s is gone", past))
}

// Completions insert into jobq.job_history while maintain drops a partition of it, which takes
// an ACCESS EXCLUSIVE lock on jobq.job_history for an instant. Four workers enqueue, claim and
// complete jobs in a loop while another session makes a partition 400 days back (as the owner)
// and a maintain drops it (as worker_runtime), again and again: no call fails, every completion
// succeeds with its history row written, and the workers stop only after ten partitions were
// dropped, so the two overlap however fast either side runs.
func TestCompletionsCarryOnWhilePartitionsOfHistoryAreDropped(t *testing.T) {
	t.Parallel()
	const workers, drops = 4, 10
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: workers + 2, AppConns: workers + 1})
	b.Define(t, "t")
	ctx := b.Ctx
	ws := conns(t, b.WorkerPool, workers+1)
	apps := conns(t, b.AppPool, workers)
	owner, err := b.Admin.Acquire(ctx)
	require.NoError(t, err)
	defer owner.Release()
	_, err = owner.Exec(ctx, `SET ROLE jobq_migrator`)
	require.NoError(t, err, "setup: the partitions are the owner's, as maintain makes them")
	defer func() { _, _ = owner.Exec(context.WithoutCancel(ctx), `RESET ROLE`) }()

	var dropped, completed atomic.Int64
	errs := together(workers+1, func(i int) error {
		if i == workers {
			for dropped.Load() < drops {
				var made bool
				if err := owner.QueryRow(ctx, `SELECT jobq._history_add_span(now() - interval '400 days', 1)`).Scan(&made); err != nil {
					return fmt.Errorf("make a partition: %w", err)
				}
				var n int64
				if err := ws[workers].QueryRow(ctx, `SELECT (jobq.maintain() ->> 'history_days_dropped')::bigint`).Scan(&n); err != nil {
					return fmt.Errorf("maintain: %w", err)
				}
				dropped.Add(n)
			}
			return nil
		}
		worker := fmt.Sprintf("w%d", i)
		for dropped.Load() < drops {
			if _, err := apps[i].Exec(ctx, `SELECT jobq.enqueue('t') FROM generate_series(1, 10)`); err != nil {
				return fmt.Errorf("enqueue: %w", err)
			}
			var bad int64
			var n int64
			err := ws[i].QueryRow(ctx, `
				WITH c AS (SELECT id, lease_token FROM jobq.claim_job($1, ARRAY['default'], 10))
				SELECT count(*), count(*) FILTER (WHERE o.outcome <> 'succeeded')
				FROM jobq.complete_jobs(ARRAY(SELECT id FROM c ORDER BY id), ARRAY(SELECT lease_token FROM c ORDER BY id)) AS o`,
				worker).Scan(&n, &bad)
			if err != nil {
				return fmt.Errorf("claim and complete: %w", err)
			}
			if bad > 0 {
				return fmt.Errorf("%d of %d completions did not succeed", bad, n)
			}
			completed.Add(n)
		}
		return nil
	})
	requireNoErrors(t, errs, "workers and the dropper")
	require.GreaterOrEqual(t, dropped.Load(), int64(drops), "partitions were dropped while the workers completed jobs")

	var inHistory int64
	require.NoError(t, b.Admin.QueryRow(ctx, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded'`).Scan(&inHistory))
	require.Positive(t, completed.Load(), "the workers completed jobs")
	require.Equal(t, completed.Load(), inHistory, "every completed job has its history row")
}
