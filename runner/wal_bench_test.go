package runner_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/runner"
)

// Shape of BenchmarkWakeup.
const (
	benchEnqueuers   = 200
	benchProbeEvery  = 20 * time.Millisecond // a probe enqueue starts this often, whatever the load
	benchProbeConns  = 20
	benchDurationEnv = "JOBQ_WAKEUP_BENCH_DURATION" // a Go duration; default benchDefaultRun
	benchDefaultRun  = 10 * time.Second
	benchLoadQueue   = "wakeup_bench_load"
	benchProbeQueue  = "wakeup_bench_probe"
	benchWakeupTask  = "wakeup-bench"
	benchRunnerConc  = 20
)

// BenchmarkWakeup compares the two wake-up modes under enqueue load. For a fixed duration
// (JOBQ_WAKEUP_BENCH_DURATION, default 10s) 200 goroutines each enqueue one job per
// transaction (Client.Enqueue, autocommit) into a queue no runner serves, and every commit sends
// a wake-up: a NOTIFY under notify, a logical message under wal. Every 20ms a probe enqueues one
// job the same way into the queue of one otherwise idle runner (PollInterval one minute: only
// the wake-up wakes it; concurrency 20, so it never falls behind the 50 probes a second), which
// picks it up. Reported per mode: commits/s of all enqueues (probes included); the probes'
// pickup latency p50 and p99 in milliseconds (claimed_at - run_at, both from the database's
// clock: from the start of the enqueuing transaction, its commit included, to the claim); the
// after-commit latency p50 and p99 (from the return of the probe's Enqueue to the start of its
// handler, this process's clock; 0 when the handler started first); the number of probes; and
// ns/op as the duration per commit.
//
//	go test -run '^$' -bench Wakeup ./runner/   (inside jobq sandbox)
func BenchmarkWakeup(b *testing.B) {
	run := benchDefaultRun
	if v := os.Getenv(benchDurationEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			b.Fatalf("%s=%q is not a positive duration", benchDurationEnv, v)
		}
		run = d
	}
	for _, mode := range []runner.WakeupMode{runner.WakeupNotify, runner.WakeupWAL} {
		b.Run(string(mode), func(b *testing.B) { benchWakeup(b, mode, run) })
	}
}

func benchWakeup(b *testing.B, mode runner.WakeupMode, run time.Duration) {
	db := dbtest.New(b)
	admin := db.Pool(b, "postgres", 2)
	slotsGoneBeforeDrop(b, admin, db.Name)
	ctx := context.Background()
	if _, err := admin.Exec(ctx, `SELECT jobq.define_task($1), jobq.set_setting('wakeup', $2)`, benchWakeupTask, string(mode)); err != nil {
		b.Fatal(err)
	}

	var mu sync.Mutex
	var pickups []time.Duration        // claimed_at - run_at, by the database's clock
	handled := map[int64]time.Time{}   // probe id -> when its handler started
	committed := map[int64]time.Time{} // probe id -> when its Enqueue returned
	r, err := runner.New(runner.Config{
		Pool: db.Pool(b, "worker_runtime", benchRunnerConc+4), Queues: []string{benchProbeQueue}, Concurrency: benchRunnerConc,
		PollInterval: time.Minute, NoLeader: true, Wakeup: mode, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
	})
	if err != nil {
		b.Fatal(err)
	}
	r.HandleFunc(benchWakeupTask, func(ctx context.Context, job *jobq.Job) error {
		now := time.Now()
		mu.Lock()
		pickups = append(pickups, job.ClaimedAt.Sub(job.RunAt))
		handled[job.ID] = now
		mu.Unlock()
		return nil
	})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(runCtx) }()
	b.Cleanup(func() { stop(); <-done })
	connected := "jobq_listener_connected"
	if mode == runner.WakeupWAL {
		connected = "jobq_wakeup_wal_connected"
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if v, _ := metricValue(b, r, connected); v == 1 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("the runner's %s wake-up did not connect within 60s", mode)
		}
	}

	// Every enqueuer has a connection open before the start, so connecting is not measured.
	pool := db.Pool(b, "worker_runtime", benchEnqueuers+benchProbeConns)
	client := jobq.NewClient(pool)
	conns := make(chan struct{}, benchEnqueuers)
	startLine := make(chan struct{})
	var commits, probes atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	var end time.Time
	for range benchEnqueuers {
		wg.Go(func() {
			c, err := pool.Acquire(ctx)
			if err != nil {
				failed.Add(1)
				conns <- struct{}{}
				return
			}
			conns <- struct{}{}
			<-startLine // held until then, so the pool has a connection per enqueuer
			c.Release()
			for time.Now().Before(end) {
				if _, err := client.Enqueue(ctx, benchWakeupTask, nil, jobq.EnqueueOptions{Queue: benchLoadQueue}); err != nil {
					failed.Add(1)
					continue
				}
				commits.Add(1)
			}
		})
	}
	for range benchEnqueuers {
		<-conns
	}
	time.Sleep(300 * time.Millisecond) // the runner's first claims are done: it is idle

	b.ResetTimer()
	began := time.Now()
	end = began.Add(run)
	close(startLine)
	// Probes at a fixed rate, each in a goroutine of its own, so that neither the load nor the
	// commit rate of the mode decides how many there are; late ticks are made up for.
	for launched := 0; time.Now().Before(end); time.Sleep(benchProbeEvery / 4) {
		for due := int(time.Since(began) / benchProbeEvery); launched <= due; launched++ {
			wg.Go(func() {
				id, err := client.Enqueue(ctx, benchWakeupTask, nil, jobq.EnqueueOptions{Queue: benchProbeQueue})
				if err != nil {
					failed.Add(1)
					return
				}
				at := time.Now()
				mu.Lock()
				committed[id] = at
				mu.Unlock()
				commits.Add(1)
				probes.Add(1)
			})
		}
	}
	wg.Wait()
	elapsed := time.Since(began)
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d enqueues failed", n)
	}
	// The last probes are picked up within the wake-up's latency.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		got := len(pickups)
		mu.Unlock()
		if int64(got) >= probes.Load() {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d probes picked up 30s after the load", got, probes.Load())
		}
	}

	mu.Lock()
	lat := slices.Clone(pickups)
	var afterCommit []time.Duration
	for id, at := range committed {
		// A runner may start the job before its enqueuer has heard of the commit: 0.
		afterCommit = append(afterCommit, max(handled[id].Sub(at), 0))
	}
	mu.Unlock()
	slices.Sort(lat)
	slices.Sort(afterCommit)
	n := commits.Load()
	b.ReportMetric(float64(n)/elapsed.Seconds(), "commits/s")
	b.ReportMetric(float64(quantile(lat, 0.50).Microseconds())/1000, "pickup-p50-ms")
	b.ReportMetric(float64(quantile(lat, 0.99).Microseconds())/1000, "pickup-p99-ms")
	b.ReportMetric(float64(quantile(afterCommit, 0.50).Microseconds())/1000, "after-commit-p50-ms")
	b.ReportMetric(float64(quantile(afterCommit, 0.99).Microseconds())/1000, "after-commit-p99-ms")
	b.ReportMetric(float64(len(lat)), "probes")
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(n), "ns/op")
}

// quantile returns the q-quantile of sorted durations (nearest rank); 0 for none.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted)) + 0.5)
	return sorted[min(max(i, 1), len(sorted))-1]
}
