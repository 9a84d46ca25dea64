package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// noopArgs are the arguments of the River peer's no-op job.
type noopArgs struct{}

// Kind names the job kind in river_job.
func (noopArgs) Kind() string { return "noop" }

// riverProfile is a River configuration the throughput scenario measures.
type riverProfile struct {
	name          string
	maxWorkers    int
	fetchCooldown time.Duration
	fetchPoll     time.Duration
}

var (
	// riverBest is the configuration of River's documented benchmark (riverbench):
	// 2,000 workers, FetchCooldown 2 ms, FetchPollInterval 20 ms.
	riverBest = riverProfile{name: "best", maxWorkers: 2000, fetchCooldown: 2 * time.Millisecond, fetchPoll: 20 * time.Millisecond}
	// riverDefault is River's defaults (FetchCooldown 100 ms, FetchPollInterval 1 s) with the
	// 100 workers of its getting-started example: MaxWorkers has no default.
	riverDefault = riverProfile{name: "default", maxWorkers: 100, fetchCooldown: river.FetchCooldownDefault, fetchPoll: river.FetchPollIntervalDefault}
)

// installRiver migrates River's schema into its database with rivermigrate.
func installRiver(ctx context.Context, url string) error {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return fmt.Errorf("river pool: %w", err)
	}
	defer pool.Close()
	m, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return fmt.Errorf("rivermigrate: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("rivermigrate up: %w", err)
	}
	return nil
}

// insertRiverJobs inserts n no-op jobs with River's bulk insert, in batches.
func insertRiverJobs(ctx context.Context, url string, n int) error {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return fmt.Errorf("river pool: %w", err)
	}
	defer pool.Close()
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{Logger: quietLogger()})
	if err != nil {
		return fmt.Errorf("river insert client: %w", err)
	}
	const batch = 10_000
	params := make([]river.InsertManyParams, 0, batch)
	for done := 0; done < n; {
		k := min(batch, n-done)
		params = params[:0]
		for range k {
			params = append(params, river.InsertManyParams{Args: noopArgs{}})
		}
		got, err := client.InsertManyFast(ctx, params)
		if err != nil {
			return fmt.Errorf("river InsertManyFast: %w", err)
		}
		if got != k {
			return fmt.Errorf("river InsertManyFast inserted %d of %d jobs", got, k)
		}
		done += k
	}
	return nil
}

// riverWorkerMain is the River peer's worker process: one River client working the default
// queue with no-op jobs until SIGTERM. It prints "DONE" once -expect jobs have run.
func riverWorkerMain(args []string) error {
	fs := flag.NewFlagSet("river-worker", flag.ContinueOnError)
	url := fs.String("url", "", "database URL")
	maxWorkers := fs.Int("max-workers", 100, "MaxWorkers of the default queue")
	cooldown := fs.Duration("fetch-cooldown", river.FetchCooldownDefault, "FetchCooldown")
	poll := fs.Duration("fetch-poll-interval", river.FetchPollIntervalDefault, "FetchPollInterval")
	expect := fs.Int64("expect", 0, "print DONE after this many jobs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()

	cfg, err := pgxpool.ParseConfig(*url)
	if err != nil {
		return fmt.Errorf("database URL: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("pool: %w", err)
	}
	defer pool.Close()

	var ran atomic.Int64
	workers := river.NewWorkers()
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, job *river.Job[noopArgs]) error {
		if ran.Add(1) == *expect {
			fmt.Printf("DONE %d\n", time.Now().UnixMilli())
		}
		return nil
	}))
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: *maxWorkers}},
		FetchCooldown:     *cooldown,
		FetchPollInterval: *poll,
		Workers:           workers,
		Logger:            quietLogger(),
	})
	if err != nil {
		return fmt.Errorf("river client: %w", err)
	}
	if err := client.Start(ctx); err != nil {
		return fmt.Errorf("river start: %w", err)
	}
	<-ctx.Done()
	stopCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := client.Stop(stopCtx); err != nil {
		return fmt.Errorf("river stop: %w", err)
	}
	return nil
}

// quietLogger logs warnings and errors only, to standard error.
func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
