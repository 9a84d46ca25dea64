package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// enqueueBatch is the batch size of the enqueue_many and raw batched INSERT measures.
const enqueueBatch = 1000

// enqueueDuration is how long each enqueue measure runs: long enough for a steady rate over
// thousands of transactions, short enough that 8 measures times 3 runs stay near two minutes.
func enqueueDuration(env *environment) time.Duration {
	if env.quick {
		return 3 * time.Second
	}
	return 5 * time.Second
}

// scenarioEnqueue measures rows/s of jobq.enqueue (pgbench, one job per transaction, 1, 8 and 32
// connections) with a jobq worker listening (and draining), with the notifications a job it
// caused, against a raw single-row INSERT into a copy of jobq.jobs (same columns, defaults,
// constraints, indexes and storage parameters); and of jobq.enqueue_many against a raw batched
// INSERT of the same batch size (one connection).
func scenarioEnqueue(ctx context.Context, env *environment, rep *report) error {
	if err := env.ensureJobq(ctx); err != nil {
		return err
	}
	admin := env.cl.url("postgres", "jobq")
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	err = copyTable(ctx, conn, "bench.raw_jobs", "jobq.jobs")
	conn.Close(context.WithoutCancel(ctx))
	if err != nil {
		return err
	}
	if err := execSQL(ctx, admin,
		`SELECT jobq.define_task('ping', 'system', description => 'jobq worker built-in: completes at once (smoke test).')`,
		// The raw side runs as the same role as jobq's.
		"GRANT USAGE ON SCHEMA bench TO worker_runtime",
		"GRANT INSERT ON bench.raw_jobs TO worker_runtime",
		"GRANT USAGE ON ALL SEQUENCES IN SCHEMA bench TO worker_runtime",
	); err != nil {
		return err
	}
	jobqScript := filepath.Join(env.cacheDir, "enqueue-jobq.sql")
	rawScript := filepath.Join(env.cacheDir, "enqueue-raw.sql")
	if err := os.WriteFile(jobqScript, []byte("SELECT jobq.enqueue(task => 'ping', payload => '{}'::jsonb);\n"), 0o644); err != nil {
		return fmt.Errorf("pgbench script: %w", err)
	}
	if err := os.WriteFile(rawScript, []byte("INSERT INTO bench.raw_jobs (task, payload, max_attempts) VALUES ('ping', '{}'::jsonb, 25);\n"), 0o644); err != nil {
		return fmt.Errorf("pgbench script: %w", err)
	}
	dur := enqueueDuration(env)
	for run := 1; run <= env.runs; run++ {
		rep.run = run
		for _, clients := range []int{1, 8, 32} {
			c := strconv.Itoa(clients)
			// With a runner listening: one jobq worker at its defaults serves the queue (and
			// drains it), so an enqueue rings the doorbell whenever the worker waits for work.
			env.progress("enqueue run %d/%d: single jobq.enqueue, %d connection(s), a jobq worker listening", run, env.runs, clients)
			tps, perJob, err := enqueueWithRunner(ctx, env, jobqScript, clients, dur)
			if err != nil {
				return fmt.Errorf("jobq.enqueue with %d connections: %w", clients, err)
			}
			env.progress("  %s rows/s, %.3f notifications a job", fmtNum(tps), perJob)
			rep.add("enq/single/"+c, "enqueue", "jobq.enqueue, one job per transaction, "+c+" connection(s) (pgbench), one jobq worker (defaults) listening and draining", "rows/s", tps)
			rep.add("enq/single-notify/"+c, "enqueue", "notifications a job on channel jobq (a LISTEN connection of the harness) in that measure", "notifications/job", perJob)
			env.progress("enqueue run %d/%d: raw single INSERT, %d connection(s)", run, env.runs, clients)
			raw, err := pgbenchRate(ctx, env, "worker_runtime", rawScript, clients, dur, "TRUNCATE bench.raw_jobs")
			if err != nil {
				return fmt.Errorf("raw INSERT with %d connections: %w", clients, err)
			}
			env.progress("  %s rows/s", fmtNum(raw))
			rep.add("enq/raw-single/"+c, "enqueue", "raw single-row INSERT into a copy of jobq.jobs (its indexes, constraints and storage), "+c+" connection(s) (pgbench)", "rows/s", raw)
		}
		env.progress("enqueue run %d/%d: jobq.enqueue_many, batches of %d", run, env.runs, enqueueBatch)
		many, err := batchRate(ctx, env, true, dur)
		if err != nil {
			return fmt.Errorf("enqueue_many: %w", err)
		}
		env.progress("  %s rows/s", fmtNum(many))
		rep.add("enq/many", "enqueue", fmt.Sprintf("jobq.enqueue_many, JSON array of %d jobs per call, 1 connection", enqueueBatch), "rows/s", many)
		env.progress("enqueue run %d/%d: raw batched INSERT, batches of %d", run, env.runs, enqueueBatch)
		raw, err := batchRate(ctx, env, false, dur)
		if err != nil {
			return fmt.Errorf("raw batched INSERT: %w", err)
		}
		env.progress("  %s rows/s", fmtNum(raw))
		rep.add("enq/raw-many", "enqueue", fmt.Sprintf("raw INSERT … SELECT FROM unnest(arrays) of %d rows into a copy of jobq.jobs (its indexes, constraints and storage), 1 connection", enqueueBatch), "rows/s", raw)
	}
	if err := profileEnqueue(ctx, env, rep, jobqScript); err != nil {
		return fmt.Errorf("hot spots: %w", err)
	}
	return execSQL(ctx, admin, "TRUNCATE jobq.jobs, jobq.job_history", "TRUNCATE bench.raw_jobs")
}

// profileEnqueue runs single enqueues on one connection for a few seconds with
// pg_stat_statements tracking nested statements, and reports the top statements. Not part of
// any figure.
func profileEnqueue(ctx context.Context, env *environment, rep *report, script string) error {
	env.progress("hot spots: 5 s of single jobq.enqueue with pg_stat_statements.track = all")
	return hotSpots(ctx, env, rep, "Hot spots of the engine: single enqueue (pg_stat_statements)",
		"Over 5 s of single `jobq.enqueue` calls from pgbench on one connection.", func(ctx context.Context) error {
			_, err := pgbenchRate(ctx, env, "worker_runtime", script, 1, 5*time.Second, "TRUNCATE jobq.jobs, jobq.job_history")
			return err
		})
}

var tpsLine = regexp.MustCompile(`(?m)^tps = ([0-9.]+) \(without initial connection time\)`)

// pgbenchRate empties the table with reset, then runs script with pgbench as user for dur and
// returns its transactions per second (one row each).
func pgbenchRate(ctx context.Context, env *environment, user, script string, clients int, dur time.Duration, reset string) (float64, error) {
	if err := execSQL(ctx, env.cl.url("postgres", "jobq"), reset, "CHECKPOINT"); err != nil {
		return 0, err
	}
	args := []string{"-h", "127.0.0.1", "-p", strconv.Itoa(env.cl.port), "-U", user,
		"-n", "-M", "prepared", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(min(clients, 2)),
		"-T", strconv.Itoa(int(dur.Seconds())), "-f", script, "jobq"}
	out, err := runTool(ctx, nil, filepath.Join(env.pgBinDir, "pgbench"), args...)
	if err != nil {
		return 0, err
	}
	m := tpsLine.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no tps line in pgbench's output:\n%s", lastChars(out, 1500))
	}
	if strings.Contains(out, "number of failed transactions: ") && !strings.Contains(out, "number of failed transactions: 0 ") {
		return 0, fmt.Errorf("pgbench reports failed transactions:\n%s", lastChars(out, 1500))
	}
	return strconv.ParseFloat(m[1], 64)
}

// batchRate inserts batches of enqueueBatch jobs for dur on one connection, through
// jobq.enqueue_many (as worker_runtime, a JSON array built once) or through a raw INSERT …
// SELECT FROM unnest (as the superuser, arrays built once), and returns rows/s.
func batchRate(ctx context.Context, env *environment, jobq bool, dur time.Duration) (float64, error) {
	if err := execSQL(ctx, env.cl.url("postgres", "jobq"), "TRUNCATE jobq.jobs, jobq.job_history", "TRUNCATE bench.raw_jobs", "CHECKPOINT"); err != nil {
		return 0, err
	}
	user := "postgres"
	if jobq {
		user = "worker_runtime"
	}
	conn, err := pgx.Connect(ctx, env.cl.url(user, "jobq"))
	if err != nil {
		return 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))

	var sql string
	var args []any
	if jobq {
		var b strings.Builder
		b.WriteByte('[')
		for i := range enqueueBatch {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"task":"ping","payload":{}}`)
		}
		b.WriteByte(']')
		sql = "SELECT count(*) FROM jobq.enqueue_many($1::jsonb)"
		args = []any{b.String()}
	} else {
		tasks := make([]string, enqueueBatch)
		payloads := make([]string, enqueueBatch)
		for i := range tasks {
			tasks[i], payloads[i] = "ping", "{}"
		}
		sql = `WITH ins AS (INSERT INTO bench.raw_jobs (task, payload, max_attempts)
			SELECT t, p, 25 FROM unnest($1::text[], $2::jsonb[]) AS u(t, p) RETURNING 1) SELECT count(*) FROM ins`
		args = []any{tasks, payloads}
	}
	rows := 0
	began := time.Now()
	for time.Since(began) < dur {
		var got int
		if err := conn.QueryRow(ctx, sql, args...).Scan(&got); err != nil {
			return 0, err
		}
		if got != enqueueBatch {
			return 0, fmt.Errorf("a batch inserted %d of %d rows", got, enqueueBatch)
		}
		rows += got
	}
	return float64(rows) / time.Since(began).Seconds(), nil
}

// enqueueWithRunner runs single enqueues (script) from clients pgbench connections for dur
// while one `jobq worker` at its defaults listens and drains the queue, and returns the enqueue
// rate and the notifications a job that a LISTEN connection of the harness received on channel
// jobq: under the doorbell an enqueue notifies only while the worker waits for work.
func enqueueWithRunner(ctx context.Context, env *environment, script string, clients int, dur time.Duration) (rows, perJob float64, err error) {
	admin := env.cl.url("postgres", "jobq")
	if err := execSQL(ctx, admin, "TRUNCATE jobq.jobs, jobq.job_history", "CHECKPOINT"); err != nil {
		return 0, 0, err
	}
	workers, err := startJobqWorkers(env, 1, 0, "enqueue")
	if err != nil {
		return 0, 0, err
	}
	w := workers[0]
	defer w.kill()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return 0, 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// Ready: the worker's LISTEN connection is up.
	for deadline := time.Now().Add(30 * time.Second); ; {
		var up bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = 'jobq'
			AND application_name = 'jobq-listener')`).Scan(&up); err != nil {
			return 0, 0, err
		}
		if up {
			break
		}
		if err := w.exited(); err != nil {
			return 0, 0, err
		}
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("the jobq worker did not listen within 30 s; log %s:\n%s", w.logPath, w.logTail())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := conn.Exec(ctx, "LISTEN jobq"); err != nil {
		return 0, 0, err
	}
	counted := make(chan int, 1)
	lctx, stopListening := context.WithCancel(ctx)
	go func() {
		n := 0
		for {
			if _, err := conn.WaitForNotification(lctx); err != nil {
				counted <- n
				return
			}
			n++
		}
	}()
	tps, err := pgbenchRate(ctx, env, "worker_runtime", script, clients, dur, "SELECT 1")
	time.Sleep(500 * time.Millisecond) // notifications of the last commits
	stopListening()
	notified := <-counted
	if err != nil {
		return 0, 0, err
	}
	if err := w.exited(); err != nil {
		return 0, 0, err
	}
	if err := w.stop(30 * time.Second); err != nil {
		return 0, 0, err
	}
	var jobs int64
	if err := conn.QueryRow(context.WithoutCancel(ctx), `SELECT (SELECT count(*) FROM jobq.jobs) + (SELECT count(*) FROM jobq.job_history)`).Scan(&jobs); err != nil {
		return 0, 0, err
	}
	if jobs == 0 {
		return 0, 0, fmt.Errorf("pgbench enqueued no job")
	}
	return tps, float64(notified) / float64(jobs), nil
}
