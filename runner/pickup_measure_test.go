//go:build measure

// The measurements of this file are built only with the tag measure (go test -tags measure): they
// assert nothing about time, so they are no tests of make test, and leaving them out of its build
// lets nothing skip there.

package runner_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// The pickup under concurrent enqueues, measured (built with -tags measure alone: it asserts
// nothing about time, so it is no test of make test). One runner at its defaults (poll
// interval and rescan interval 1 second, as shipped) serves the queue of task pickup with a
// handler that only reads the database's clock; N goroutines, each on a connection of its own,
// enqueue single jobs (jobq.enqueue, autocommit) every 2 to 5 ms at random, JOBQ_MEASURE_PICKUP_JOBS
// jobs between them (default 3000). A job's pickup is the clock_timestamp() its handler reads as
// it starts minus the one read on the enqueuer's connection right after the enqueue's commit
// returned: both the database's clock. It reports p50, p90, p99 and max, how many waited more
// than 100 ms and 250 ms, and how often the passed-over probe found a job the claims had passed
// over (jobq_claim_rescans_total). A wait for a poll or a rescan is hundreds of milliseconds; a
// busy machine makes waits of 100 ms and more, rarely of 250.
//
// Lists, comma-separated, each combination run in turn: JOBQ_MEASURE_PICKUP_ENQUEUERS (default
// "2,8"), JOBQ_MEASURE_PICKUP_DOORBELL (values of the setting doorbell; default "true,false"),
// JOBQ_MEASURE_PICKUP_SETTLE (how far back in time claims start, runner.SetPositionSettle;
// "default" as shipped, "0s" one claim back as before). JOBQ_MEASURE_PICKUP_POLL and
// JOBQ_MEASURE_PICKUP_RESCAN set the runner's PollInterval and RescanInterval (-1ns: every claim
// from the head); JOBQ_MEASURE_PICKUP_HOLD (a duration) makes each enqueue a transaction kept
// open a random time up to it before its commit. Inside jobq sandbox:
//
//	JOBQ_MEASURE_PICKUP_SETTLE=0s,default go test -tags measure -count=1 -v \
//	    -run TestMeasurePickupUnderConcurrentEnqueues ./runner/ | grep -A9 summary:
func TestMeasurePickupUnderConcurrentEnqueues(t *testing.T) {
	jobs := 3000
	if v := os.Getenv("JOBQ_MEASURE_PICKUP_JOBS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "JOBQ_MEASURE_PICKUP_JOBS")
		jobs = n
	}
	enqueuers := measureList(t, "JOBQ_MEASURE_PICKUP_ENQUEUERS", "2,8")
	doorbells := strings.Split(cmpOr(os.Getenv("JOBQ_MEASURE_PICKUP_DOORBELL"), "true,false"), ",")
	settles := strings.Split(cmpOr(os.Getenv("JOBQ_MEASURE_PICKUP_SETTLE"), "default"), ",")
	var summary []string
	for _, doorbell := range doorbells {
		for _, n := range enqueuers {
			for _, settle := range settles {
				name := fmt.Sprintf("doorbell=%s/enqueuers=%d/settle=%s", doorbell, n, settle)
				t.Run(name, func(t *testing.T) {
					line := measurePickup(t, n, jobs, doorbell, settle)
					summary = append(summary, name+": "+line)
				})
			}
		}
	}
	t.Logf("summary:\n%s", strings.Join(summary, "\n"))
}

func cmpOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func measureList(t *testing.T, env, def string) []int {
	t.Helper()
	var out []int
	for _, f := range strings.Split(cmpOr(os.Getenv(env), def), ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		require.NoError(t, err, env)
		out = append(out, n)
	}
	return out
}

func measurePickup(t *testing.T, enqueuers, jobs int, doorbell, settle string) string {
	b := setup(t)
	b.define(t, "pickup")
	if doorbell != "as-installed" {
		b.exec(t, `SELECT jobq.set_setting('doorbell', $1)`, doorbell)
	}

	var mu sync.Mutex
	started := make(map[int64]time.Time, jobs)
	committed := make(map[int64]time.Time, jobs)
	cfg := b.config()
	if v := os.Getenv("JOBQ_MEASURE_PICKUP_RESCAN"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err, "JOBQ_MEASURE_PICKUP_RESCAN")
		cfg.RescanInterval = d
	}
	if v := os.Getenv("JOBQ_MEASURE_PICKUP_POLL"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err, "JOBQ_MEASURE_PICKUP_POLL")
		cfg.PollInterval = d
	}
	r, err := runner.New(cfg)
	require.NoError(t, err)
	if settle != "default" {
		d, err := time.ParseDuration(settle)
		require.NoError(t, err, "JOBQ_MEASURE_PICKUP_SETTLE")
		runner.SetPositionSettle(r, d)
	}
	r.HandleFunc("pickup", func(ctx context.Context, job *jobq.Job) error {
		var ts time.Time
		if err := b.pool.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&ts); err != nil {
			return err
		}
		mu.Lock()
		if _, ok := started[job.ID]; !ok {
			started[job.ID] = ts
		}
		mu.Unlock()
		return nil
	})
	start(t, r)

	ctx := context.Background()
	var hold time.Duration
	if v := os.Getenv("JOBQ_MEASURE_PICKUP_HOLD"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(t, err, "JOBQ_MEASURE_PICKUP_HOLD")
		hold = d
	}
	var wg sync.WaitGroup
	errs := make(chan error, enqueuers)
	for i := range enqueuers {
		conn, err := pgx.Connect(ctx, b.db.URL("worker_runtime"))
		require.NoError(t, err)
		t.Cleanup(func() { _ = conn.Close(context.Background()) })
		share := jobs / enqueuers
		if i < jobs%enqueuers {
			share++
		}
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 29))
			for range share {
				time.Sleep(2*time.Millisecond + time.Duration(rng.Int64N(int64(3*time.Millisecond))))
				var id int64
				if err := enqueueHolding(ctx, conn, rng, hold, &id); err != nil {
					errs <- err
					return
				}
				var at time.Time
				if err := conn.QueryRow(ctx, `SELECT clock_timestamp()`).Scan(&at); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				committed[id] = at
				mu.Unlock()
			}
		})
	}
	began := time.Now()
	wg.Wait()
	took := time.Since(began)
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	waitFor(t, 3*time.Minute, "every job started", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(started) >= len(committed)
	})

	mu.Lock()
	defer mu.Unlock()
	lat := make([]time.Duration, 0, len(committed))
	for id, at := range committed {
		s, ok := started[id]
		require.True(t, ok, "job %d started", id)
		lat = append(lat, s.Sub(at))
	}
	slices.Sort(lat)
	over := func(d time.Duration) int {
		return len(lat) - sortIndex(lat, d)
	}
	q := func(p float64) time.Duration {
		return lat[min(len(lat)-1, int(p*float64(len(lat))))].Round(100 * time.Microsecond)
	}
	line := fmt.Sprintf("%d jobs in %s: p50 %s, p90 %s, p99 %s, max %s; over 100 ms %d, over 250 ms %d; rescans %s",
		len(lat), took.Round(time.Millisecond), q(0.5), q(0.9), q(0.99), lat[len(lat)-1].Round(100*time.Microsecond),
		over(100*time.Millisecond), over(250*time.Millisecond), rescans(t, r))
	t.Log(line)
	return line
}

// sortIndex returns the index of the first value in sorted lat above d.
func sortIndex(lat []time.Duration, d time.Duration) int {
	i, _ := slices.BinarySearchFunc(lat, d, func(v, d time.Duration) int {
		if v <= d {
			return -1
		}
		return 1
	})
	return i
}

// enqueueHolding enqueues one job of task pickup on conn: in autocommit when hold is 0, else in
// a transaction kept open a random time up to hold after the enqueue (an application's, or a
// loaded machine's slow commit).
func enqueueHolding(ctx context.Context, conn *pgx.Conn, rng *rand.Rand, hold time.Duration, id *int64) error {
	if hold <= 0 {
		return conn.QueryRow(ctx, `SELECT jobq.enqueue('pickup')`).Scan(id)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := tx.QueryRow(ctx, `SELECT jobq.enqueue('pickup')`).Scan(id); err != nil {
		return err
	}
	time.Sleep(time.Duration(rng.Int64N(int64(hold))))
	return tx.Commit(ctx)
}

// rescans returns jobq_claim_rescans_total of r: how often the passed-over probe found a job its
// claim positions had passed over.
func rescans(t *testing.T, r *runner.Runner) string {
	t.Helper()
	families, err := r.Registry().Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() == "jobq_claim_rescans_total" {
			return fmt.Sprint(f.GetMetric()[0].GetCounter().GetValue())
		}
	}
	return "?"
}

// What starting claims back in time costs a busy runner, measured (built only with
// -tags measure): one runner at its defaults with a no-op handler drains
// JOBQ_MEASURE_PICKUP_JOBS jobs (default 20,000) enqueued beforehand in one statement (so they share one run_at: every mark sorts by id alone),
// with no other transaction open and with a REPEATABLE READ snapshot held open meanwhile (then
// the index entries of claimed jobs cannot be marked dead, and a claim that starts back walks
// them all), once per JOBQ_MEASURE_PICKUP_SETTLE value. It reports jobs a second.
func TestMeasureDrainUnderClaimSettle(t *testing.T) {
	jobs := 20000
	if v := os.Getenv("JOBQ_MEASURE_PICKUP_JOBS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, "JOBQ_MEASURE_PICKUP_JOBS")
		jobs = n
	}
	var summary []string
	for _, settle := range strings.Split(cmpOr(os.Getenv("JOBQ_MEASURE_PICKUP_SETTLE"), "0s,default"), ",") {
		for _, snapshot := range []bool{false, true} {
			name := fmt.Sprintf("settle=%s/snapshot=%v", settle, snapshot)
			t.Run(name, func(t *testing.T) {
				b := setup(t)
				ctx := context.Background()
				b.define(t, "drain")
				b.exec(t, `SELECT jobq.enqueue_many((SELECT jsonb_agg(jsonb_build_object('task', 'drain')) FROM generate_series(1, $1)))`, jobs)
				if snapshot {
					tx, err := b.admin.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
					require.NoError(t, err)
					defer func() { _ = tx.Rollback(ctx) }()
					_, err = tx.Exec(ctx, `SELECT count(*) FROM jobq.jobs`)
					require.NoError(t, err)
				}
				var done sync.WaitGroup
				done.Add(jobs)
				r, err := runner.New(b.config())
				require.NoError(t, err)
				if settle != "default" {
					d, err := time.ParseDuration(settle)
					require.NoError(t, err)
					runner.SetPositionSettle(r, d)
				}
				r.HandleFunc("drain", func(ctx context.Context, job *jobq.Job) error { done.Done(); return nil })
				began := time.Now()
				start(t, r)
				done.Wait()
				took := time.Since(began)
				line := fmt.Sprintf("%d jobs in %s: %.0f jobs/s", jobs, took.Round(time.Millisecond), float64(jobs)/took.Seconds())
				t.Log(line)
				summary = append(summary, name+": "+line)
			})
		}
	}
	t.Logf("summary:\n%s", strings.Join(summary, "\n"))
}
