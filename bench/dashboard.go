package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq/dashboard"
)

// dashboardSizes are the rows the dashboard scenario loads: the 1,000,000 live and
// 10,000,000 finished jobs (a tenth with BENCH_QUICK).
func dashboardSizes(env *environment) (live, history int) {
	if env.quick {
		return 100_000, 1_000_000
	}
	return 1_000_000, 10_000_000
}

// dashboardPages are the pages timed, by name; {live}, {dead} and {old} are replaced by ids of a
// live job, a dead job and a history row from the middle of the table.
var dashboardPages = []struct{ name, path string }{
	{"overview", "/"},
	{"jobs", "/jobs"},
	{"jobs, queue filter", "/jobs?queue=emails"},
	{"jobs, state filter", "/jobs?state=succeeded"},
	{"jobs, store filter", "/jobs?store=00000000-0000-4000-8000-000000000007"},
	{"jobs, page 2", "/jobs?before={old}"},
	{"job (live)", "/jobs/{live}"},
	{"job (dead)", "/jobs/{dead}"},
	{"dead jobs", "/dead"},
	{"dead jobs, queue filter", "/dead?queue=emails"},
	{"workers", "/workers"},
	{"schedules", "/schedules"},
	{"settings", "/settings"},
	{"audit log", "/audit"},
}

// scenarioDashboard loads a database to the size and times every page of the dashboard,
// served in this process and read as jobq_dashboard, from request to last byte.
func scenarioDashboard(ctx context.Context, env *environment, rep *report) error {
	const db = "jobq_dashboard"
	live, history := dashboardSizes(env)
	env.progress("dashboard: installing jobq in database %s", db)
	if err := env.cl.installJobq(ctx, env, db); err != nil {
		return err
	}
	defer func() { _ = env.cl.dropDatabase(context.WithoutCancel(ctx), db) }()
	admin, err := pgx.Connect(ctx, env.cl.url("postgres", db))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer admin.Close(context.WithoutCancel(ctx))
	began := time.Now()
	env.progress("dashboard: loading %s history and %s live jobs", fmtNum(float64(history)), fmtNum(float64(live)))
	for _, stmt := range []string{
		`SELECT jobq.define_task(t, queue => q) FROM (VALUES ('ping', 'default'), ('mail', 'emails'), ('report', 'reports')) v(t, q)`,
		// The partitions of history's days (migration 00037), as jobq.maintain made them while
		// those six days went by.
		`SELECT jobq._history_add_span(now() - make_interval(days => k), 1) FROM generate_series(0, 6) k`,
		// History over the last six days in the order it finished, as jobq writes it (a job moves
		// to the history when it finishes): 10,000,000 rows are 16 jobs a second, 69,444 in the
		// last hour. 1 % dead; 100 stores.
		fmt.Sprintf(`INSERT INTO jobq.job_history (id, task, queue, payload, store_id, priority, run_at, state, attempt,
				max_attempts, locked_by, claimed_at, created_at, updated_at, finished_at, last_error, error_code)
			SELECT g, (ARRAY['ping','mail','report'])[1 + g %% 3], (ARRAY['default','emails','reports'])[1 + g %% 3],
			       '{"to":"someone@example.com"}'::jsonb,
			       ('00000000-0000-4000-8000-' || lpad((g %% 100)::text, 12, '0'))::uuid, 0, t,
			       CASE WHEN g %% 100 = 0 THEN 'dead' ELSE 'succeeded' END, 1, 3, 'bench-worker', t, t, t, t + interval '1 second',
			       CASE WHEN g %% 100 = 0 THEN 'smtp: 550 mailbox unavailable' END, CASE WHEN g %% 100 = 0 THEN 'MAIL.REJECTED' END
			FROM generate_series(1, %d) g,
			     LATERAL (SELECT now() - interval '6 days' * (1 - g::float8 / %d)) ts(t)`, history, history),
		fmt.Sprintf(`INSERT INTO jobq.job_attempts (job_id, attempt, store_id, task, queue, worker, started_at, ended_at, reason, error)
			SELECT id, 1, store_id, task, queue, locked_by, claimed_at, finished_at, 'error', last_error
			FROM jobq.job_history WHERE state = 'dead'`),
		// Live jobs are newer than the history: their ids start above it.
		fmt.Sprintf(`ALTER TABLE jobq.jobs ALTER COLUMN id RESTART WITH %d`, 2*history+1),
		fmt.Sprintf(`INSERT INTO jobq.jobs (task, queue, payload, store_id, max_attempts, run_at)
			SELECT (ARRAY['ping','mail','report'])[1 + g %% 3], (ARRAY['default','emails','reports'])[1 + g %% 3],
			       '{"to":"someone@example.com"}'::jsonb, ('00000000-0000-4000-8000-' || lpad((g %% 100)::text, 12, '0'))::uuid,
			       3, now() + (g %% 1000) * interval '1 second'
			FROM generate_series(1, %d) g`, live),
		`INSERT INTO jobq.audit_log (action, job_id, detail) SELECT 'retry_job', g * 100, '{}' FROM generate_series(1, 10000) g`,
		`INSERT INTO jobq.workers (id, node, pid, queues, concurrency) SELECT 'worker-' || g, 'node-' || g % 4, g, ARRAY['default','emails'], 20 FROM generate_series(1, 20) g`,
		`SELECT jobq.schedule('report-' || g, '*/5 * * * *', 'report') FROM generate_series(1, 10) g`,
	} {
		if _, err := admin.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("load: %w", err)
		}
	}
	for _, t := range []string{"jobq.job_history", "jobq.jobs", "jobq.job_attempts", "jobq.audit_log"} {
		if err := settle(ctx, admin, t); err != nil {
			return err
		}
	}
	env.progress("dashboard: loaded in %s", time.Since(began).Round(time.Second))
	ids := map[string]string{}
	for key, q := range map[string]string{
		"{live}": `SELECT max(id)::text FROM jobq.jobs`,
		"{dead}": `SELECT max(id)::text FROM jobq.job_history WHERE state = 'dead'`,
		"{old}":  fmt.Sprintf(`SELECT (%d / 2)::text`, history),
	} {
		var v string
		if err := admin.QueryRow(ctx, q).Scan(&v); err != nil {
			return fmt.Errorf("ids: %w", err)
		}
		ids[key] = v
	}

	// A runner's leader calls jobq.maintain every second (maintain_interval); above the setting
	// stats_cached_above live jobs, maintain keeps the live counts the overview reads. The harness
	// plays that leader: one call before the pages are timed, as a leader that has been running
	// would have made, then one a second while they are. The count's own duration is reported
	// beside the pages: the background work the overview's speed rests on.
	var took float64
	if _, err := admin.Exec(ctx, `SELECT jobq.maintain()`); err != nil {
		return fmt.Errorf("maintain: %w", err)
	}
	if err := admin.QueryRow(ctx, `SELECT extract(epoch FROM took)::float8 * 1000 FROM jobq.live_counts_taken`).Scan(&took); err != nil {
		return fmt.Errorf("live counts: %w", err)
	}
	rep.add("dash/live count", "dashboard", fmt.Sprintf("the live jobs counted by jobq.maintain for the overview (%s live jobs; at most every max(stats_count_interval, 20 x this)), measured once",
		fmtNum(float64(live))), "ms", took)
	leaderCtx, stopLeader := context.WithCancel(ctx)
	leaderDone := make(chan error, 1)
	go func() {
		leaderDone <- playLeader(leaderCtx, env.cl.url("postgres", db))
	}()
	defer func() {
		stopLeader()
		<-leaderDone
	}()

	pool, err := pgxpool.New(ctx, env.cl.url("jobq_dashboard", db)+"&plan_cache_mode=force_custom_plan")
	if err != nil {
		return err
	}
	defer pool.Close()
	d, err := dashboard.New(ctx, dashboard.Options{Reader: pool, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	defer d.Close()
	srv := httptest.NewServer(d)
	defer srv.Close()
	client := srv.Client()

	const reps = 15
	for run := 1; run <= env.runs; run++ {
		env.progress("dashboard run %d/%d: %d pages, %d requests each", run, env.runs, len(dashboardPages), reps)
		for _, p := range dashboardPages {
			path := p.path
			for k, v := range ids {
				path = strings.ReplaceAll(path, k, v)
			}
			var times []float64
			for i := 0; i < reps+2; i++ {
				t0 := time.Now()
				res, err := client.Get(srv.URL + path)
				if err != nil {
					return fmt.Errorf("GET %s: %w", path, err)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					return fmt.Errorf("GET %s: status %d", path, res.StatusCode)
				}
				if i >= 2 { // two warm-up requests
					times = append(times, float64(time.Since(t0).Microseconds())/1000)
				}
			}
			sort.Float64s(times)
			p95 := times[len(times)*95/100]
			rep.add("dash/"+p.name, "dashboard", fmt.Sprintf("GET %s, p95 of %d requests, %s live + %s history rows",
				p.path, reps, fmtNum(float64(live)), fmtNum(float64(history))), "ms", p95)
		}
	}
	return nil
}

// playLeader calls jobq.maintain once a second until ctx ends, as a runner's leader does at the
// default maintain_interval (unfenced: the harness runs no runner). An error other than the end
// of ctx is returned.
func playLeader(ctx context.Context, url string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("leader: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if _, err := conn.Exec(ctx, `SELECT jobq.maintain()`); err != nil && ctx.Err() == nil {
				return fmt.Errorf("leader: maintain: %w", err)
			}
		}
	}
}
