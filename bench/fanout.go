package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// fanoutStores is the number of stores of the fan-out scenario.
const fanoutStores = 100_000

// scenarioFanout times jobq.fan_out over fanoutStores (100,000) stores as worker_runtime (the only role that may
// call it): a first run that enqueues one job per store, and a repeated run right after it,
// which finds every store's job already waiting (job_key_mode preserve_run_at).
func scenarioFanout(ctx context.Context, env *environment, rep *report) error {
	if err := env.ensureJobq(ctx); err != nil {
		return err
	}
	admin := env.cl.url("postgres", "jobq")
	if err := execSQL(ctx, admin,
		"TRUNCATE jobq.jobs, jobq.job_history",
		"DELETE FROM public.store",
		fmt.Sprintf("INSERT INTO public.store (name) SELECT 'bench store ' || g FROM generate_series(1, %d) g", fanoutStores),
		"ANALYZE public.store",
		"SELECT jobq.define_task('bench-fanout', 'store', description => 'jobq bench: fan-out probe.')",
	); err != nil {
		return err
	}
	worker, err := pgx.Connect(ctx, env.cl.url("worker_runtime", "jobq"))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer worker.Close(context.WithoutCancel(ctx))
	fanOut := func() (float64, error) {
		began := time.Now()
		var n int
		if err := worker.QueryRow(ctx, "SELECT jobq.fan_out('bench-fanout', '{}'::jsonb)").Scan(&n); err != nil {
			return 0, fmt.Errorf("fan_out: %w", err)
		}
		ms := float64(time.Since(began).Microseconds()) / 1000
		if n != fanoutStores {
			return 0, fmt.Errorf("fan_out returned %d, want %d", n, fanoutStores)
		}
		return ms, nil
	}
	for run := 1; run <= env.runs; run++ {
		if err := execSQL(ctx, admin, "TRUNCATE jobq.jobs, jobq.job_history", "CHECKPOINT"); err != nil {
			return err
		}
		env.progress("fan-out run %d/%d: %s stores, first and repeated", run, env.runs, fmtNum(fanoutStores))
		first, err := fanOut()
		if err != nil {
			return err
		}
		again, err := fanOut()
		if err != nil {
			return err
		}
		env.progress("  first %.0f ms, repeated %.0f ms", first, again)
		rep.add("fanout/first", "fan-out", fmt.Sprintf("jobq.fan_out over %[1]s stores, first run (%[1]s jobs enqueued)", fmtNum(fanoutStores)), "ms", first)
		rep.add("fanout/repeat", "fan-out", fmt.Sprintf("jobq.fan_out over %s stores, repeated at once (every job already waiting)", fmtNum(fanoutStores)), "ms", again)
	}
	// worker_runtime cannot read jobq.jobs: the superuser checks that each store has one job.
	var jobs int
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM jobq.jobs WHERE task = 'bench-fanout'").Scan(&jobs); err != nil {
		return fmt.Errorf("count fan-out jobs: %w", err)
	}
	if jobs != fanoutStores {
		return fmt.Errorf("after the repeated fan-out jobq.jobs holds %d fan-out jobs, want %d (one per store)", jobs, fanoutStores)
	}
	return execSQL(ctx, admin, "TRUNCATE jobq.jobs, jobq.job_history")
}
