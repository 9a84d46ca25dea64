package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"golang.org/x/sys/unix"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// latencyTask is the task of the pickup-latency scenario.
const latencyTask = "bench-latency"

// Pickup latency: every system gets the same treatment. One idle worker; jobs are enqueued one
// at a time, each after the previous one has started and a pause of latencyGap, so the worker is
// idle when each arrives. A job's latency runs from the moment the enqueuing transaction's
// commit has returned to the client to the moment its handler starts (for the raw floor: its
// claim has returned). Both moments are read from CLOCK_MONOTONIC of this machine: by this
// process, and for graphile-worker, which runs in Node, by the Node process
// (process.hrtime.bigint(), the same clock), which prints the reading with the job's id.
const latencyGap = 5 * time.Millisecond

// latencyWarmup jobs run, unmeasured, before each measurement: they show that the worker is up
// and listening, and warm its prepared statements.
const latencyWarmup = 20

// monoNow reads CLOCK_MONOTONIC in nanoseconds: the clock Node's process.hrtime reads too, so
// that a handler in another process is timed on the same clock as the commit here.
func monoNow() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(fmt.Sprintf("clock_gettime(CLOCK_MONOTONIC): %v", err))
	}
	return ts.Nano()
}

// pickupProbe is one system under the pickup-latency measurement, with its worker running.
type pickupProbe interface {
	// one enqueues a job, waits for it to start and returns the commit and start readings of
	// monoNow.
	one(ctx context.Context) (committed, started int64, err error)
	close()
}

// latencySystem is one system and configuration the scenario measures.
type latencySystem struct {
	key   string // row key part: lat/<key>/p50 …; jobq's rows are lat/p50 …
	peer  string // "" for jobq; else the BENCH_PEERS name it belongs to
	label string
	start func(ctx context.Context, env *environment) (pickupProbe, error)
	// busy: busyEnqueuers enqueue in the background; its rows are lat-busy/…
	busy bool
	// slow marks River at its defaults: with jobs 5 ms apart most of its insert notifications
	// fall inside its 100 ms cooldown, and those jobs wait for the 1 s poll. It times
	// latencySlowJobs jobs in the first run only, which keeps make bench short.
	slow bool
}

// latencySlowJobs is how many jobs a slow system's measurement times.
const latencySlowJobs = 300

func latencySystems(env *environment) []latencySystem {
	systems := []latencySystem{{
		label: "jobq, in-process runner at its defaults",
		start: startJobqProbe,
	}}
	if env.has("pgbench") {
		systems = append(systems, latencySystem{key: "floor", peer: "pgbench",
			label: "raw floor: Go loop, INSERT + NOTIFY, LISTEN, UPDATE of every waiting row … SKIP LOCKED … RETURNING (commit → claim returned)",
			start: startFloorProbe})
	}
	// The same two with busyEnqueuers enqueuing in the background (their jobs picked up by the
	// same worker): pickup while the database takes writes.
	systems = append(systems, latencySystem{busy: true,
		label: fmt.Sprintf("jobq, in-process runner at its defaults, %d enqueuers running", busyEnqueuers),
		start: busyProbe(startJobqProbe, "worker_runtime", "jobq", "SELECT jobq.enqueue(task => '"+latencyTask+"', payload => '"+busyMarker+"'::jsonb)")})
	if env.has("pgbench") {
		systems = append(systems, latencySystem{key: "floor", peer: "pgbench", busy: true,
			label: fmt.Sprintf("raw floor, %d enqueuers running (INSERT + NOTIFY)", busyEnqueuers),
			start: busyProbe(startFloorProbe, "postgres", "raw",
				"WITH i AS (INSERT INTO floor_latency (task, payload) VALUES ('"+busyTask+"', '{}') RETURNING id) SELECT pg_notify('floor_latency', '') FROM i")})
	}
	if env.has("river") {
		systems = append(systems,
			latencySystem{key: "river-default", peer: "river", label: "River, defaults (cooldown 100 ms, poll 1 s, 100 workers), in-process client", slow: true,
				start: func(ctx context.Context, env *environment) (pickupProbe, error) {
					return startRiverProbe(ctx, env, riverDefault)
				}},
			latencySystem{key: "river-best", peer: "river", label: "River, tuned: benchmark settings (cooldown 2 ms, poll 20 ms, 2,000 workers), in-process client",
				start: func(ctx context.Context, env *environment) (pickupProbe, error) {
					return startRiverProbe(ctx, env, riverBest)
				}})
	}
	if env.has("graphile") {
		systems = append(systems, latencySystem{key: "graphile-default", peer: "graphile",
			label: "graphile-worker, defaults (1 job at a time, pool 10), worker process",
			start: startGraphileProbe})
	}
	return systems
}

// latencyJobs is how many jobs each measurement times.
func latencyJobs(env *environment) int {
	if env.quick {
		return 300
	}
	return 1000
}

// scenarioLatency measures pickup latency of jobq and of each peer, system after system within
// each run, and reports p50, p95, p99 and max of each.
func scenarioLatency(ctx context.Context, env *environment, rep *report) error {
	if err := env.ensureJobq(ctx); err != nil {
		return err
	}
	if err := env.preparePeers(ctx); err != nil {
		return err
	}
	systems := latencySystems(env)
	for run := 1; run <= env.runs; run++ {
		rep.run = run
		for _, sys := range systems {
			n := latencyJobs(env)
			if sys.slow {
				if run > 1 {
					continue
				}
				n = latencySlowJobs
				if env.quick {
					n = latencySlowJobs / 3
				}
			}
			what := fmt.Sprintf("pickup latency, %s, %s jobs one at a time", sys.label, fmtNum(float64(n)))
			if sys.slow && env.runs > 1 {
				what += " (first run only)"
			}
			prefix := "lat/"
			if sys.busy {
				prefix = "lat-busy/"
			}
			if sys.key != "" {
				prefix += sys.key + "/"
			}
			markAll := func(why string) {
				for _, q := range []string{"p50", "p95", "p99", "max"} {
					rep.mark(prefix+q, "latency", what+": "+q, "ms", why)
				}
			}
			if why := env.peerDown[sys.peer]; sys.peer != "" && why != "" {
				markAll(why)
				continue
			}
			env.progress("latency run %d/%d: %s", run, env.runs, sys.label)
			lat, err := measurePickup(ctx, env, sys, n)
			if err != nil {
				if sys.peer == "" {
					return fmt.Errorf("%s: %w", sys.label, err)
				}
				env.peerDown[sys.peer] = "FAILED: " + oneLine(err.Error())
				markAll(env.peerDown[sys.peer])
				rep.failures = append(rep.failures, "latency: "+sys.label+": "+err.Error())
				continue
			}
			p := func(q float64) float64 { return percentile(lat, q) }
			env.progress("  p50 %.3f ms, p95 %.3f ms, p99 %.3f ms, max %.3f ms", p(0.50), p(0.95), p(0.99), p(1))
			rep.add(prefix+"p50", "latency", what+": p50", "ms", p(0.50))
			rep.add(prefix+"p95", "latency", what+": p95", "ms", p(0.95))
			rep.add(prefix+"p99", "latency", what+": p99", "ms", p(0.99))
			rep.add(prefix+"max", "latency", what+": max", "ms", p(1))
		}
	}
	if err := profileLatency(ctx, env, rep); err != nil {
		return fmt.Errorf("hot spots: %w", err)
	}
	return execSQL(ctx, env.cl.url("postgres", "jobq"), "TRUNCATE jobq.jobs, jobq.job_history")
}

// latencyProfileJobs is how many pickups the hot-spots run times.
const latencyProfileJobs = 300

// profileLatency runs jobq's pickup measurement once more, for latencyProfileJobs jobs, with
// pg_stat_statements tracking nested statements, and reports the top statements: where an
// idle runner's pickup spends the database's time. Not part of any figure.
func profileLatency(ctx context.Context, env *environment, rep *report) error {
	env.progress("hot spots: %d more pickups of jobq with pg_stat_statements.track = all", latencyProfileJobs)
	intro := fmt.Sprintf("Over %d more jobs (and %d of warm-up) picked up one at a time by jobq's in-process runner at its defaults, after the latency runs. "+
		"Each pickup is one `claim_job` that takes the job; on the runner's LISTEN connection, `release_doorbell` as the notification "+
		"arrives (beside that claim), then `hold_doorbell` and `doorbell_quiet` once the claim came back short, and one more "+
		"`claim_job` that finds nothing; `complete_jobs` after the handler.", latencyProfileJobs, latencyWarmup)
	return hotSpots(ctx, env, rep, "Hot spots of the engine: pickup of an idle worker (pg_stat_statements)", intro, func(ctx context.Context) error {
		_, err := measurePickup(ctx, env, latencySystem{start: startJobqProbe}, latencyProfileJobs)
		return err
	})
}

// measurePickup starts the system's idle worker, runs the warm-up jobs, then returns the
// latencies, in ms, of n jobs.
func measurePickup(ctx context.Context, env *environment, sys latencySystem, n int) ([]float64, error) {
	probe, err := sys.start(ctx, env)
	if err != nil {
		return nil, err
	}
	defer probe.close()
	for range latencyWarmup {
		if _, _, err := probe.one(ctx); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	time.Sleep(500 * time.Millisecond)
	lat := make([]float64, 0, n)
	for range n {
		committed, started, err := probe.one(ctx)
		if err != nil {
			return nil, err
		}
		lat = append(lat, float64(started-committed)/1e6)
		time.Sleep(latencyGap)
	}
	return lat, nil
}

// startEvent is a job's id and the monoNow reading at its handler's start.
type startEvent struct {
	id int64
	at int64
}

// awaitStart waits up to 10 s for the start of job id; events of other jobs are dropped.
func awaitStart(ctx context.Context, events <-chan startEvent, failed <-chan error, id int64) (int64, error) {
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.id == id {
				return ev.at, nil
			}
		case err := <-failed:
			return 0, fmt.Errorf("worker stopped: %w", err)
		case <-timeout:
			return 0, fmt.Errorf("job %d did not start within 10 s", id)
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// jobqProbe is an in-process runner.Runner at its defaults, the pool sized as its documentation
// asks, and a separate worker_runtime connection that enqueues.
type jobqProbe struct {
	pool    *pgxpool.Pool
	conn    *pgx.Conn
	events  chan startEvent
	runErr  chan error
	stopRun context.CancelFunc
	after   func() // run after the runner stopped (nil: nothing)
}

func startJobqProbe(ctx context.Context, env *environment) (pickupProbe, error) {
	events := make(chan startEvent, 16)
	return startJobqProbeWith(ctx, env, events, runner.HandlerFunc(func(ctx context.Context, job *jobq.Job) error {
		if bytes.Contains(job.Payload, []byte(busyMarker)) {
			return nil // a background enqueuer's job: nobody waits for it
		}
		events <- startEvent{id: job.ID, at: monoNow()}
		return nil
	}))
}

// startJobqProbeWith starts the probe's runner with handler h for latencyTask; h (or what it
// calls) sends each job's start to events.
func startJobqProbeWith(ctx context.Context, env *environment, events chan startEvent, h runner.Handler) (*jobqProbe, error) {
	if err := execSQL(ctx, env.cl.url("postgres", "jobq"), "TRUNCATE jobq.jobs, jobq.job_history"); err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(env.cl.url("worker_runtime", "jobq"))
	if err != nil {
		return nil, fmt.Errorf("pool config: %w", err)
	}
	cfg.MaxConns = runner.DefaultConcurrency + 4
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pool: %w", err)
	}
	p := &jobqProbe{pool: pool, events: events, runErr: make(chan error, 1)}
	r, err := runner.New(runner.Config{
		Pool:   pool,
		Tasks:  []jobq.TaskDefinition{{Name: latencyTask, Scope: jobq.ScopeSystem, Description: "jobq bench: pickup latency probe."}},
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("runner: %w", err)
	}
	r.Handle(latencyTask, h)
	// Declared before the first enqueue; Run declares it again, changing nothing.
	if err := r.DeclareTasks(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("declare %s: %w", latencyTask, err)
	}
	runCtx, stop := context.WithCancel(ctx)
	p.stopRun = stop
	go func() { p.runErr <- r.Run(runCtx) }()
	if p.conn, err = pgx.Connect(ctx, env.cl.url("worker_runtime", "jobq")); err != nil {
		p.close()
		return nil, fmt.Errorf("connect: %w", err)
	}
	return p, nil
}

func (p *jobqProbe) one(ctx context.Context) (int64, int64, error) {
	var id int64
	if err := p.conn.QueryRow(ctx, "SELECT jobq.enqueue(task => $1, payload => '{}'::jsonb)", latencyTask).Scan(&id); err != nil {
		return 0, 0, fmt.Errorf("enqueue: %w", err)
	}
	committed := monoNow()
	started, err := awaitStart(ctx, p.events, p.runErr, id)
	return committed, started, err
}

func (p *jobqProbe) close() {
	if p.conn != nil {
		p.conn.Close(context.Background())
	}
	p.stopRun()
	<-p.runErr
	p.pool.Close()
	if p.after != nil {
		p.after()
	}
}

// floorProbe is the raw floor: one connection LISTENs and, on each notification, claims one row
// with UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED LIMIT 1) RETURNING id; another
// inserts a row and NOTIFYs in one transaction.
type floorProbe struct {
	listen  *pgx.Conn
	enqueue *pgx.Conn
	events  chan startEvent
	failed  chan error
	stop    context.CancelFunc
	done    chan struct{}
}

func startFloorProbe(ctx context.Context, env *environment) (pickupProbe, error) {
	url := env.cl.url("postgres", "raw")
	if err := execSQL(ctx, url, "TRUNCATE floor_latency", "VACUUM ANALYZE floor_latency"); err != nil {
		return nil, err
	}
	listen, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	// The claim under the planner settings jobq's claim pins (the table is small: unpinned,
	// the planner may read all of it), checked before it is timed.
	for _, set := range append([]string{"plan_cache_mode = force_generic_plan"}, claimSettings...) {
		if _, err := listen.Exec(ctx, "SET "+set); err != nil {
			listen.Close(ctx)
			return nil, fmt.Errorf("set %s: %w", set, err)
		}
	}
	if err := checkFloorPlans(ctx, listen, []floorPlan{{name: "pickup floor: claim", settings: claimSettings, sql: floorPickupClaim}}); err != nil {
		listen.Close(ctx)
		return nil, err
	}
	if _, err := listen.Exec(ctx, "LISTEN floor_latency"); err != nil {
		listen.Close(ctx)
		return nil, fmt.Errorf("listen: %w", err)
	}
	enq, err := pgx.Connect(ctx, url)
	if err != nil {
		listen.Close(ctx)
		return nil, fmt.Errorf("connect: %w", err)
	}
	loopCtx, stop := context.WithCancel(ctx)
	p := &floorProbe{listen: listen, enqueue: enq, events: make(chan startEvent, 16), failed: make(chan error, 1), stop: stop, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			if _, err := listen.WaitForNotification(loopCtx); err != nil {
				if loopCtx.Err() == nil {
					p.failed <- fmt.Errorf("wait for notification: %w", err)
				}
				return
			}
			// Every waiting row in one claim, as jobq's runner claims for its free slots: a
			// notification whose row an earlier claim took finds nothing.
			rows, err := listen.Query(loopCtx, floorPickupClaim)
			if err != nil {
				if loopCtx.Err() == nil {
					p.failed <- fmt.Errorf("claim: %w", err)
				}
				return
			}
			var started []startEvent
			for rows.Next() {
				var id int64
				var task string
				if err := rows.Scan(&id, &task); err != nil {
					break
				}
				if task != busyTask {
					started = append(started, startEvent{id: id})
				}
			}
			rows.Close()
			at := monoNow()
			if err := rows.Err(); err != nil {
				if loopCtx.Err() == nil {
					p.failed <- fmt.Errorf("claim: %w", err)
				}
				return
			}
			for _, ev := range started {
				ev.at = at
				p.events <- ev
			}
		}
	}()
	return p, nil
}

func (p *floorProbe) one(ctx context.Context) (int64, int64, error) {
	tx, err := p.enqueue.Begin(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var id int64
	if err := tx.QueryRow(ctx, "INSERT INTO floor_latency (task, payload) VALUES ('ping', '{}') RETURNING id").Scan(&id); err != nil {
		return 0, 0, fmt.Errorf("insert: %w", err)
	}
	if _, err := tx.Exec(ctx, "SELECT pg_notify('floor_latency', '')"); err != nil {
		return 0, 0, fmt.Errorf("notify: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, 0, fmt.Errorf("commit: %w", err)
	}
	committed := monoNow()
	started, err := awaitStart(ctx, p.events, p.failed, id)
	return committed, started, err
}

func (p *floorProbe) close() {
	p.stop()
	<-p.done
	p.listen.Close(context.Background())
	p.enqueue.Close(context.Background())
}

// riverProbe is an in-process River client working the default queue, which also inserts the
// jobs (client.Insert, its own transaction), as an application would.
type riverProbe struct {
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
	events chan startEvent
	failed chan error
}

func startRiverProbe(ctx context.Context, env *environment, prof riverProfile) (pickupProbe, error) {
	url := env.cl.url("postgres", "river")
	if err := execSQL(ctx, url, "TRUNCATE river_job", "VACUUM ANALYZE river_job"); err != nil {
		return nil, err
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("river pool: %w", err)
	}
	p := &riverProbe{pool: pool, events: make(chan startEvent, 16), failed: make(chan error, 1)}
	workers := river.NewWorkers()
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, job *river.Job[noopArgs]) error {
		p.events <- startEvent{id: job.ID, at: monoNow()}
		return nil
	}))
	p.client, err = river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: prof.maxWorkers}},
		FetchCooldown:     prof.fetchCooldown,
		FetchPollInterval: prof.fetchPoll,
		Workers:           workers,
		Logger:            quietLogger(),
	})
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("river client: %w", err)
	}
	if err := p.client.Start(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("river start: %w", err)
	}
	return p, nil
}

func (p *riverProbe) one(ctx context.Context) (int64, int64, error) {
	res, err := p.client.Insert(ctx, noopArgs{}, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("river insert: %w", err)
	}
	committed := monoNow()
	started, err := awaitStart(ctx, p.events, p.failed, res.Job.ID)
	return committed, started, err
}

func (p *riverProbe) close() {
	stopCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_ = p.client.Stop(stopCtx)
	p.pool.Close()
}

// graphileProbe is a graphile-worker process at its defaults (worker.mjs latency); the jobs are
// added with graphile_worker.add_job on a connection of this process. The handler prints
// "START <job id> <CLOCK_MONOTONIC ns>" as its first act.
type graphileProbe struct {
	proc   *proc
	conn   *pgx.Conn
	watch  *lineWatcher
	events chan startEvent
	failed chan error
	done   chan struct{}
}

func startGraphileProbe(ctx context.Context, env *environment) (pickupProbe, error) {
	url := env.cl.url("postgres", "graphile")
	if err := execSQL(ctx, url, "TRUNCATE graphile_worker._private_jobs CASCADE", "VACUUM ANALYZE graphile_worker._private_jobs"); err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(env.logDir, "graphile-worker-latency.out"))
	if err != nil {
		return nil, fmt.Errorf("graphile log: %w", err)
	}
	watch := newLineWatcher(logFile)
	w, err := startProc(env, "graphile-worker-latency", watch, nil, env.nodeBin,
		filepath.Join(env.graphileDir, "worker.mjs"), "latency", url)
	if err != nil {
		logFile.Close()
		return nil, err
	}
	if _, err := awaitLine(ctx, watch, w, "READY", time.Minute); err != nil {
		w.kill()
		logFile.Close()
		return nil, err
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		w.kill()
		logFile.Close()
		return nil, fmt.Errorf("connect: %w", err)
	}
	p := &graphileProbe{proc: w, conn: conn, watch: watch, events: make(chan startEvent, 16), failed: make(chan error, 1), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer logFile.Close()
		for {
			select {
			case l := <-watch.lines:
				rest, ok := strings.CutPrefix(l, "START ")
				if !ok {
					continue
				}
				f := strings.Fields(rest)
				if len(f) != 2 {
					continue
				}
				id, err1 := strconv.ParseInt(f[0], 10, 64)
				at, err2 := strconv.ParseInt(f[1], 10, 64)
				if err1 != nil || err2 != nil {
					continue
				}
				select {
				case p.events <- startEvent{id: id, at: at}:
				case <-w.done:
				}
			case <-w.done:
				p.failed <- w.exited()
				return
			}
		}
	}()
	return p, nil
}

func (p *graphileProbe) one(ctx context.Context) (int64, int64, error) {
	var id int64
	if err := p.conn.QueryRow(ctx, "SELECT (graphile_worker.add_job('noop', '{}'::json)).id").Scan(&id); err != nil {
		return 0, 0, fmt.Errorf("graphile add_job: %w", err)
	}
	committed := monoNow()
	started, err := awaitStart(ctx, p.events, p.failed, id)
	return committed, started, err
}

func (p *graphileProbe) close() {
	p.conn.Close(context.Background())
	_ = p.proc.stop(20 * time.Second)
	<-p.done
}

// percentile returns the q-quantile (0 < q ≤ 1) of values by the nearest-rank method: the
// smallest value with at least q of the values at or below it.
func percentile(values []float64, q float64) float64 {
	if len(values) == 0 {
		return 0
	}
	v := slices.Clone(values)
	sort.Float64s(v)
	rank := int(math.Ceil(q*float64(len(v)) - 1e-9))
	return v[min(max(rank-1, 0), len(v)-1)]
}

// floorPickupClaim is the pickup floor's claim: every waiting row, up to 100, in id order.
const floorPickupClaim = `UPDATE floor_latency SET state = 'running', claimed_at = now()
WHERE id IN (SELECT id FROM floor_latency WHERE state = 'queued' ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED)
RETURNING id, task`

// busyEnqueuers enqueue in the background of the busy pickup measures, each one job every
// busyInterval (800 jobs/s in all: well below any drain rate here, so the worker keeps up and
// the pickup measured is not a backlog's).
const (
	busyEnqueuers = 8
	busyInterval  = 10 * time.Millisecond
	// busyMarker is the payload of jobq's background jobs; busyTask the floor's task.
	busyMarker = `{"bench_background": true}`
	busyTask   = "background"
)

// busyProbe starts a probe with start, then busyEnqueuers connections (as user to database
// db) that run stmt every busyInterval until the probe closes.
func busyProbe(start func(context.Context, *environment) (pickupProbe, error), user, db, stmt string) func(context.Context, *environment) (pickupProbe, error) {
	return func(ctx context.Context, env *environment) (pickupProbe, error) {
		probe, err := start(ctx, env)
		if err != nil {
			return nil, err
		}
		bctx, stop := context.WithCancel(ctx)
		b := &backgroundProbe{pickupProbe: probe, stop: stop, errs: make(chan error, busyEnqueuers)}
		for range busyEnqueuers {
			conn, err := pgx.Connect(ctx, env.cl.url(user, db))
			if err != nil {
				b.close()
				return nil, fmt.Errorf("background enqueuer: %w", err)
			}
			b.wg.Add(1)
			go func() {
				defer b.wg.Done()
				defer conn.Close(context.Background())
				tick := time.NewTicker(busyInterval)
				defer tick.Stop()
				for {
					select {
					case <-bctx.Done():
						return
					case <-tick.C:
					}
					if _, err := conn.Exec(bctx, stmt); err != nil {
						if bctx.Err() == nil {
							b.errs <- fmt.Errorf("background enqueuer: %w", err)
						}
						return
					}
				}
			}()
		}
		return b, nil
	}
}

// backgroundProbe is a probe with background enqueuers; a failed enqueuer fails the next pickup.
type backgroundProbe struct {
	pickupProbe
	stop context.CancelFunc
	wg   sync.WaitGroup
	errs chan error
}

func (b *backgroundProbe) one(ctx context.Context) (int64, int64, error) {
	select {
	case err := <-b.errs:
		return 0, 0, err
	default:
	}
	return b.pickupProbe.one(ctx)
}

func (b *backgroundProbe) close() {
	b.stop()
	b.wg.Wait()
	b.pickupProbe.close()
}
