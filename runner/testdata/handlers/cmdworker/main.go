// Command cmdworker is a worker for the command handler tests of package runner: it serves task
// "cmd" with runner.Command running COMMAND through /bin/sh -c, as a Shell command or, with
// ARGV=true, as the program /bin/sh with its arguments (KILL_GRACE, a Go duration, is its
// KillGrace), with a 3-second lease and SHUTDOWN_GRACE (a Go duration, default 1 s) to drain.
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq/runner"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	fail := func(what string, err error) {
		log.Error(what, "error", err.Error())
		os.Exit(1)
	}
	pool, err := pgxpool.New(ctx, os.Getenv("WORKER_DATABASE_URL"))
	if err != nil {
		fail("pool", err)
	}
	defer pool.Close()
	duration := func(name string, def time.Duration) time.Duration {
		if v := os.Getenv(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				fail(name, err)
			}
			return d
		}
		return def
	}
	r, err := runner.New(runner.Config{Pool: pool, WorkerID: os.Getenv("WORKER_ID"), Concurrency: 4,
		Lease: 3 * time.Second, NoLeader: true, Logger: log, ShutdownGrace: duration("SHUTDOWN_GRACE", time.Second)})
	if err != nil {
		fail("runner", err)
	}
	cfg := runner.CommandConfig{Argv: []string{os.Getenv("COMMAND")}, Shell: true,
		InheritEnv: []string{"PATH", "OUT_DIR"}, KillGrace: duration("KILL_GRACE", 10*time.Second)}
	if os.Getenv("ARGV") == "true" { // the same script as a program's arguments, not a Shell command
		cfg.Argv, cfg.Shell = []string{"/bin/sh", "-c", os.Getenv("COMMAND")}, false
	}
	h, err := runner.Command(cfg)
	if err != nil {
		fail("command", err)
	}
	r.Handle("cmd", h)
	if err := r.Run(ctx); err != nil {
		fail("run", err)
	}
}
