// Package worker runs a jobq runner as an operating-system process: flags and their
// environment variables, the worker_runtime pool, Sentry, the /healthz, /readyz and /metrics
// server, JSON logs, and the signals of a graceful shutdown. A program supplies its tasks and
// schedules; everything else is the same for every worker binary, so `jobq worker` and an
// application's own worker (see examples/salon) behave alike:
//
//	func main() {
//		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//		code := worker.Main(ctx, worker.Program{
//			Name:  "my-worker",
//			Setup: func(ctx context.Context, r *runner.Runner, env worker.Env) error {
//				runner.Handle(r, sendEmail, handleSendEmail)
//				return nil
//			},
//		}, os.Args[1:], os.Stdout, os.Stderr)
//		stop()
//		os.Exit(code)
//	}
//
// With --config, the worker also runs the command and HTTP handlers its configuration file names
// (docs/worker-config.md): at start it asks jobq.served_tasks which declared tasks use those
// handler names and registers a handler for each.
//
// Exit status: 0 after a clean drain, 1 on an error (WORKER.UNSAFE_ROLE among them), 2 on bad
// flags or a bad configuration file.
package worker

import (
	"context"
	"errors"
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

	"github.com/alecthomas/kong"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// Program is what a worker binary adds to the common process: its name, its help text, its own
// flags and its tasks.
type Program struct {
	// Name prefixes error messages ("jobq worker: ...") and is the pool's application_name
	// with spaces turned into dashes. Required.
	Name string
	// Usage is printed by -h before the flags: what the worker runs. Optional.
	Usage string
	// Flags is a pointer to a struct of the program's own flags, as kong fields (name, help,
	// default, env tags: the environment variable of each), parsed beside Flags. Optional.
	Flags any
	// Vars are the kong variables the tags of Flags use (default:"${name}"). Optional.
	Vars kong.Vars
	// Configure adjusts the runner's configuration before the runner is made: Tasks to declare,
	// Schedules, Reporter... It may return a UsageError for a bad flag value. Optional.
	Configure func(cfg *runner.Config, env Env) error
	// Setup registers the handlers on the runner before it runs. Optional (a worker without
	// handlers claims nothing).
	Setup func(ctx context.Context, r *runner.Runner, env Env) error
	// BuiltinTasks are the tasks Setup registers. No [handlers.<name>] table of the --config file
	// may take one of these names, and each keeps Setup's handler whatever handler name
	// jobq.tasks gives it. Optional; a file handler for a task Setup registered but did not list
	// here stops the worker at start.
	BuiltinTasks []string
}

// Env is what Configure and Setup get: the parsed flags and the process's logger.
type Env struct {
	Flags *Flags
	Log   *slog.Logger
}

// UsageError is a bad flag or argument: Main prints it and exits with status 2.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Main runs the worker process described by prog with the command-line args (without the
// program name) and returns its exit status. The first SIGINT or SIGTERM, or the end of ctx,
// starts the graceful shutdown (claims stop; running jobs get Flags.ShutdownGrace to finish,
// then are handed back); a second signal stops at once.
func Main(ctx context.Context, prog Program, args []string, stdout, stderr io.Writer) int {
	// Count every SIGINT/SIGTERM from here on: the first ends ctx (the caller's NotifyContext)
	// and starts the graceful shutdown, the second stops at once.
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)

	f, help, err := parse(prog, args, stdout, stderr)
	if help {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog.Name, err)
		fmt.Fprintf(stderr, "Run \"%s --help\" for its flags.\n", prog.Name)
		return 2
	}
	return run(ctx, prog, f, signals, stdout, stderr)
}

// Run runs the worker process described by prog with flags parsed by the caller's kong tree (a
// command that embeds Flags and prog.Flags, with worker.Vars, and a *cliconf.Resolver from
// NewResolver given to kong.Resolvers and kong.Bind), as Main does after parsing. jobq worker is
// one.
func Run(ctx context.Context, prog Program, f *Flags, stdout, stderr io.Writer) int {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	return run(ctx, prog, f, signals, stdout, stderr)
}

func run(ctx context.Context, prog Program, f *Flags, signals <-chan os.Signal, stdout, stderr io.Writer) int {
	problems := f.Problems(prog)
	if f.Check {
		var err error
		if len(problems) > 0 {
			err = &ConfigError{Problems: problems}
		}
		return check(ctx, prog, f, err, stdout)
	}
	if len(problems) > 0 {
		for _, line := range problems {
			fmt.Fprintf(stderr, "%s: %s\n", prog.Name, line)
		}
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.LogLevel)); err != nil {
		fmt.Fprintf(stderr, "%s: --log-level: %v\n", prog.Name, err)
		return 2
	}
	log := slog.New(slog.NewJSONHandler(stdout, &slog.HandlerOptions{Level: level}))
	env := Env{Flags: f, Log: log}

	poolCfg, err := pgxpool.ParseConfig(f.DatabaseURL)
	if err != nil {
		fmt.Fprintf(stderr, "%s: --database-url: %v\n", prog.Name, err)
		return 2
	}
	poolCfg.MaxConns = int32(f.Concurrency) + 4
	poolCfg.ConnConfig.RuntimeParams["application_name"] = strings.ReplaceAll(prog.Name, " ", "-")
	pool, err := pgxpool.NewWithConfig(context.WithoutCancel(ctx), poolCfg)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog.Name, err)
		return 1
	}
	defer pool.Close()

	cfg := runner.Config{
		Pool:                pool,
		WorkerID:            f.WorkerID,
		Queues:              f.QueueList(),
		Concurrency:         f.Concurrency,
		Lease:               f.Lease,
		ClaimAhead:          f.ClaimAhead,
		RescanInterval:      f.RescanInterval,
		HeartbeatInterval:   f.HeartbeatInterval,
		PollInterval:        f.PollInterval,
		ShutdownGrace:       f.ShutdownGrace,
		Logger:              log,
		NoLeader:            f.NoLeader,
		MaxUnwrittenResults: f.MaxUnwritten,
		Once:                f.Once,
		Wakeup:              runner.WakeupMode(f.Wakeup),
		WakeupURL:           f.WakeupDatabaseURL,
	}
	if f.SentryDSN != "" {
		host, _ := os.Hostname()
		reporter, err := runner.NewSentryReporter(runner.SentryOptions{
			DSN: f.SentryDSN, Environment: os.Getenv("SENTRY_ENVIRONMENT"), Release: os.Getenv("SENTRY_RELEASE"), ServerName: host,
		})
		if err != nil {
			fmt.Fprintf(stderr, "%s: --sentry-dsn: %v\n", prog.Name, err)
			return 2
		}
		cfg.Reporter = reporter
		defer reporter.Flush(5 * time.Second)
	}
	if prog.Configure != nil {
		if err := prog.Configure(&cfg, env); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", prog.Name, err)
			var usage UsageError
			if errors.As(err, &usage) {
				return 2
			}
			return 1
		}
	}
	r, err := runner.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog.Name, err)
		return 2
	}
	if prog.Setup != nil {
		if err := prog.Setup(ctx, r, env); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", prog.Name, err)
			return 1
		}
	}
	if f.File != nil {
		if err := serveFile(ctx, r, f.File, prog.BuiltinTasks, log); err != nil {
			if ctx.Err() != nil {
				return 0 // stopped before it started
			}
			fmt.Fprintf(stderr, "%s: %v\n", prog.Name, err)
			return 1
		}
	}

	if f.HealthAddr != "" {
		stopServing, err := serveHealth(r, f.HealthAddr, log)
		if err != nil {
			fmt.Fprintf(stderr, "%s: --health-addr: %v\n", prog.Name, err)
			return 1
		}
		defer stopServing()
	}

	stopWatching := make(chan struct{})
	defer close(stopWatching)
	go watchSignals(ctx, r, signals, stopWatching, log)

	if err := r.Run(ctx); err != nil {
		var jerr *jobq.Error
		if errors.As(err, &jerr) && jerr.Hint != "" {
			fmt.Fprintf(stderr, "%s: %v\nhint: %s\n", prog.Name, err, jerr.Hint)
		} else {
			fmt.Fprintf(stderr, "%s: %v\n", prog.Name, err)
		}
		return 1
	}
	return 0
}

// serveHealth serves the runner's /healthz, /readyz and /metrics on addr until the returned
// function is called.
func serveHealth(r *runner.Runner, addr string, log *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: r.HTTPHandler(), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("health server stopped", "error", err.Error())
		}
	}()
	log.Info("serving /healthz, /readyz and /metrics", "addr", ln.Addr().String())
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}, nil
}

// watchSignals logs the first signal (ctx's end starts the graceful shutdown) and stops the
// runner at once on the second.
func watchSignals(ctx context.Context, r *runner.Runner, signals <-chan os.Signal, done <-chan struct{}, log *slog.Logger) {
	seen := 0
	if ctx.Err() != nil {
		seen = 1
	}
	for {
		select {
		case <-done:
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
}
