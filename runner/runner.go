package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/engine"
)

// Defaults of Config.
const (
	DefaultConcurrency   = 10
	DefaultShutdownGrace = 25 * time.Second
	// DefaultClaimAhead is used when Config.ClaimAhead is zero.
	DefaultClaimAhead = 100 * time.Millisecond
	// DefaultRescanInterval is used when Config.RescanInterval is zero.
	DefaultRescanInterval = time.Second
	// DefaultQueue is the queue served when Config.Queues is empty.
	DefaultQueue = "default"
	// MinMaxUnwrittenResults is the least default of Config.MaxUnwrittenResults, whose default
	// is ten times Config.Concurrency: the largest claim (maxClaimBatch). Below it, while handlers
	// return faster than results are written, a claim waits for the write in flight, so claims
	// and writes take turns instead of overlapping (issue 17: with 100, one worker at concurrency
	// 10 drained 100,000 no-op jobs at 21,720 and 23,393 jobs/s; with 1,000 at 40,679 and 28,828).
	MinMaxUnwrittenResults = maxClaimBatch
)

const (
	startRetryMax     = 5 * time.Second  // longest wait between start-up checks
	maxHandBackTokens = 10000            // the most lease tokens jobq.hand_back_unheld takes
	hardStopWait      = time.Second      // how long StopAndCancel waits for handlers to return
	finishDrainLimit  = 10 * time.Second // how long a shutdown waits for results to be written
)

// Config configures a Runner. Only Pool is required; every other field has the default stated
// on it.
type Config struct {
	// Pool is the database the runner works on. It should log in as worker_runtime: Run refuses
	// a superuser, a BYPASSRLS role and the jobq schema's owner (ErrUnsafeRole). The runner uses
	// it for claims, heartbeats, results, rescues and readiness checks, and (Wakeup notify) opens
	// one more, dedicated connection with the same settings to LISTEN. Size it at Concurrency
	// plus a few connections, more if handlers use it too.
	Pool *pgxpool.Pool

	// WorkerID names this runner in the jobs it claims (locked_by). Default:
	// "<hostname>-<pid>-<4 random hex digits>".
	WorkerID string

	// Queues are the queues served, in priority order: a later queue is served only when the
	// earlier ones have no due job. Default: ["default"].
	Queues []string

	// Concurrency is the most handlers that run at once. Default: 10.
	Concurrency int

	// ClaimAhead bounds claiming ahead: claiming more jobs than there are free handler slots,
	// so that a busy queue is drained in large batches and a handler that returns starts the
	// next job without waiting for a claim. The runner claims ahead only while its handlers
	// return at least once per ClaimAhead, and only as many jobs as keep them fed across a
	// claim's round trip (it doubles the number, up to 1,000 a claim, each time a handler found
	// none waiting while the queue had more). Jobs claimed ahead wait in the runner under a lease
	// that heartbeats renew; one that waited ten times ClaimAhead (at least a second) for a slot
	// is handed back, and all are handed back when the runner stops, drains or is detached, in
	// each case without using an attempt, so a long handler never hoards the jobs behind it.
	// Default: 100 ms; a negative value claims only for free slots.
	ClaimAhead time.Duration

	// RescanInterval is how often the runner asks the engine (jobq.claim_passed_over, on a
	// connection beside its claims) whether its claims passed over a due job. Its claims start
	// where its claims got to in each queue, 250 ms back in time and at least one claim back
	// (they still take jobs of a higher priority first, and a job committed late by a transaction
	// shorter than that), so that they do not read again the
	// index entries of every job claimed since the last vacuum: a claim that walked them slowed a large drain down, and with a snapshot held open (a forgotten
	// transaction) it grew slower with every job claimed (docs/go-runner.md). A job that sorts
	// before a position is passed over: committed late by a long transaction (its run_at is the
	// transaction's start), enqueued with a past run_at, a cron catch-up slot, or handed back.
	// When the answer is yes (or the question fails), the next claim starts from the head of every
	// queue and takes it; so such a job waits at most about this long more than it would have.
	// Default: 1 second; a negative value starts every claim from the head.
	RescanInterval time.Duration

	// Lease is how long a claim, and each heartbeat, holds a job. A job whose lease expires
	// without a heartbeat is rescued (run again) within one maintain_interval of its expiry by
	// any live runner: the leader's jobq.maintain, every other runner's jobq.rescue_expired.
	// Default: the setting default_lease (30 seconds as shipped), read at start and at every
	// worker heartbeat; a change applies to the next claims.
	Lease time.Duration

	// HeartbeatInterval is how often the runner renews the leases it holds, in one
	// heartbeat_jobs call. Default: a third of the lease in use.
	HeartbeatInterval time.Duration

	// PollInterval is how often the runner claims without having been notified. NOTIFY is only
	// a hint; polling is the backstop. Default: the setting poll_interval (1 second as
	// shipped), read at start and at every worker heartbeat.
	PollInterval time.Duration

	// Wakeup is how the runner learns between polls that jobs are due. WakeupNotify LISTENs on
	// channel jobq on one more connection with the pool's settings. WakeupWAL reads the logical
	// messages enqueue emits from a temporary replication slot on one replication connection
	// (WakeupURL), so that enqueuers take no NOTIFY lock at commit; when the slot cannot be had
	// (wal_level not logical, no REPLICATION, no free slot or WAL sender, connection refused) the
	// runner polls, logs why, sets jobq_wakeup_fallback to 1 and tries again with backoff. What
	// enqueue sends is the database's setting wakeup: notify, wal or both (jobq.set_setting);
	// runners in WAL mode need wal or both. Default: WakeupNotify.
	Wakeup WakeupMode

	// WakeupURL is the connection URL of the WAL wake-up (Wakeup = WakeupWAL; ignored
	// otherwise). It should log in as jobq_waker, the role bootstrap creates with REPLICATION and
	// no other right; never as worker_runtime, which must not have REPLICATION. The runner adds
	// replication=database, and application_name=jobq-waker unless the URL sets one. Default: the
	// pool's host, port, database and TLS settings with user jobq_waker and no password, which
	// suits trust or certificate authentication; set it when jobq_waker has a password. New
	// returns an error when it does not parse.
	WakeupURL string

	// NoLeader keeps this runner from ever taking the leadership, so it never calls
	// jobq.maintain (cron slots, lost workers, retention); it still sweeps expired leases and
	// timeouts with jobq.rescue_expired every maintain_interval, as every runner that does not
	// lead does. Default: false: every runner competes for the leadership and exactly one leads
	// at a time. At least one runner per database should be able to lead, or pg_cron should call
	// jobq.maintain(); otherwise schedules never fire and lost workers are never marked.
	NoLeader bool

	// Schedules are declared in jobq.schedules (Client.Schedule) when Run starts, after the
	// tasks, so a schedule may name a task this runner declares. Declaring is idempotent: a
	// schedule that differs in nothing is left as it was. A schedule removed from this list
	// stays in the database until jobq.unschedule removes it. Default: none.
	Schedules []jobq.ScheduleDefinition

	// Version is recorded in jobq.workers for operators. Default: the main module's version
	// from the build information ("(devel)" for a development build).
	Version string

	// Once makes Run return when the queues are drained, for cron-driven deployments: as soon as
	// a claim finds no due job while no handler runs and no result waits to be written, the
	// runner shuts down as if the context of Run had ended (and returns nil after a clean drain).
	// Jobs that become due later (scheduled, retry backoff) are left for the next run. Default:
	// false: Run works until its context ends.
	Once bool

	// MaxUnwrittenResults bounds the results of returned handlers that wait to be written (the
	// database is slow or away): while this many wait, the runner claims nothing, so a second
	// fault before they are written makes at most this many jobs run again. The results are
	// written within a second of the database answering again (a successful claim or sweep
	// wakes the writer; its retries wait at most half a second otherwise), and claiming resumes
	// once they are. jobq_results_unwritten shows how many wait, jobq_claims_held_back_total how
	// often a claim was skipped for it. Default: ten times Concurrency, at least 1,000 (the largest
	// claim).
	MaxUnwrittenResults int

	// ShutdownGrace is how long, after the context of Run ends, running handlers may go on
	// before they are cancelled and their jobs handed back. Default: 25 seconds.
	ShutdownGrace time.Duration

	// Logger receives the runner's logs. Default: JSON lines on standard error.
	Logger *slog.Logger

	// Reporter is told about every job that dies (its final failure), for alerting: by the
	// runner that ran its last attempt, or, for a job that died in a sweep (orphaned, timed out
	// or detached on its last attempt), by the runner whose jobq.maintain swept it. Default:
	// none. See NewSentryReporter.
	Reporter Reporter

	// LogRef returns where the logs of an attempt of job are (a URL of the log store, a trace
	// id), kept with each failed attempt in jobq.job_attempts.log_ref (at most 1000
	// characters). Default: nil, for which the engine stores "workerId=<worker> jobId=<id>
	// attempt=<n>", the fields every log line of the attempt carries.
	LogRef func(job *jobq.Job) string

	// TracerProvider makes the span of each attempt, the child of the trace context the job
	// was enqueued under (runner/trace.go, docs/observability.md). Default: nil, for which the
	// standard OTEL_* variables configure an OTLP/HTTP exporter when they name an endpoint;
	// when they do not, no span is made (a no-op).
	TracerProvider trace.TracerProvider

	// Tasks are declared in jobq.tasks (Client.DefineTask) when Run starts, before the typed
	// tasks registered with Handle and HandleStore: tasks this service enqueues but another
	// process handles, or untyped tasks it handles with Runner.Handle (which declares nothing).
	// A typed task's Definition fits here too. Each name may appear once, and not also as a
	// typed task. Default: none.
	Tasks []jobq.TaskDefinition
}

// How a Runner is put together. The Runner owns the claim loop, the handler slots and the table
// of held leases (held, ahead and active, under mu). Every other part is a component that takes
// only what it uses, never a *Runner (where the Runner serves one, as the heartbeater's leaseBook,
// it does so behind a narrow interface or a function value), so that each can be read and tested
// alone: the *_internal_test.go files test each through these dependencies, against a real
// database where it talks to one. New and Run wire them:
//
//	finisher           resultWriter (complete_jobs, fail_jobs, snooze_jobs), finishObserver,
//	                   backoff, logger
//	resultRecorder     forget and claimWanted hooks, resultMetrics, Reporter, logger
//	listener           *pgx.ConnConfig, wakeSignal, gauge, logger
//	walListener        *pgconn.Config, worker id, wakeSignal, rowQuerier, poll interval,
//	                   wakeupMetrics, logger
//	heartbeater        leaseRenewer (heartbeat_jobs), leaseBook (the Runner's lease table),
//	                   tuning, heartbeat interval, counter, logger
//	workerHeartbeater  workerEngine (register_worker, worker_heartbeat), worker info, running
//	                   count, tuning, settings sink, workerStatus, wakeSignal, gauge, logger
//	leader             leaderEngine (acquire_leadership, maintain), rowQuerier, worker id,
//	                   tuning, wakeSignal, leaderMetrics, logger
//	sweeper            sweepEngine (rescue_expired), tuning, whether the leader leads,
//	                   wakeSignal, the finisher's databaseAnswers, counter, logger
//	tuner              Config.PollInterval and Config.Lease, logger; it is the others' tuning
//	scheduleSync       scheduler (schedule), schedules, logger
//	schemaCheck        healthDB
//	metrics            metricsSource (counts, queueLagReader, rowQuerier, logger)
//	aheadControl       nothing

// Runner claims and runs jobs. Create it with New, register handlers with Handle (or the typed
// Handle functions), then call Run.
type Runner struct {
	cfg     Config
	pool    *pgxpool.Pool
	engine  *engine.Engine // the runner's calls, and a jobq.Client's
	log     *slog.Logger
	tracing *attemptTracing // the span of each attempt (trace.go)
	metrics *metrics

	wakerConn *pgconn.Config // the WAL wake-up's connection settings; nil in notify mode
	schema    schemaCheck    // readiness and start-up: the database answers, the schema fits

	handlers map[string]Handler
	served   []string              // the tasks of handlers, sorted: registered and passed to every claim (set by Run)
	tasks    []jobq.TaskDefinition // declared by Run: Config.Tasks, then the typed tasks
	declared map[string]bool       // names in tasks

	sched *scheduleSync // declares Config.Schedules at Run, after the tasks

	state       atomic.Int32
	id          atomic.Pointer[string] // the worker id now: Config.WorkerID, then a new one at each rejoin (rejoin.go)
	tasksLogged bool                   // "tasks declared" was logged; touched only by start

	tune   *tuner // the intervals in effect: Config, else the engine's settings
	worker workerStatus

	mu      sync.Mutex
	held    map[string]*runningJob // by lease token: running handlers, jobs claimed ahead, results not yet written
	active  int                    // handlers running
	ahead   []*runningJob          // claimed ahead of a free slot, oldest first
	closed  bool                   // no job starts any more: the claim loop ended
	rejoins int                    // how many times the runner rejoined under a new id (rejoin.go)

	claimFailed bool            // the last claim failed: hand back unheld jobs first (claim loop only)
	positions   *claimPositions // where the next claim starts in each queue (claim loop only)

	aheadCtl   aheadControl // how many jobs the claim loop claims ahead of free slots
	lastReturn atomic.Int64 // when a handler last returned, as time since epoch (monotonic)
	lowWater   atomic.Int64 // a handler that leaves fewer jobs claimed ahead than this wakes the claim loop
	epoch      time.Time    // the runner's creation, the origin of lastReturn

	wake       *wakeSignal   // a claim is wanted now (notification, reconnect, rescue, resume)
	bell       *doorbell     // the doorbells of the runner's queues (notify mode; nil in WAL mode or with noDoorbell)
	noDoorbell bool          // tests: never hold a doorbell (the runners of releases before it)
	slotFreed  chan struct{} // a handler returned

	hardStop     chan struct{}
	hardStopOnce sync.Once

	heartbeatNow chan struct{} // a worker heartbeat is wanted now (jobq.detach_worker's NOTIFY)
	fenceWake    chan struct{} // the fence watcher should look again: a job started (fence.go)
	fenceLook    atomic.Int64  // when the fence watcher looks next, on the monotonic clock (mono); 0 while it looks (fence.go)
	cancels      *cancelChecks // jobs whose cancel was notified, to check with the database (cancel.go)
	confirming   atomic.Bool   // a detached runner confirms its jobs' continuation (continuation.go)

	workCtx    context.Context // parent of handler contexts; cancelled past the grace period
	cancelWork context.CancelCauseFunc
	jobs       sync.WaitGroup
	fin        *finisher
}

const (
	stateNew int32 = iota
	stateStarting
	stateRunning
	stateStopping
	stateStopped
)

// New checks cfg, applies the defaults and returns a Runner. It does not touch the database.
func New(cfg Config) (*Runner, error) {
	if cfg.Pool == nil {
		return nil, errors.New("runner: Config.Pool is required")
	}
	if cfg.Concurrency < 0 || cfg.Lease < 0 || cfg.HeartbeatInterval < 0 || cfg.PollInterval < 0 || cfg.ShutdownGrace < 0 ||
		cfg.MaxUnwrittenResults < 0 {
		return nil, errors.New("runner: Concurrency, Lease, HeartbeatInterval, PollInterval, ShutdownGrace and MaxUnwrittenResults must not be negative")
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.MaxUnwrittenResults == 0 {
		cfg.MaxUnwrittenResults = max(10*cfg.Concurrency, MinMaxUnwrittenResults)
	}
	if cfg.ClaimAhead == 0 {
		cfg.ClaimAhead = DefaultClaimAhead
	}
	if cfg.ShutdownGrace == 0 {
		cfg.ShutdownGrace = DefaultShutdownGrace
	}
	if cfg.RescanInterval == 0 {
		cfg.RescanInterval = DefaultRescanInterval
	}
	if len(cfg.Queues) == 0 {
		cfg.Queues = []string{DefaultQueue}
	}
	for _, q := range cfg.Queues {
		if q == "" {
			return nil, errors.New("runner: Config.Queues holds an empty queue name")
		}
	}
	cfg.Queues = append([]string(nil), cfg.Queues...)
	var wakerConn *pgconn.Config
	switch cfg.Wakeup {
	case "":
		cfg.Wakeup = WakeupNotify
	case WakeupNotify:
	case WakeupWAL:
		var err error
		if wakerConn, err = wakerConnConfig(cfg.Pool, cfg.WakeupURL); err != nil {
			return nil, fmt.Errorf("runner: Config.WakeupURL: %w", err)
		}
	default:
		return nil, fmt.Errorf("runner: Config.Wakeup %q is neither %q nor %q", cfg.Wakeup, WakeupNotify, WakeupWAL)
	}
	declared := make(map[string]bool, len(cfg.Tasks))
	for _, def := range cfg.Tasks {
		if def.Name == "" {
			return nil, errors.New("runner: Config.Tasks holds a task without a name")
		}
		if declared[def.Name] {
			return nil, fmt.Errorf("runner: Config.Tasks declares task %q twice", def.Name)
		}
		declared[def.Name] = true
	}
	cfg.Tasks = append([]jobq.TaskDefinition(nil), cfg.Tasks...)
	scheduled := make(map[string]bool, len(cfg.Schedules))
	for _, def := range cfg.Schedules {
		if def.Name == "" || def.Cron == "" || def.Task == "" {
			return nil, errors.New("runner: Config.Schedules holds a schedule without a name, a cron expression or a task")
		}
		if scheduled[def.Name] {
			return nil, fmt.Errorf("runner: Config.Schedules declares schedule %q twice", def.Name)
		}
		scheduled[def.Name] = true
	}
	cfg.Schedules = append([]jobq.ScheduleDefinition(nil), cfg.Schedules...)
	if cfg.Version == "" {
		cfg.Version = buildVersion()
	}
	if cfg.WorkerID == "" {
		host, _ := os.Hostname()
		if host == "" {
			host = "jobq"
		}
		cfg.WorkerID = fmt.Sprintf("%s-%d-%04x", host, os.Getpid(), rand.IntN(1<<16))
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	r := &Runner{
		cfg:       cfg,
		pool:      cfg.Pool,
		engine:    engine.New(cfg.Pool),
		log:       nil, // below: every line names the worker id of the moment
		wakerConn: wakerConn,
		schema:    schemaCheck{db: cfg.Pool},
		handlers:  make(map[string]Handler),
		tasks:     cfg.Tasks,
		declared:  declared,
		held:      make(map[string]*runningJob),
		epoch:     time.Now(),
		wake:      newWakeSignal(cfg.Queues),
		slotFreed: make(chan struct{}, 1),
		hardStop:  make(chan struct{}),

		heartbeatNow: make(chan struct{}, 1),
		fenceWake:    make(chan struct{}, 1),
		cancels:      newCancelChecks(),
		positions:    newClaimPositions(cfg.RescanInterval).withSettle(positionSettle),
	}
	r.id.Store(&cfg.WorkerID)
	r.log = slog.New(&workerIDHandler{inner: cfg.Logger.Handler(), id: r.WorkerID})
	r.tune = newTuner(cfg.PollInterval, cfg.Lease, r.log)
	r.sched = &scheduleSync{engine: r.engine, schedules: cfg.Schedules, log: r.log}
	r.metrics = newMetrics(metricsSource{held: r.heldCount, ahead: r.aheadCount, unwritten: r.unwrittenCount, lag: r.engine,
		queues: cfg.Queues, db: cfg.Pool, log: r.log})
	rec := &resultRecorder{forget: r.forget, claimWanted: r.claimWanted, metrics: r.metrics.results(),
		reporter: cfg.Reporter, log: r.log}
	r.fin = newFinisher(r.engine, rec, r.log, finishRetry)
	tracing, err := newAttemptTracing(cfg.TracerProvider)
	if err != nil {
		return nil, err
	}
	r.tracing = tracing
	return r, nil
}

// WorkerID returns the name this runner claims jobs under.
// A detached runner rejoins under a new id once its jobs are done (rejoin.go).
func (r *Runner) WorkerID() string { return *r.id.Load() }

// Client returns a jobq.Client on the runner's pool, for handlers that enqueue follow-up jobs.
func (r *Runner) Client() *jobq.Client { return r.engine.Client }

// Pool returns the runner's pool.
func (r *Runner) Pool() *pgxpool.Pool { return r.pool }

// Lease returns the lease the runner claims with now; zero before Run has started.
func (r *Runner) Lease() time.Duration {
	if t := r.tune.current(); t != nil {
		return t.lease
	}
	return 0
}

// PollInterval returns how often the runner claims without a notification now; zero before Run
// has started.
func (r *Runner) PollInterval() time.Duration {
	if t := r.tune.current(); t != nil {
		return t.poll
	}
	return 0
}

// Handle registers h for jobs of task name. It declares nothing: the task must be declared in
// jobq.tasks otherwise (jobq.define_task, Config.Tasks), and keeps that declaration. The runner
// claims the jobs of the tasks registered here and of no other task. It panics
// when name is empty, already registered, or the runner has started: those are programming
// errors.
func (r *Runner) Handle(name string, h Handler) {
	if name == "" || h == nil {
		panic("runner: Handle needs a task name and a handler")
	}
	if r.state.Load() != stateNew {
		panic("runner: Handle called after Run")
	}
	if _, dup := r.handlers[name]; dup {
		panic(fmt.Sprintf("runner: task %q is registered twice", name))
	}
	r.handlers[name] = h
}

// handleTyped registers h for the typed task def.Name and def for Run to declare.
func (r *Runner) handleTyped(def jobq.TaskDefinition, h Handler) {
	if def.Name != "" && r.declared[def.Name] {
		panic(fmt.Sprintf("runner: task %q is declared in Config.Tasks and as a typed task", def.Name))
	}
	r.Handle(def.Name, h)
	r.tasks = append(r.tasks, def)
	r.declared[def.Name] = true
}

// Tasks returns the declarations Run makes at start: Config.Tasks, then the typed tasks in the
// order they were registered.
func (r *Runner) Tasks() []jobq.TaskDefinition {
	return append([]jobq.TaskDefinition(nil), r.tasks...)
}

// DeclareTasks declares every task of Tasks in jobq.tasks now, each in its own statement
// (Client.DefineTask on the runner's pool); a declaration that changes nothing leaves its row as
// it was, updated_at included. Run calls it before it claims; a service that enqueues its own
// typed tasks before Run may call it first. An error the engine raises (such as
// jobq.ErrInvalidTaskName) names the task.
func (r *Runner) DeclareTasks(ctx context.Context) error {
	for _, def := range r.tasks {
		if err := r.engine.DefineTask(ctx, def); err != nil {
			return fmt.Errorf("runner: declare task %q: %w", def.Name, err)
		}
	}
	return nil
}

// HandleFunc registers f for jobs of task name; see Handle.
func (r *Runner) HandleFunc(name string, f func(ctx context.Context, job *jobq.Job) error) {
	r.Handle(name, HandlerFunc(f))
}

// StopAndCancel stops a running Run without the grace period: running handlers are cancelled
// at once (cause ErrShutdown), the leases of those that return within a second are handed back,
// and Run returns. Jobs whose handlers have not returned by then are rescued after their lease
// expires. Safe to call more than once, and before or after Run.
func (r *Runner) StopAndCancel() {
	r.hardStopOnce.Do(func() { close(r.hardStop) })
}

// Run works until ctx ends, then shuts down (see the package documentation) and returns nil
// after a clean drain. Before it claims anything it waits until the database answers and the
// jobq schema is at the version this binary expects, then declares its tasks (DeclareTasks) and
// schedules (DeclareSchedules) and registers itself in jobq.workers, retrying while the
// database is down and logging why it waits. It returns an ErrUnsafeRole error when the
// connected role is unsafe, and the engine's error when it refuses a declaration
// (jobq.ErrInvalidTaskName, jobq.ErrInvalidCron, jobq.ErrInvalidArgument, ...). When it
// returns after having started it deregisters the worker (jobq.deregister_worker), which also
// hands its leadership over at once. Run may be called once.
func (r *Runner) Run(ctx context.Context) error {
	if !r.state.CompareAndSwap(stateNew, stateStarting) {
		return errors.New("runner: Run called twice")
	}
	defer r.state.Store(stateStopped)
	// Handle is refused from here on: the tasks served are fixed for the runner's life.
	r.served = slices.Sorted(maps.Keys(r.handlers))
	if err := r.start(ctx); err != nil {
		var refused *startRefused
		if errors.As(err, &refused) {
			return refused.err
		}
		if ctx.Err() != nil {
			return nil // stopped while waiting for the database
		}
		return err
	}
	r.state.Store(stateRunning)
	tune := r.tune.current()
	if len(r.served) == 0 {
		r.log.Warn("no handler is registered: this runner claims no job")
	}
	r.log.Info("runner started", "queues", r.cfg.Queues, "tasks", r.served, "concurrency", r.cfg.Concurrency,
		"leaseMs", tune.lease.Milliseconds(), "pollIntervalMs", tune.poll.Milliseconds(),
		"workerHeartbeatMs", tune.workerHeartbeat.Milliseconds(), "leader", !r.cfg.NoLeader, "wakeup", string(r.cfg.Wakeup),
		"version", r.cfg.Version)
	defer r.deregister()

	r.workCtx, r.cancelWork = context.WithCancelCause(context.WithoutCancel(ctx))
	defer r.cancelWork(ErrShutdown)

	// Heartbeats, the leadership and the finisher outlive the claim loop: they serve the drain.
	bgCtx, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	var bg sync.WaitGroup
	hb := r.newHeartbeater()
	bg.Go(func() { hb.run(bgCtx) })
	wh := r.newWorkerHeartbeater()
	bg.Go(func() { wh.run(bgCtx) })
	sw := &sweeper{engine: r.engine, tune: r.tune, wake: r.wake, answered: r.fin.databaseAnswers, rescued: r.metrics.swept,
		reporter: r.cfg.Reporter, log: r.log, fence: func() { r.enforceFences() }}
	if !r.cfg.NoLeader {
		l := newLeader(r.engine, r.pool, r.WorkerID, r.tune, r.wake, r.metrics.leadership(), r.log)
		l.reporter = r.cfg.Reporter
		l.fence = func() { r.enforceFences() }
		sw.leading = l.leading
		bg.Go(func() { l.run(bgCtx) })
	}
	bg.Go(func() { sw.run(bgCtx) })
	bg.Go(func() { r.watchFences(bgCtx.Done()) })
	bg.Go(func() { r.checkCancels(bgCtx) })
	finDone := make(chan struct{})
	go func() { defer close(finDone); r.fin.run() }()

	loopCtx, stopLoops := context.WithCancel(ctx)
	var loops sync.WaitGroup
	if r.cfg.Wakeup == WakeupNotify && !r.noDoorbell {
		r.bell = newDoorbell(r.cfg.Queues)
	}
	w := r.newWaker()
	loops.Go(func() { w.run(loopCtx) })
	probe := &passedOverProbe{engine: r.engine, queues: r.cfg.Queues, tasks: r.served, every: r.cfg.RescanInterval, positions: r.positions,
		wake: r.notify, rescans: r.metrics.rescans, log: r.log}
	loops.Go(func() { probe.run(loopCtx) })

	r.claimLoop(loopCtx, r.hardStop)
	r.state.Store(stateStopping)
	stopLoops()
	loops.Wait()

	err := r.drain(ctx)

	// Write what the handlers left, then stop renewing.
	r.fin.close(r.finishDeadline())
	<-finDone
	if err := r.tracing.close(5 * time.Second); err != nil {
		r.log.Warn("exporting the last spans failed", "error", err.Error())
	}
	stopBackground()
	bg.Wait()
	if n := r.heldCount(); n > 0 && err == nil {
		err = fmt.Errorf("runner: stopped with %d job result(s) not written; their jobs run again after the lease expires", n)
	}
	r.log.Info("runner stopped", "clean", err == nil)
	return err
}

// start waits until the runner may claim: a safe role, a visible schema at the expected
// version, and the lease known.
func (r *Runner) start(ctx context.Context) error {
	wait := 100 * time.Millisecond
	var lastLogged string
	for {
		err := r.checkStart(ctx)
		if err == nil {
			return nil
		}
		var refused *startRefused
		if errors.As(err, &refused) {
			r.log.Error("refusing to start", "code", refused.code, "error", err.Error())
			return err
		}
		if msg := err.Error(); msg != lastLogged {
			r.log.Warn("waiting for the database before claiming", "error", msg)
			lastLogged = msg
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-r.hardStop:
			return ErrShutdown
		case <-time.After(jitter(wait)):
		}
		wait = min(2*wait, startRetryMax)
	}
}

func (r *Runner) checkStart(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, dbCallTimeout)
	defer cancel()
	if err := CheckRole(cctx, r.pool); err != nil {
		if errors.Is(err, ErrUnsafeRole) {
			return &startRefused{code: ErrUnsafeRole.Code, err: err}
		}
		return err
	}
	if err := r.schema.checkSchema(cctx); err != nil {
		return err
	}
	if err := r.DeclareTasks(cctx); err != nil {
		// The engine refusing a declaration will refuse it again: a programming error, not an
		// outage.
		var je *jobq.Error
		if errors.As(err, &je) && je.SQLState != "" {
			return &startRefused{code: je.Code, err: err}
		}
		return err
	}
	if len(r.tasks) > 0 && !r.tasksLogged {
		names := make([]string, len(r.tasks))
		for i, def := range r.tasks {
			names[i] = def.Name
		}
		r.log.Info("tasks declared", "tasks", names)
		r.tasksLogged = true
	}
	if err := r.sched.declare(cctx); err != nil {
		var je *jobq.Error
		if errors.As(err, &je) && je.SQLState != "" {
			return &startRefused{code: je.Code, err: err}
		}
		return err
	}
	settings, err := r.engine.RegisterWorker(cctx, r.workerInfo())
	if err != nil {
		var je *jobq.Error
		if errors.As(err, &je) && je.SQLState != "" {
			return &startRefused{code: je.Code, err: err}
		}
		return err
	}
	r.worker.setState(engine.WorkerActive, r.metrics.workerState)
	r.tune.apply(settings)
	return nil
}

// startRefused is a start-up check that failed for good: Run returns err without retrying.
type startRefused struct {
	code string
	err  error
}

func (e *startRefused) Error() string { return e.err.Error() }
func (e *startRefused) Unwrap() error { return e.err }

func (r *Runner) heartbeatInterval() time.Duration {
	if r.cfg.HeartbeatInterval > 0 {
		return r.cfg.HeartbeatInterval
	}
	return max(r.Lease()/3, 10*time.Millisecond)
}

func (r *Runner) finishDeadline() time.Duration {
	select {
	case <-r.hardStop:
		return hardStopWait
	default:
		return finishDrainLimit
	}
}

// notify asks the claim loop to claim now; it never blocks.
func (r *Runner) notify() { r.wake.notify() }

// claimLoop claims whenever it is woken, polled, or a handler leaves few jobs claimed ahead
// while more may be due, until ctx ends or a hard stop. It claims nothing while the engine says
// this worker is draining or detached, and hands back what it claimed ahead. A change of the
// poll interval re-arms the poll timer with the new one.
func (r *Runner) claimLoop(ctx context.Context, hardStop <-chan struct{}) {
	defer r.closeAhead()
	lastPoll := time.Now()
	poll := time.NewTimer(r.PollInterval())
	defer poll.Stop()
	errs := newErrorLog(r.log, "claim failed")
	want := true
	// Without a doorbell the retry timer never fires and no answer comes.
	var bell *bellState
	var answers <-chan doorbellAnswer
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	if r.bell != nil {
		bell = newBellState(r.bell)
		answers, retry = r.bell.answers, bell.retry
	}
	defer retry.Stop()
	for {
		// A handler whose lease may end is stopped before anything else is done (fence.go).
		r.enforceFences()
		if ctx.Err() == nil && !r.worker.mayClaim() {
			r.handBackAhead("the worker is no longer active", 0)
		} else if ctx.Err() == nil {
			// Jobs that waited too long for a slot go back to the queue, where another runner
			// may take them: a handler that runs long must not hoard the jobs behind it.
			r.handBackAhead("claimed ahead, no handler slot freed in time", r.maxWaitAhead())
			if want {
				var idle, short bool
				want, idle, short = r.claim(errs)
				if idle && r.cfg.Once && r.heldCount() == 0 {
					r.log.Info("queues drained: stopping (once)")
					return
				}
				switch {
				case bell == nil:
				case short:
					bell.short() // about to wait: hold the doorbells, unless held and quiet since
				case want:
					bell.full() // claims again by itself: no need to be rung
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-hardStop:
			return
		case <-r.wake.C():
			want = true
		case <-poll.C:
			want = true
			lastPoll = time.Now()
			poll.Reset(r.PollInterval())
		case <-r.tune.tuned():
			// The next poll is due one new interval after the last one (at once when that passed).
			poll.Reset(time.Until(lastPoll.Add(r.PollInterval())))
		case <-r.slotFreed:
			// A runner that stops when drained asks again as each handler returns.
			want = want || r.cfg.Once
		case a := <-answers:
			// Doorbells held and no enqueue in flight: one more claim sees every job that did not
			// ring. Otherwise the retry timer claims again soon and asks again.
			if bell.answered(a) {
				want = true
			}
		case <-retry.C:
			want = true
		}
	}
}

// claim claims jobs for the free handler slots and, as aheadControl decides, ahead of them,
// and starts what it can. It reports whether more jobs may be due (the claim got every job it
// asked for), whether it found none due (idle: the claim ran and returned nothing), and whether
// the claim ran and got fewer jobs than it asked for (short: the runner waits to be woken).
func (r *Runner) claim(errs *errorLog) (more, idle, short bool) {
	sinceReturn := time.Since(r.epoch) - time.Duration(r.lastReturn.Load())
	ahead := r.aheadCtl.ahead(sinceReturn, r.cfg.ClaimAhead, r.cfg.Concurrency)
	r.mu.Lock()
	free := r.cfg.Concurrency - r.active
	n := min(free+ahead-len(r.ahead), maxClaimBatch)
	unwritten := len(r.held) - r.active - len(r.ahead)
	r.mu.Unlock()
	r.lowWater.Store(int64(ahead))
	if n > 0 && unwritten >= r.cfg.MaxUnwrittenResults {
		r.metrics.heldBack.Inc()
	}
	if len(r.served) == 0 {
		// No handler: every job it claimed would fail as an unknown task. It claims nothing, and
		// its jobs show as not served while no other worker serves them.
		return false, true, false
	}
	if n <= 0 || unwritten >= r.cfg.MaxUnwrittenResults {
		// Nothing is needed now, or results wait to be written (a slow database slows the
		// claims): claim again when a slot frees, few jobs are left ahead or results are written.
		return true, false, false
	}
	lease := r.Lease()
	// A claim is not cut short by a shutdown: jobs it took are run (and drained) like any other.
	ctx, cancel := context.WithTimeout(context.Background(), dbCallTimeout)
	defer cancel()
	if r.claimFailed && !r.handBackUnheld(ctx, errs) {
		return false, false, false
	}
	after := r.positions.next()
	// The tasks this runner has handlers for: the engine claims no job of another task, which
	// stays queued for a worker that serves it. The lease of each job claimed is confirmed from
	// the instant the claim is sent (fence.go).
	sent := time.Now()
	jobs, err := r.engine.ClaimAfter(ctx, r.WorkerID(), r.cfg.Queues, r.served, n, lease, after)
	if err != nil {
		// The claim may have committed although its answer was lost: the next claim first hands
		// back what the engine records under this worker beyond the leases it holds.
		r.claimFailed = true
		errs.failed(err)
		return false, false, false
	}
	errs.ok()
	r.fin.databaseAnswers()
	r.positions.claimed(jobs)
	if after != nil && len(jobs) < n && r.cfg.Once {
		// Only a claim from the head shows that nothing is due: the runner stops on its answer.
		r.positions.rescan()
		more = true
	}
	r.aheadCtl.claimed(len(jobs) == n)
	for i := range jobs {
		r.startJob(&jobs[i], lease, sent)
	}
	return more || len(jobs) == n, !more && len(jobs) == 0, !more && len(jobs) < n
}

// handBackUnheld runs before the first claim after a failed one, on the claim loop (so no claim
// of this runner is in flight): the failed claim may have committed and lost its answer, leaving
// jobs running under this worker with tokens it never saw. jobq.hand_back_unheld returns them to
// the queue at once, rather than after their lease. It reports whether the claim may go on.
func (r *Runner) handBackUnheld(ctx context.Context, errs *errorLog) bool {
	r.mu.Lock()
	tokens := make([]string, 0, len(r.held))
	for token := range r.held {
		tokens = append(tokens, token)
	}
	r.mu.Unlock()
	if len(tokens) > maxHandBackTokens {
		// More leases than one call takes: leave the lost claim's jobs to their lease's expiry.
		r.claimFailed = false
		r.log.Warn("cannot hand back jobs of a lost claim answer: too many leases held", "leases", len(tokens))
		return true
	}
	back, err := r.engine.HandBackUnheld(ctx, r.WorkerID(), tokens)
	if errors.Is(err, jobq.ErrUnknownWorker) {
		// Not registered (any more): the engine cannot tell its claims apart, so the leases'
		// expiry and the sweep take care of them; claiming goes on.
		r.claimFailed = false
		r.log.Warn("cannot hand back jobs of a lost claim answer: the worker is not registered", "error", err.Error())
		return true
	}
	if err != nil {
		errs.failed(err)
		return false
	}
	r.claimFailed = false
	if len(back) > 0 {
		r.metrics.unheld.Add(float64(len(back)))
		ids := make([]int64, len(back))
		for i, b := range back {
			ids[i] = b.JobID
		}
		r.log.Warn("jobs handed back: a claim committed but its answer was lost", "jobs", len(back), "jobIds", ids)
	}
	return true
}

// startJob registers the lease, then runs the handler in its own goroutine when a slot is
// free, or keeps the job claimed ahead until one is.
func (r *Runner) startJob(job *jobq.Job, lease time.Duration, sent time.Time) {
	ctx, cancel := context.WithCancelCause(r.workCtx)
	rj := &runningJob{job: job, handler: r.handlers[job.Task], ctx: ctx, cancel: cancel, lease: lease, claimed: time.Now()}
	// The claim set lease_expires_at = now() + lease, now() being read after sent.
	valid := lease
	if !job.LeaseExpiresAt.IsZero() && !job.ClaimedAt.IsZero() {
		valid = min(valid, job.LeaseExpiresAt.Sub(job.ClaimedAt))
	}
	r.confirmLease(rj, sent, valid)
	defer r.fenceStarted(rj)
	rj.notes.db = r.engine
	r.metrics.claimed.WithLabelValues(job.Task).Inc()
	r.metrics.waitTime.WithLabelValues(job.Queue).Observe(max(job.ClaimedAt.Sub(job.RunAt), 0).Seconds())
	if r.log.Enabled(ctx, slog.LevelInfo) {
		// Pickup lag from the database's clock: claimed_at - run_at.
		r.log.Info("job claimed", append(jobAttrs(job), "queue", job.Queue, "lagMs", ms(job.ClaimedAt.Sub(job.RunAt)))...)
	}
	r.mu.Lock()
	r.held[job.LeaseToken] = rj
	if r.active >= r.cfg.Concurrency {
		r.ahead = append(r.ahead, rj)
		r.mu.Unlock()
		return
	}
	rj.running = true
	r.active++
	r.mu.Unlock()
	r.jobs.Go(func() { r.runJobs(rj) })
}

// runJobs runs rj's handler, then, while jobs are claimed ahead, the next ones on the same
// goroutine.
func (r *Runner) runJobs(rj *runningJob) {
	for rj != nil {
		d, err := r.runJob(rj)
		rj = r.handlerReturned(rj, err, d)
	}
}

// runJob runs one handler under the job's timeout and reports its duration and error.
func (r *Runner) runJob(rj *runningJob) (time.Duration, error) {
	defer rj.cancel(nil)
	job, h := rj.job, rj.handler
	rj.started = time.Now()
	if h == nil {
		err := WithCode(fmt.Errorf("%s: no handler is registered for task %q on worker %s",
			ErrUnknownTask.Code, job.Task, r.WorkerID()), ErrUnknownTask.Code)
		return time.Since(rj.started), err
	}
	runCtx := context.WithValue(rj.ctx, runningJobKey{}, rj)
	var timeout time.Duration
	if job.DeadlineAt != nil {
		// The job's timeout from the database's own timestamps: deadline_at and
		// lease_expires_at were both set from now() by the claim.
		timeout = job.DeadlineAt.Sub(job.LeaseExpiresAt.Add(-rj.lease))
		var stop context.CancelFunc
		runCtx, stop = context.WithTimeoutCause(runCtx, timeout, ErrJobTimeout)
		defer stop()
	}
	runCtx, endSpan := r.tracing.start(runCtx, job)
	err := r.callHandler(runCtx, h, job)
	endSpan(err)
	if err != nil && errors.Is(context.Cause(runCtx), ErrJobTimeout) && !errors.Is(context.Cause(rj.ctx), ErrDetached) {
		err = &timedOut{after: timeout, err: err}
	}
	return time.Since(rj.started), err
}

// nextAhead takes the oldest job claimed ahead for the slot the caller frees, or returns nil
// (and frees the slot) when there is none or no job may start (the claim loop ended, or the
// worker is draining or detached: the claim loop hands those jobs back; a detached worker's
// jobs claimed ahead were never confirmed to go on). Jobs whose lease a heartbeat
// found lost are dropped. It wakes the claim loop when few jobs are left claimed ahead.
// Called with r.mu held.
func (r *Runner) nextAhead() *runningJob {
	for len(r.ahead) > 0 && !r.closed && r.worker.mayClaim() {
		rj := r.ahead[0]
		r.ahead[0] = nil
		r.ahead = r.ahead[1:]
		if rj.lost {
			delete(r.held, rj.job.LeaseToken)
			continue
		}
		rj.running = true
		return rj
	}
	r.active--
	return nil
}

// maxWaitAhead is how long a job claimed ahead may wait for a free slot before the claim loop
// hands it back: ten times Config.ClaimAhead, at least a second.
func (r *Runner) maxWaitAhead() time.Duration {
	return max(10*r.cfg.ClaimAhead, time.Second)
}

// handBackAhead returns the jobs claimed ahead that have waited at least olderThan (all of them
// when zero) to the queue without using their attempts.
func (r *Runner) handBackAhead(why string, olderThan time.Duration) {
	r.mu.Lock()
	n := 0
	for n < len(r.ahead) && time.Since(r.ahead[n].claimed) >= olderThan {
		n++
	}
	back := r.ahead[:n:n]
	r.ahead = r.ahead[n:]
	for _, rj := range back {
		rj.finishing = true
	}
	r.mu.Unlock()
	if len(back) == 0 {
		return
	}
	r.log.Info("handing back jobs claimed ahead", "jobs", len(back), "reason", why)
	for _, rj := range back {
		if rj.lost {
			r.forget(rj)
			continue
		}
		r.fin.submit(finishItem{rj: rj, kind: finishSnooze, delay: 0, handBack: why})
	}
}

// closeAhead stops jobs claimed ahead from starting and hands them back: the claim loop ended.
func (r *Runner) closeAhead() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.handBackAhead("shutting down", 0)
}

// callHandler runs h, turning a panic into an error that carries the stack.
func (r *Runner) callHandler(ctx context.Context, h Handler, job *jobq.Job) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n\n%s", p, debug.Stack())
		}
	}()
	return h.Work(ctx, job)
}

// handlerReturned decides what to write for a finished handler, hands it to the finisher, and
// returns the job claimed ahead that takes over the slot (nil when none).
func (r *Runner) handlerReturned(rj *runningJob, err error, d time.Duration) *runningJob {
	r.lastReturn.Store(int64(time.Since(r.epoch)))
	r.mu.Lock()
	rj.finishing = true
	if !rj.lost && !rj.completedInTx.Load() && r.fenceDue(rj, r.mono(time.Now())) {
		// Returned past its fence (the runner was paused, and a command's reaper stopped it, or
		// the handler ignored its context): its lease may be gone, so it is treated as fenced.
		rj.lost, rj.fenced = true, true
	}
	lost := rj.lost
	next := r.nextAhead()
	left := len(r.ahead)
	r.mu.Unlock()
	if next == nil {
		r.aheadCtl.starved.Store(true)
	}
	if next == nil || int64(left) < r.lowWater.Load() {
		r.claimWanted()
	}
	r.report(rj, err, d, lost)
	return next
}

// report logs and hands a returned handler's result to the finisher.
func (r *Runner) report(rj *runningJob, err error, d time.Duration, lost bool) {
	job := rj.job
	r.metrics.runTime.WithLabelValues(job.Task).Observe(d.Seconds())

	v := VerdictOf(job, err)
	switch {
	case lost:
		// The lease is gone (or may be gone: fenced): any write would be refused, and someone
		// else owns the job now or soon.
		r.forget(rj)
		msg := "handler stopped after its lease was lost; result discarded"
		switch {
		case rj.fenced:
			msg = "handler stopped before its lease could end (self-fencing); result discarded, the job's sweep records the attempt"
			// A command the reaper stopped at its fence time, before the runner's own stop,
			// exits with its signal rather than the runner's cause: the fence stopped it all the same.
			if err == nil {
				err = ErrLeaseUnconfirmed
			} else if !errors.Is(err, ErrLeaseUnconfirmed) {
				err = fmt.Errorf("%w: %w", ErrLeaseUnconfirmed, err)
			}
		case rj.canceled.Load():
			msg = "handler stopped: the job was canceled; result discarded"
		}
		r.log.Warn(msg, append(jobAttrs(job), "duration", ms(d), "error", errString(err))...)
	case err != nil && errors.Is(context.Cause(r.workCtx), ErrShutdown):
		// Cancelled by the shutdown: hand the job back without using an attempt.
		r.fin.submit(finishItem{rj: rj, kind: finishSnooze, delay: 0, shutdown: true, duration: d, err: err})
	case err == nil && rj.completedInTx.Load():
		// Completed in the handler's own transaction (CompleteTx): nothing is left to write.
		r.fin.submit(finishItem{rj: rj, kind: finishCommitted, duration: d})
	case v.Kind == VerdictComplete:
		r.fin.submit(finishItem{rj: rj, kind: finishComplete, duration: d})
	case v.Kind == VerdictSnooze:
		r.fin.submit(finishItem{rj: rj, kind: finishSnooze, delay: v.Delay, duration: d})
	default:
		f := v.Failure
		if r.cfg.LogRef != nil {
			f.LogRef = r.cfg.LogRef(job)
		}
		r.log.Warn("job failed", append(jobAttrs(job), "duration", ms(d), "error", firstLine(err.Error()),
			"errorCode", f.ErrorCode, "retryable", !f.Fatal)...)
		r.fin.submit(finishItem{rj: rj, kind: finishFail, failure: f, duration: d, err: err})
	}
}

// claimWanted wakes the claim loop if it waits for capacity (a free slot, few jobs left ahead,
// results written); it never blocks.
func (r *Runner) claimWanted() {
	select {
	case r.slotFreed <- struct{}{}:
	default:
	}
}

// forget drops a held lease. The last lease of a detached runner gone, its worker heartbeat is
// wanted now: it rejoins under a new id (rejoin.go).
func (r *Runner) forget(rj *runningJob) {
	r.mu.Lock()
	delete(r.held, rj.job.LeaseToken)
	last := len(r.held) == 0
	r.mu.Unlock()
	if last && r.worker.isDetached() {
		select {
		case r.heartbeatNow <- struct{}{}:
		default:
		}
	}
}

func (r *Runner) aheadCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.ahead)
}

// unwrittenCount returns how many results of returned handlers wait to be written.
func (r *Runner) unwrittenCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.held) - r.active - len(r.ahead)
}

func (r *Runner) heldCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.held)
}

// drain waits for running handlers: up to ShutdownGrace, then it cancels them (their jobs are
// handed back as they return). A hard stop skips the wait.
func (r *Runner) drain(ctx context.Context) error {
	done := make(chan struct{})
	go func() { r.jobs.Wait(); close(done) }()
	r.mu.Lock()
	running := r.active
	r.mu.Unlock()
	if running > 0 {
		r.log.Info("shutting down: claiming stopped, waiting for running jobs", "running", running,
			"graceMs", r.cfg.ShutdownGrace.Milliseconds())
	}
	grace := time.NewTimer(r.cfg.ShutdownGrace)
	defer grace.Stop()
	select {
	case <-done:
		return nil
	case <-grace.C:
		r.mu.Lock()
		running = r.active
		r.mu.Unlock()
		r.log.Warn("shutdown grace period over: cancelling running jobs and handing them back", "running", running)
	case <-r.hardStop:
		r.log.Warn("stopping now: cancelling running jobs")
	}
	r.cancelWork(ErrShutdown)
	select {
	case <-done:
	case <-r.hardStop:
		select {
		case <-done:
		case <-time.After(hardStopWait):
			return errors.New("runner: stopped before every handler returned")
		}
	}
	select {
	case <-r.hardStop:
		return errors.New("runner: stopped without a clean drain")
	default:
		return nil
	}
}

// The wiring of the components: what each is given of the Runner.

// newHeartbeater returns the runner's lease heartbeat.
func (r *Runner) newHeartbeater() *heartbeater {
	return &heartbeater{engine: r.engine, book: r, workerID: r.WorkerID, tune: r.tune,
		interval: r.heartbeatInterval, leaseLost: r.metrics.leaseLost, log: r.log}
}

// renewable returns the held leases not known to be lost: part of the Runner's leaseBook.
func (r *Runner) renewable() []jobq.Lease {
	// A lease whose fence is due is not renewed: its handler is stopped first (fence.go).
	r.enforceFences()
	r.mu.Lock()
	defer r.mu.Unlock()
	leases := make([]jobq.Lease, 0, len(r.held))
	for _, rj := range r.held {
		if !rj.lost {
			leases = append(leases, rj.job.Lease())
		}
	}
	return leases
}

// markLost marks lost the held leases a heartbeat did not renew: the rest of the Runner's
// leaseBook.
func (r *Runner) markLost(leases []jobq.Lease, renewed map[int64]time.Time) []lostLease {
	var lost []lostLease
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range leases {
		if _, ok := renewed[l.JobID]; ok {
			continue
		}
		rj := r.held[l.Token]
		// A handler that already returned is the finisher's: its write tells what happened. A
		// job its handler completed in its own transaction is gone once that commits.
		if rj == nil || rj.finishing || rj.lost || rj.completedInTx.Load() {
			continue
		}
		rj.lost = true
		lost = append(lost, lostLease{rj: rj, started: rj.running})
	}
	return lost
}

// newWorkerHeartbeater returns the runner's worker heartbeat.
func (r *Runner) newWorkerHeartbeater() *workerHeartbeater {
	return &workerHeartbeater{engine: r.engine, info: r.workerInfo, running: r.activeCount, tune: r.tune,
		apply: r.tune.apply, status: &r.worker, wake: r.wake, gauge: r.metrics.workerState, log: r.log,
		now: r.heartbeatNow, detached: func() { go r.continueDetached() }, rejoin: r.rejoin,
		fence: func() { r.enforceFences() }}
}

// activeCount returns the number of handlers running now.
func (r *Runner) activeCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.active
}

// newWaker returns the waker of the runner's wake-up mode.
func (r *Runner) newWaker() waker {
	if r.cfg.Wakeup == WakeupWAL {
		return newWALListener(r.wakerConn, r.WorkerID(), r.wake, r.pool, r.PollInterval, r.metrics.wakeup(), r.log)
	}
	l := newListener(r.pool.Config().ConnConfig, r.wake, r.metrics.listenerUp, r.log)
	l.control = r.onControl
	// The doorbells went with a lost connection: enqueues meanwhile may not have notified, and a
	// job that committed late may sit before the claim positions.
	l.reconnected = r.positions.rescan
	l.bell = r.bell
	return l
}
