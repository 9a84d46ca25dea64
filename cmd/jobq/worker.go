package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

const workerUsage = `usage: jobq worker [flags]

Runs jobs as worker_runtime: LISTENs for new jobs (and polls), claims them, runs their handlers,
renews their leases and writes their results, all through the jobq SQL engine. Registers in
jobq.workers and heartbeats it: jobq.drain_worker stops its claims (held jobs finish),
jobq.resume_worker restarts them, jobq.detach_worker stops them for good; setting changes
(jobq.set_setting) apply at the next heartbeat. Unless --no-leader, competes for the leadership:
the leader runs jobq.maintain (cron slots, lost workers, rescue of expired leases, retention)
every maintain_interval, fenced by its epoch. Serves /healthz, /readyz and /metrics on
--health-addr. SIGTERM or SIGINT stops claiming and lets running jobs
finish for --shutdown-grace, then hands the rest back to the queue; a second signal stops at once.
Exit status: 0 after a clean drain, 1 on an error (WORKER.UNSAFE_ROLE among them), 2 on bad flags.

Built-in tasks, declared in jobq.tasks at start (system tasks, any JSON object as payload):
  ping   completes at once (smoke test)
  exec   runs --exec-command with /bin/sh -c, the payload as JSON on standard input and
         JOBQ_JOB_ID, JOBQ_TASK, JOBQ_QUEUE, JOBQ_ATTEMPT, JOBQ_MAX_ATTEMPTS, JOBQ_STORE_ID in its
         environment; exit status 0 completes the job, anything else fails the attempt with the
         tail of the output kept in last_error. The command's environment is the worker's less
         WORKER_DATABASE_URL, SENTRY_DSN, DATABASE_URL_MIGRATOR and DATABASE_URL_ADMIN. Without
         --exec-command the task is neither declared nor served (its jobs fail with
         JOB.UNKNOWN_TASK and retry).

Every flag can also be set by the environment variable named in its description; the flag wins.
`

// workerFlags are the settings of jobq worker.
type workerFlags struct {
	databaseURL       string
	concurrency       int
	queues            string
	lease             time.Duration
	pollInterval      time.Duration
	heartbeatInterval time.Duration
	shutdownGrace     time.Duration
	healthAddr        string
	sentryDSN         string
	execCommand       string
	execTimeout       time.Duration
	workerID          string
	logLevel          string
	noLeader          bool
}

func parseWorkerFlags(args []string, stderr io.Writer) (*workerFlags, error) {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, workerUsage)
		fs.PrintDefaults()
	}
	f := &workerFlags{}
	// Each flag's environment variable; applied after parsing to the flags not given, so -h
	// never prints a value from the environment (a database URL holds a password).
	env := map[string]string{}
	str := func(p *string, name, variable, def, usage string) {
		fs.StringVar(p, name, def, usage+" ($"+variable+")")
		env[name] = variable
	}
	dur := func(p *time.Duration, name, variable string, def time.Duration, usage string) {
		fs.DurationVar(p, name, def, usage+" ($"+variable+")")
		env[name] = variable
	}
	str(&f.databaseURL, "database-url", "WORKER_DATABASE_URL", "", "worker_runtime URL of the database; never the migrator's")
	fs.IntVar(&f.concurrency, "concurrency", runner.DefaultConcurrency, "most jobs run at once ($WORKER_CONCURRENCY)")
	env["concurrency"] = "WORKER_CONCURRENCY"
	str(&f.queues, "queues", "WORKER_QUEUES", runner.DefaultQueue, "comma-separated queues to serve, in priority order")
	dur(&f.lease, "lease", "WORKER_LEASE", 0, "lease per claim and heartbeat; 0 = the setting default_lease, 30s as shipped")
	dur(&f.pollInterval, "poll-interval", "WORKER_POLL_INTERVAL", 0, "how often to claim without a notification; 0 = the setting poll_interval, 1s as shipped")
	dur(&f.heartbeatInterval, "heartbeat-interval", "WORKER_HEARTBEAT_INTERVAL", 0, "how often to renew held leases; 0 = a third of the lease")
	dur(&f.shutdownGrace, "shutdown-grace", "WORKER_SHUTDOWN_GRACE", runner.DefaultShutdownGrace,
		"how long running jobs may finish after SIGTERM before they are handed back")
	str(&f.healthAddr, "health-addr", "WORKER_HEALTH_ADDR", ":8080", "address of /healthz, /readyz and /metrics; empty = do not serve")
	str(&f.sentryDSN, "sentry-dsn", "SENTRY_DSN", "", "Sentry DSN: one event per dead job; empty = off")
	str(&f.execCommand, "exec-command", "WORKER_EXEC_COMMAND", "", "shell command the exec task runs")
	dur(&f.execTimeout, "exec-timeout", "WORKER_EXEC_TIMEOUT", runner.DefaultExecTimeout, "longest run of one exec job")
	str(&f.workerID, "worker-id", "WORKER_ID", "", "name of this worker in locked_by; empty = host-pid-random")
	str(&f.logLevel, "log-level", "WORKER_LOG_LEVEL", "info", "debug, info, warn or error")
	fs.BoolVar(&f.noLeader, "no-leader", false, "never take the leadership, so never run jobq.maintain (cron slots, rescue of lost jobs, retention) ($WORKER_NO_LEADER)")
	env["no-leader"] = "WORKER_NO_LEADER"
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return nil, usageError{fmt.Sprintf("worker takes no arguments, got %q", fs.Args())}
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	for name, variable := range env {
		v, ok := os.LookupEnv(variable)
		if given[name] || !ok || (v == "" && name != "health-addr") {
			continue
		}
		if err := fs.Set(name, v); err != nil {
			return nil, usageError{fmt.Sprintf("%s=%q: %v", variable, v, err)}
		}
	}
	if f.databaseURL == "" {
		return nil, usageError{"worker needs --database-url or WORKER_DATABASE_URL (a worker_runtime URL)"}
	}
	if f.concurrency < 1 {
		return nil, usageError{"--concurrency must be at least 1"}
	}
	if f.lease < 0 || f.pollInterval < 0 || f.heartbeatInterval < 0 || f.shutdownGrace <= 0 || f.execTimeout <= 0 {
		return nil, usageError{"--lease, --poll-interval and --heartbeat-interval must not be negative; --shutdown-grace and --exec-timeout must be positive"}
	}
	return f, nil
}

func (f *workerFlags) queueList() []string {
	var qs []string
	for _, q := range strings.Split(f.queues, ",") {
		if q = strings.TrimSpace(q); q != "" {
			qs = append(qs, q)
		}
	}
	return qs
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	err := l.UnmarshalText([]byte(s))
	return l, err
}

// cmdWorker runs the job runner as a process and returns its exit status.
func cmdWorker(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// Count every SIGINT/SIGTERM from here on: the first ends ctx (main's NotifyContext) and
	// starts the graceful shutdown, the second stops at once.
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	seen := 0
	if ctx.Err() != nil {
		seen = 1
	}

	f, err := parseWorkerFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "jobq worker:", err)
		return 2
	}
	level, err := parseLevel(f.logLevel)
	if err != nil {
		fmt.Fprintln(stderr, "jobq worker: --log-level:", err)
		return 2
	}
	log := slog.New(slog.NewJSONHandler(stdout, &slog.HandlerOptions{Level: level}))

	poolCfg, err := pgxpool.ParseConfig(f.databaseURL)
	if err != nil {
		fmt.Fprintln(stderr, "jobq worker: --database-url:", err)
		return 2
	}
	poolCfg.MaxConns = int32(f.concurrency) + 4
	poolCfg.ConnConfig.RuntimeParams["application_name"] = "jobq-worker"
	pool, err := pgxpool.NewWithConfig(context.WithoutCancel(ctx), poolCfg)
	if err != nil {
		fmt.Fprintln(stderr, "jobq worker:", err)
		return 1
	}
	defer pool.Close()

	cfg := runner.Config{
		Pool:              pool,
		WorkerID:          f.workerID,
		Queues:            f.queueList(),
		Concurrency:       f.concurrency,
		Lease:             f.lease,
		HeartbeatInterval: f.heartbeatInterval,
		PollInterval:      f.pollInterval,
		ShutdownGrace:     f.shutdownGrace,
		Logger:            log,
		Tasks:             builtinTasks(f),
		NoLeader:          f.noLeader,
	}
	var reporter *runner.SentryReporter
	if f.sentryDSN != "" {
		host, _ := os.Hostname()
		reporter, err = runner.NewSentryReporter(runner.SentryOptions{
			DSN: f.sentryDSN, Environment: os.Getenv("SENTRY_ENVIRONMENT"), Release: os.Getenv("SENTRY_RELEASE"), ServerName: host,
		})
		if err != nil {
			fmt.Fprintln(stderr, "jobq worker: --sentry-dsn:", err)
			return 2
		}
		cfg.Reporter = reporter
		defer reporter.Flush(5 * time.Second)
	}
	r, err := runner.New(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "jobq worker:", err)
		return 2
	}
	registerBuiltins(r, f, log)

	if f.healthAddr != "" {
		ln, err := net.Listen("tcp", f.healthAddr)
		if err != nil {
			fmt.Fprintln(stderr, "jobq worker: --health-addr:", err)
			return 1
		}
		srv := &http.Server{Handler: r.HTTPHandler(), ReadHeaderTimeout: 5 * time.Second}
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				log.Error("health server stopped", "error", err.Error())
			}
		}()
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
		}()
		log.Info("serving /healthz, /readyz and /metrics", "addr", ln.Addr().String())
	}

	stopWatching := make(chan struct{})
	defer close(stopWatching)
	go func() {
		for {
			select {
			case <-stopWatching:
				return
			case s := <-signals:
				seen++
				if seen >= 2 {
					log.Warn("second signal: stopping now", "signal", s.String())
					r.StopAndCancel()
				} else {
					log.Info("signal: shutting down gracefully; send it again to stop now", "signal", s.String())
				}
			}
		}
	}()

	err = r.Run(ctx)
	if err != nil {
		var jerr *jobq.Error
		if errors.As(err, &jerr) && jerr.Hint != "" {
			fmt.Fprintf(stderr, "jobq worker: %v\nhint: %s\n", err, jerr.Hint)
		} else {
			fmt.Fprintln(stderr, "jobq worker:", err)
		}
		return 1
	}
	return 0
}

// builtinTasks are the declarations of the built-in tasks this worker serves: ping, and exec when
// a command is configured. Both are system tasks without a payload contract (any JSON object).
func builtinTasks(f *workerFlags) []jobq.TaskDefinition {
	defs := []jobq.TaskDefinition{{
		Name: "ping", Scope: jobq.ScopeSystem,
		Description: "jobq worker built-in: completes at once (smoke test).",
	}}
	if f.execCommand != "" {
		defs = append(defs, jobq.TaskDefinition{
			Name: "exec", Scope: jobq.ScopeSystem,
			Description: "jobq worker built-in: runs --exec-command with the payload as JSON on standard input.",
		})
	}
	return defs
}

// registerBuiltins registers ping and, when a command is configured, exec.
func registerBuiltins(r *runner.Runner, f *workerFlags, log *slog.Logger) {
	r.HandleFunc("ping", func(ctx context.Context, job *jobq.Job) error {
		log.Info("pong", "jobId", job.ID)
		return nil
	})
	if f.execCommand == "" {
		return
	}
	h, err := runner.Exec(runner.ExecConfig{
		Command: []string{"/bin/sh", "-c", f.execCommand},
		Timeout: f.execTimeout,
		Env:     execEnv(),
	})
	if err != nil {
		panic(err) // the command is not empty here
	}
	r.Handle("exec", h)
}

// execEnv is the worker's environment without its secrets: commands get no database URL or DSN
// they were not given on purpose.
func execEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "WORKER_DATABASE_URL", "SENTRY_DSN", "DATABASE_URL_MIGRATOR", "DATABASE_URL_ADMIN":
			continue
		}
		env = append(env, kv)
	}
	return env
}
