package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// The handlers scenario (issue 30): what running a job through a command or an HTTP endpoint
// costs against a Go handler, and what a claim's task filter costs against none. Every figure is
// a ratio to its Go (or unfiltered) counterpart measured in the same run, on the same cluster:
//   - drain: n no-op jobs run by an in-process runner at its default concurrency, the handler a
//     Go function, a command (/bin/true, exec'd per job through the gate of package
//     internal/cmdgate), a shell command (true, by /bin/sh -c, its own gate) or an HTTP endpoint
//     (an in-process server answering 204); jobs/s from the database's clock (n ÷ (last finished_at − first
//     claimed_at));
//   - pickup: p50/p99 of the time from an enqueue's commit to the handler's start, one idle
//     runner, jobs one at a time (the latency scenario's method), the start being the Go
//     handler's first line or the HTTP server's receipt of the request;
//   - claim: jobs/s of two connections each claiming 10 jobs and completing them in one
//     statement until the queue is empty, claim_job given no task list, the one task, or 100
//     tasks (the job's last).

// handlerTask is the task of the handler drains.
const handlerTask = "bench-handler"

// handlerSecret signs the HTTP handler's requests (a bench value, not a secret).
var handlerSecret = []byte("jobq-bench-handler-secret")

func handlerJobs(env *environment) int {
	if env.quick {
		return 1_000
	}
	return 4_000
}

func claimFilterJobs(env *environment) int {
	if env.quick {
		return 10_000
	}
	return 40_000
}

func scenarioHandlers(ctx context.Context, env *environment, rep *report) error {
	if err := env.ensureJobq(ctx); err != nil {
		return err
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	kinds := []struct{ key, label string }{
		{"go", "a Go function"},
		{"command", "a command (/bin/true, one process per job, started through the gate)"},
		{"shell", "a shell command (true, run by /bin/sh -c, one process per job)"},
		{"http", "an HTTP endpoint (in-process server, 204)"},
	}
	n := handlerJobs(env)
	for run := 1; run <= env.runs; run++ {
		rep.run = run
		for _, k := range kinds {
			env.progress("handlers run %d/%d: drain of %s no-op jobs, handler %s", run, env.runs, fmtNum(float64(n)), k.key)
			h, err := benchHandler(k.key, srv.URL)
			if err != nil {
				return err
			}
			rate, err := drainWithHandler(ctx, env, n, h)
			if err != nil {
				return fmt.Errorf("drain, %s handler: %w", k.key, err)
			}
			env.progress("  %.0f jobs/s", rate)
			rep.add("hd/"+k.key, "handlers", fmt.Sprintf("drain of %s no-op jobs, in-process runner at concurrency %d, handler %s", fmtNum(float64(n)), runner.DefaultConcurrency, k.label), "jobs/s", rate)
		}
		for _, p := range []struct {
			key, label string
			start      func(context.Context, *environment) (pickupProbe, error)
		}{
			{"go", "Go handler", startJobqProbe},
			{"http", "HTTP handler", startJobqHTTPProbe},
		} {
			m := latencyJobs(env)
			env.progress("handlers run %d/%d: pickup through the %s, %d jobs", run, env.runs, p.label, m)
			lat, err := measurePickup(ctx, env, latencySystem{start: p.start}, m)
			if err != nil {
				return fmt.Errorf("pickup, %s: %w", p.label, err)
			}
			what := fmt.Sprintf("pickup latency through the %s, %s jobs one at a time", p.label, fmtNum(float64(m)))
			rep.add("hd/lat-"+p.key+"/p50", "handlers", what+": p50", "ms", percentile(lat, 0.50))
			rep.add("hd/lat-"+p.key+"/p99", "handlers", what+": p99", "ms", percentile(lat, 0.99))
		}
		for _, f := range []struct {
			key, label string
			tasks      []string
		}{
			{"claim-all", "no task list (NULL)", nil},
			{"claim-one", "the one task", []string{"ping"}},
			{"claim-100", "100 tasks, the jobs' last", hundredTasks()},
		} {
			m := claimFilterJobs(env)
			env.progress("handlers run %d/%d: claims of %s jobs, %s", run, env.runs, fmtNum(float64(m)), f.label)
			rate, err := claimWithTasks(ctx, env, m, f.tasks)
			if err != nil {
				return fmt.Errorf("claims, %s: %w", f.label, err)
			}
			env.progress("  %.0f jobs/s", rate)
			rep.add("hd/"+f.key, "handlers", fmt.Sprintf("claim 10 + complete in one statement, 2 connections, %s jobs, tasks: %s", fmtNum(float64(m)), f.label), "jobs/s", rate)
		}
	}
	return execSQL(ctx, env.cl.url("postgres", "jobq"), "TRUNCATE jobq.jobs, jobq.job_history")
}

// benchHandler is a no-op handler of the kind named.
func benchHandler(kind, url string) (runner.Handler, error) {
	switch kind {
	case "go":
		return runner.HandlerFunc(func(context.Context, *jobq.Job) error { return nil }), nil
	case "command":
		return runner.Command(runner.CommandConfig{Argv: []string{"/bin/true"}})
	case "shell":
		return runner.Command(runner.CommandConfig{Argv: []string{"true"}, Shell: true})
	case "http":
		return runner.HTTPEndpoint(runner.HTTPConfig{URL: url, Secret: handlerSecret})
	}
	return nil, fmt.Errorf("unknown handler kind %q", kind)
}

// drainWithHandler enqueues n jobs of handlerTask, runs an in-process runner with handler h at
// its defaults until every one is done, and returns jobs/s from the database's clock.
func drainWithHandler(ctx context.Context, env *environment, n int, h runner.Handler) (float64, error) {
	conn, err := pgx.Connect(ctx, env.cl.url("postgres", "jobq"))
	if err != nil {
		return 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "TRUNCATE jobq.jobs, jobq.job_history"); err != nil {
		return 0, fmt.Errorf("truncate: %w", err)
	}
	if _, err := conn.Exec(ctx, `SELECT jobq.define_task($1, 'system', description => 'jobq bench: a no-op job for the handlers scenario.')`, handlerTask); err != nil {
		return 0, fmt.Errorf("define %s: %w", handlerTask, err)
	}
	if _, err := conn.Exec(ctx, `SELECT count(*) FROM jobq.enqueue_many(
		(SELECT jsonb_agg(jsonb_build_object('task', $1::text, 'payload', '{}'::jsonb)) FROM generate_series(1, $2)))`, handlerTask, n); err != nil {
		return 0, fmt.Errorf("enqueue_many: %w", err)
	}
	if err := settle(ctx, conn, "jobq.jobs"); err != nil {
		return 0, err
	}
	cfg, err := pgxpool.ParseConfig(env.cl.url("worker_runtime", "jobq"))
	if err != nil {
		return 0, fmt.Errorf("pool config: %w", err)
	}
	cfg.MaxConns = runner.DefaultConcurrency + 4
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return 0, fmt.Errorf("pool: %w", err)
	}
	defer pool.Close()
	r, err := runner.New(runner.Config{Pool: pool, Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return 0, fmt.Errorf("runner: %w", err)
	}
	r.Handle(handlerTask, h)
	runCtx, stop := context.WithCancel(ctx)
	runErr := make(chan error, 1)
	go func() { runErr <- r.Run(runCtx) }()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		var left, failed int
		if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM jobq.jobs WHERE task = $1),
		                                     (SELECT count(*) FROM jobq.job_history WHERE task = $1 AND state <> 'succeeded')`, handlerTask).Scan(&left, &failed); err != nil {
			stop()
			<-runErr
			return 0, fmt.Errorf("progress: %w", err)
		}
		if failed > 0 {
			stop()
			<-runErr
			return 0, fmt.Errorf("%d jobs did not succeed", failed)
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			stop()
			<-runErr
			return 0, fmt.Errorf("%d of %d jobs left after 10 minutes", left, n)
		}
		select {
		case err := <-runErr:
			stop()
			return 0, fmt.Errorf("runner stopped: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	stop()
	if err := <-runErr; err != nil && ctx.Err() == nil {
		return 0, fmt.Errorf("runner: %w", err)
	}
	return historyRate(ctx, conn, handlerTask, n)
}

// historyRate is n ÷ (last finished_at − first claimed_at) of task's jobs in jobq.job_history.
func historyRate(ctx context.Context, conn *pgx.Conn, task string, n int) (float64, error) {
	var done int
	var secs float64
	if err := conn.QueryRow(ctx, `SELECT count(*), coalesce(extract(epoch FROM max(finished_at) - min(claimed_at)), 0)::float8
	                              FROM jobq.job_history WHERE task = $1`, task).Scan(&done, &secs); err != nil {
		return 0, fmt.Errorf("rate: %w", err)
	}
	if done != n || secs <= 0 {
		return 0, fmt.Errorf("%d of %d jobs in history over %.3f s", done, n, secs)
	}
	return float64(n) / secs, nil
}

// hundredTasks is 99 other task names, then ping.
func hundredTasks() []string {
	tasks := make([]string, 0, 100)
	for i := range 99 {
		tasks = append(tasks, "bench-other-task-"+strconv.Itoa(i))
	}
	return append(tasks, "ping")
}

// claimWithTasks fills jobq with n ping jobs, then two connections each claim 10 jobs and
// complete them in one statement until a claim finds none, passing tasks to claim_job (nil:
// NULL), and returns jobs/s from the database's clock.
func claimWithTasks(ctx context.Context, env *environment, n int, tasks []string) (float64, error) {
	conn, err := pgx.Connect(ctx, env.cl.url("postgres", "jobq"))
	if err != nil {
		return 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := fillJobq(ctx, conn, n); err != nil {
		return 0, err
	}
	const clients = 2
	errs := make(chan error, clients)
	for c := range clients {
		go func() {
			w, err := pgx.Connect(ctx, env.cl.url("worker_runtime", "jobq"))
			if err != nil {
				errs <- err
				return
			}
			defer w.Close(context.WithoutCancel(ctx))
			for {
				var got int
				err := w.QueryRow(ctx, `WITH c AS (SELECT id, lease_token FROM jobq.claim_job($1, ARRAY['default'], 10, '30 seconds', NULL, NULL, NULL, $2::text[]))
				                        SELECT count(*) FROM jobq.complete_jobs((SELECT array_agg(id) FROM c), (SELECT array_agg(lease_token) FROM c))`,
					fmt.Sprintf("bench-claimer-%d", c), tasks).Scan(&got)
				if err != nil {
					errs <- fmt.Errorf("claim: %w", err)
					return
				}
				if got == 0 {
					errs <- nil
					return
				}
			}
		}()
	}
	for range clients {
		if err := <-errs; err != nil {
			return 0, err
		}
	}
	return historyRate(ctx, conn, "ping", n)
}

// startJobqHTTPProbe is startJobqProbe's runner with an HTTP handler: the in-process server's
// receipt of the request is the job's start.
func startJobqHTTPProbe(ctx context.Context, env *environment) (pickupProbe, error) {
	events := make(chan startEvent, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := monoNow()
		_, _ = io.Copy(io.Discard, r.Body)
		if id, err := strconv.ParseInt(r.Header.Get("Jobq-Job-Id"), 10, 64); err == nil {
			events <- startEvent{id: id, at: at}
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	h, err := runner.HTTPEndpoint(runner.HTTPConfig{URL: srv.URL, Secret: handlerSecret})
	if err != nil {
		srv.Close()
		return nil, err
	}
	p, err := startJobqProbeWith(ctx, env, events, h)
	if err != nil {
		srv.Close()
		return nil, err
	}
	p.after = srv.Close
	return p, nil
}
