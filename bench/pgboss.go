package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// pg-boss, the Node peer with its own table and SQL (graphile/pgboss.mjs runs it on the Node 22
// that bench/run installs for graphile-worker).

// pgbossSettings names the worker settings of graphile/pgboss.mjs, for the report.
const pgbossSettings = "batch handler of 100, burstWhenBatchFull, localConcurrency 4, poll 0.5 s"

func (env *environment) pgbossScript() string { return filepath.Join(env.graphileDir, "pgboss.mjs") }

// installPgboss creates database pgboss with pg-boss's schema and the queue noop.
func installPgboss(ctx context.Context, env *environment) error {
	if err := env.cl.createDatabase(ctx, "pgboss"); err != nil {
		return err
	}
	_, err := runTool(ctx, nil, env.nodeBin, env.pgbossScript(), "migrate", env.cl.url("postgres", "pgboss"))
	return err
}

// drainPgboss fills pg-boss with n jobs (its insert(), through the Node script), runs procs
// worker processes until every job is completed, and returns jobs/s from the database: n ÷
// (last completed_on − first started_on), and the largest peak RSS of the workers.
func drainPgboss(ctx context.Context, env *environment, n, procs int) (float64, float64, error) {
	url := env.cl.url("postgres", "pgboss")
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "DELETE FROM pgboss.job WHERE name = 'noop'"); err != nil {
		return 0, 0, fmt.Errorf("empty pgboss.job: %w", err)
	}
	env.meter.filling(ctx)
	if _, err := runTool(ctx, nil, env.nodeBin, env.pgbossScript(), "fill", url, strconv.Itoa(n)); err != nil {
		return 0, 0, err
	}
	env.meter.filled(ctx)
	var filled int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pgboss.job WHERE name = 'noop' AND state = 'created'").Scan(&filled); err != nil {
		return 0, 0, fmt.Errorf("count pg-boss jobs: %w", err)
	}
	if filled != n {
		return 0, 0, fmt.Errorf("pg-boss fill created %d of %d jobs", filled, n)
	}
	if err := settle(ctx, conn, "pgboss.job"); err != nil {
		return 0, 0, err
	}
	env.meter.draining(ctx)
	var workers []*proc
	defer func() {
		for _, w := range workers {
			w.kill()
		}
	}()
	for i := range max(procs, 1) {
		w, err := startProc(env, fmt.Sprintf("pgboss-worker-%d", i+1), nil, nil, env.nodeBin, env.pgbossScript(), "work", url)
		if err != nil {
			return 0, 0, err
		}
		workers = append(workers, w)
	}
	// Through the queue's index on state: cheap while the backlog shrinks.
	return awaitDrain(ctx, env, conn, n, workers, 50*time.Millisecond, "pg-boss drain",
		"SELECT count(*) FROM (SELECT 1 FROM pgboss.job WHERE name = 'noop' AND state < 'completed' LIMIT 1) s",
		`SELECT count(*), extract(epoch FROM max(completed_on) - min(started_on))::float8
		FROM pgboss.job WHERE name = 'noop' AND state = 'completed'`)
}
