package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// scaleSizes are the table sizes of the scale scenario.
type scaleSizes struct {
	waiting int // jobs waiting in jobq.jobs of the loaded database
	history int // rows in jobq.job_history of the loaded database
	drain   int // jobs claimed and completed per measurement
}

func scaleSizesFor(env *environment) scaleSizes {
	if env.quick {
		return scaleSizes{waiting: 100_000, history: 1_000_000, drain: 10_000}
	}
	return scaleSizes{waiting: 1_000_000, history: 10_000_000, drain: 50_000}
}

// scaleBatch is how many jobs one claim_job call asks for in the scale scenario.
const scaleBatch = 100

// scaleWarmup is how many jobs each measurement claims and completes, unmeasured, before it
// starts its clock: the connection's first calls plan and cache the engine's statements.
const scaleWarmup = 1000

// scenarioScale compares the claim path (claim_job batches of 100, then complete_jobs, on one
// connection as worker_runtime) on a database holding 1,000,000 waiting jobs and 10,000,000
// history rows with a database whose tables hold only the jobs being claimed. Each run measures
// both, one after the other.
func scenarioScale(ctx context.Context, env *environment, rep *report) error {
	sz := scaleSizesFor(env)
	for _, db := range []string{"jobq_scale_empty", "jobq_scale_loaded"} {
		env.progress("installing jobq in database %s", db)
		if err := env.cl.installJobq(ctx, env, db); err != nil {
			return err
		}
		if err := execSQL(ctx, env.cl.url("postgres", db),
			`SELECT jobq.define_task('ping', 'system', description => 'jobq worker built-in: completes at once (smoke test).')`); err != nil {
			return err
		}
	}
	defer func() {
		for _, db := range []string{"jobq_scale_empty", "jobq_scale_loaded"} {
			_ = env.cl.dropDatabase(context.WithoutCancel(ctx), db)
		}
	}()

	loaded, err := pgx.Connect(ctx, env.cl.url("postgres", "jobq_scale_loaded"))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer loaded.Close(context.WithoutCancel(ctx))
	// One INSERT … SELECT generate_series into the logged table with its indexes in place: the
	// rows and indexes are those jobq would hold. Negative ids never meet the ids jobq.jobs hands
	// out, which move to history too; finished_at spreads the rows over the last six days.
	began := time.Now()
	env.progress("scale: inserting %s history rows", fmtNum(float64(sz.history)))
	_, err = loaded.Exec(ctx, `INSERT INTO jobq.job_history (id, task, queue, payload, store_id, priority, run_at,
			state, attempt, max_attempts, locked_by, claimed_at, heartbeat_at, lease_expires_at, created_at, updated_at, finished_at)
		SELECT -g, 'ping', 'default', '{}'::jsonb, NULL, 0, t, 'succeeded', 1, 25, 'bench-history', t, t,
		       t + interval '30 seconds', t, t, t + interval '1 second'
		FROM generate_series(1, $1::bigint) AS g,
		     LATERAL (SELECT now() - interval '6 days' + g * (interval '5 days' / $1::bigint)) AS ts(t)`, sz.history)
	if err != nil {
		return fmt.Errorf("fill job_history: %w", err)
	}
	env.progress("scale: history inserted in %s; %s waiting jobs", time.Since(began).Round(time.Second), fmtNum(float64(sz.waiting)))
	if err := insertWaiting(ctx, loaded, sz.waiting); err != nil {
		return err
	}
	env.progress("scale: vacuum analyze and checkpoint")
	if err := settle(ctx, loaded, "jobq.job_history"); err != nil {
		return err
	}
	if err := settle(ctx, loaded, "jobq.jobs"); err != nil {
		return err
	}
	env.progress("scale: loaded database ready after %s", time.Since(began).Round(time.Second))
	var histSize string
	if err := loaded.QueryRow(ctx, "SELECT pg_size_pretty(pg_total_relation_size('jobq.job_history'))").Scan(&histSize); err != nil {
		return fmt.Errorf("history size: %w", err)
	}

	empty, err := pgx.Connect(ctx, env.cl.url("postgres", "jobq_scale_empty"))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer empty.Close(context.WithoutCancel(ctx))

	emptyMeasure := fmt.Sprintf("claim_job (%d per call) + complete_jobs, 1 connection, %s jobs, tables otherwise empty", scaleBatch, fmtNum(float64(sz.drain)))
	loadedMeasure := fmt.Sprintf("claim_job (%d per call) + complete_jobs, 1 connection, %s jobs, with %s waiting jobs and %s history rows",
		scaleBatch, fmtNum(float64(sz.drain)), fmtNum(float64(sz.waiting)), fmtNum(float64(sz.history)))
	measureEmpty := func(run int) error {
		// Only the jobs about to be claimed, and the warm-up's.
		if _, err := empty.Exec(ctx, "TRUNCATE jobq.jobs, jobq.job_history"); err != nil {
			return fmt.Errorf("truncate: %w", err)
		}
		if err := insertWaiting(ctx, empty, sz.drain+scaleWarmup); err != nil {
			return err
		}
		if err := settle(ctx, empty, "jobq.jobs"); err != nil {
			return err
		}
		env.progress("scale run %d/%d: claim + complete %s jobs, empty tables", run, env.runs, fmtNum(float64(sz.drain)))
		e, err := claimRate(ctx, env, "jobq_scale_empty", sz.drain)
		if err != nil {
			return err
		}
		env.progress("  %s jobs/s", fmtNum(e))
		rep.add("scale/empty", "scale", emptyMeasure, "jobs/s", e)
		return nil
	}
	measureLoaded := func(run int) error {
		// Top the queue up to its size again and let vacuum tidy the previous run away, as
		// autovacuum would between bursts.
		var waiting int
		if err := loaded.QueryRow(ctx, "SELECT count(*) FROM jobq.jobs").Scan(&waiting); err != nil {
			return fmt.Errorf("count waiting: %w", err)
		}
		if want := sz.waiting + scaleWarmup; waiting < want {
			if err := insertWaiting(ctx, loaded, want-waiting); err != nil {
				return err
			}
		}
		if err := settle(ctx, loaded, "jobq.jobs"); err != nil {
			return err
		}
		env.progress("scale run %d/%d: claim + complete %s jobs, %s waiting + %s history rows (%s)", run, env.runs,
			fmtNum(float64(sz.drain)), fmtNum(float64(sz.waiting)), fmtNum(float64(sz.history)), histSize)
		l, err := claimRate(ctx, env, "jobq_scale_loaded", sz.drain)
		if err != nil {
			return err
		}
		env.progress("  %s jobs/s", fmtNum(l))
		rep.add("scale/loaded", "scale", loadedMeasure, "jobs/s", l)
		return nil
	}
	for run := 1; run <= env.runs; run++ {
		rep.run = run
		// Alternate which goes first, so neither always meets a warmer machine.
		first, second := measureEmpty, measureLoaded
		if run%2 == 0 {
			first, second = measureLoaded, measureEmpty
		}
		if err := first(run); err != nil {
			return err
		}
		if err := second(run); err != nil {
			return err
		}
	}
	return nil
}

// insertWaiting adds n queued ping jobs straight into jobq.jobs (as the superuser; the same rows
// enqueue_many would write, without its per-batch work, to keep the set-up short).
func insertWaiting(ctx context.Context, conn *pgx.Conn, n int) error {
	_, err := conn.Exec(ctx, `INSERT INTO jobq.jobs (task, payload, max_attempts)
		SELECT 'ping', '{}'::jsonb, 25 FROM generate_series(1, $1)`, n)
	if err != nil {
		return fmt.Errorf("insert waiting jobs: %w", err)
	}
	return nil
}

// claimRate claims and completes n jobs in batches on one worker_runtime connection and
// returns jobs/s.
func claimRate(ctx context.Context, env *environment, db string, n int) (float64, error) {
	conn, err := pgx.Connect(ctx, env.cl.url("worker_runtime", db))
	if err != nil {
		return 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := claimAndComplete(ctx, conn, scaleWarmup); err != nil {
		return 0, fmt.Errorf("warm-up: %w", err)
	}
	began := time.Now()
	if _, err := claimAndComplete(ctx, conn, n); err != nil {
		return 0, err
	}
	return float64(n) / time.Since(began).Seconds(), nil
}

// claimAndComplete claims and completes n jobs, scaleBatch at a time.
func claimAndComplete(ctx context.Context, conn *pgx.Conn, n int) (int, error) {
	done := 0
	ids := make([]int64, 0, scaleBatch)
	tokens := make([]string, 0, scaleBatch)
	for done < n {
		ids, tokens = ids[:0], tokens[:0]
		rows, err := conn.Query(ctx, "SELECT id, lease_token::text FROM jobq.claim_job('bench-scale', ARRAY['default'], $1)", min(scaleBatch, n-done))
		if err != nil {
			return 0, fmt.Errorf("claim_job: %w", err)
		}
		for rows.Next() {
			var id int64
			var token string
			if err := rows.Scan(&id, &token); err != nil {
				rows.Close()
				return 0, fmt.Errorf("claim_job: %w", err)
			}
			ids = append(ids, id)
			tokens = append(tokens, token)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, fmt.Errorf("claim_job: %w", err)
		}
		if len(ids) == 0 {
			return 0, fmt.Errorf("claim_job found no job after %d of %d", done, n)
		}
		var ok int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM jobq.complete_jobs($1::bigint[], $2::text[]::uuid[]) WHERE outcome = 'succeeded'", ids, tokens).Scan(&ok); err != nil {
			return 0, fmt.Errorf("complete_jobs: %w", err)
		}
		if ok != len(ids) {
			return 0, fmt.Errorf("complete_jobs completed %d of %d", ok, len(ids))
		}
		done += len(ids)
	}
	return done, nil
}
