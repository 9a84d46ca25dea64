// Command txworker is a worker for the transactional-completion tests of package runner: its
// handler of task tx-effect adds 1 to public.tx_effects for the job and completes the job in the
// same transaction (runner.CompleteTx). With CRASH_POINT=before-commit or after-commit its first
// attempts stop there (log line "at crash point") and wait to be killed.
package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	pool, err := pgxpool.New(ctx, os.Getenv("WORKER_DATABASE_URL"))
	if err != nil {
		log.Error("pool", "error", err.Error())
		os.Exit(1)
	}
	defer pool.Close()
	crash := os.Getenv("CRASH_POINT")
	r, err := runner.New(runner.Config{Pool: pool, WorkerID: os.Getenv("WORKER_ID"), Concurrency: 10,
		Lease: 3 * time.Second, NoLeader: true, Logger: log})
	if err != nil {
		log.Error("runner", "error", err.Error())
		os.Exit(1)
	}
	r.HandleFunc("tx-effect", func(ctx context.Context, job *jobq.Job) error {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO public.tx_effects (job_id, n) VALUES ($1, 1)
				ON CONFLICT (job_id) DO UPDATE SET n = tx_effects.n + 1`, job.ID); err != nil {
				return err
			}
			if err := runner.CompleteTx(ctx, tx, job); err != nil {
				return err
			}
			if crash == "before-commit" {
				log.Info("at crash point", "jobId", job.ID, "point", crash)
				select {} // killed here: the transaction never commits
			}
			return nil
		})
		if err != nil {
			return err
		}
		if crash == "after-commit" {
			log.Info("at crash point", "jobId", job.ID, "point", crash)
			select {} // killed here: committed, the runner never hears of it
		}
		return nil
	})
	if err := r.Run(ctx); err != nil {
		log.Error("run", "error", err.Error())
		os.Exit(1)
	}
}
