package runner_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

func TestRunnerRunsJobsConcurrently(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "work")
	cfg := b.config()
	cfg.Concurrency = 4
	r, err := runner.New(cfg)
	require.NoError(t, err)
	var running, peak atomic.Int32
	r.HandleFunc("work", func(ctx context.Context, job *jobq.Job) error {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
		return nil
	})
	start(t, r)

	specs := make([]jobq.JobSpec, 20)
	for i := range specs {
		specs[i] = jobq.JobSpec{Task: "work", Payload: map[string]int{"n": i}}
	}
	ids, err := b.client.EnqueueMany(context.Background(), specs)
	require.NoError(t, err)
	waitFor(t, waitCeiling, "all jobs succeeded", func() bool {
		return b.count(t, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded' AND id = ANY($1)`, ids) == len(ids)
	})
	require.LessOrEqual(t, peak.Load(), int32(4), "never more handlers than Concurrency")
	require.GreaterOrEqual(t, peak.Load(), int32(2), "handlers ran concurrently")
	require.Equal(t, 0, b.count(t, `SELECT count(*) FROM jobq.job_history WHERE attempt <> 1 AND id = ANY($1)`, ids))

	claimed := b.logs.lines("job claimed")
	require.Len(t, claimed, 20)
	for _, line := range claimed {
		for _, key := range []string{"taskName", "jobId", "storeId", "attempt", "workerId"} {
			require.Contains(t, line, key)
		}
	}
	waitFor(t, waitCeiling, "20 success lines", func() bool { return len(b.logs.lines("job succeeded")) == 20 })
	require.Contains(t, b.logs.lines("job succeeded")[0], "duration")
}

func TestRunnerFailures(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "fail")
	r, err := runner.New(b.config())
	require.NoError(t, err)
	var attempts sync.Map
	r.HandleFunc("fail", func(ctx context.Context, job *jobq.Job) error {
		attempts.Store(job.ID, job.Attempt)
		var p struct{ Mode string }
		if err := json.Unmarshal(job.Payload, &p); err != nil {
			return err
		}
		switch p.Mode {
		case "plain":
			return errors.New("plain failure")
		case "permanent":
			return runner.Permanent(errors.New("never works"))
		case "code":
			return runner.WithCode(errors.New("card declined"), "PAYMENT.DECLINED")
		case "retry_in":
			return runner.RetryIn(errors.New("rate limited"), time.Hour)
		case "snooze":
			return runner.Snooze(time.Hour)
		}
		return fmt.Errorf("unexpected payload %s", job.Payload)
	})
	start(t, r)
	enq := func(mode string, opts jobq.EnqueueOptions) int64 {
		return b.enqueue(t, "fail", map[string]string{"mode": mode}, opts)
	}
	plain := enq("plain", jobq.EnqueueOptions{MaxAttempts: 2, BackoffBase: 50 * time.Millisecond})
	permanent := enq("permanent", jobq.EnqueueOptions{MaxAttempts: 5})
	code := enq("code", jobq.EnqueueOptions{MaxAttempts: 5, BackoffBase: time.Hour})
	retryIn := enq("retry_in", jobq.EnqueueOptions{MaxAttempts: 5})
	snooze := enq("snooze", jobq.EnqueueOptions{MaxAttempts: 5})

	t.Run("PlainErrorRetriesThenDies", func(t *testing.T) {
		row := b.waitState(t, plain, "dead")
		require.Equal(t, 2, row.Attempt)
		require.Equal(t, "exhausted", row.Reason)
		require.Contains(t, row.LastError, "plain failure")
		retries := 0
		for _, line := range b.logs.lines("job retry") {
			if line["jobId"] == float64(plain) {
				retries++
			}
		}
		require.Equal(t, 1, retries, "one retry line, for the first attempt")
	})
	t.Run("PermanentDiesAtOnce", func(t *testing.T) {
		row := b.waitState(t, permanent, "dead")
		require.Equal(t, 1, row.Attempt)
		require.Equal(t, "not_retryable", row.Reason)
	})
	t.Run("WithCodeKeepsTheCode", func(t *testing.T) {
		row := b.waitState(t, code, "retry_pending")
		require.Equal(t, "PAYMENT.DECLINED", row.ErrorCode)
		require.Contains(t, row.LastError, "card declined")
	})
	t.Run("RetryInSetsTheNextRun", func(t *testing.T) {
		row := b.waitState(t, retryIn, "retry_pending")
		require.InDelta(t, time.Hour.Seconds(), row.RunAtIn.Seconds(), 60)
	})
	t.Run("SnoozeUsesNoAttempt", func(t *testing.T) {
		waitFor(t, waitCeiling, "snooze handler ran", func() bool { _, ok := attempts.Load(snooze); return ok })
		var row jobRow
		waitFor(t, waitCeiling, "snoozed", func() bool { row = b.job(t, snooze); return row.State == "queued" })
		require.Equal(t, 0, row.Attempt)
		require.InDelta(t, time.Hour.Seconds(), row.RunAtIn.Seconds(), 60)
	})
	t.Run("DeadLineHasTheFields", func(t *testing.T) {
		waitFor(t, waitCeiling, "dead lines", func() bool { return len(b.logs.lines("job dead")) >= 2 })
		line := b.logs.lines("job dead")[0]
		for _, key := range []string{"taskName", "jobId", "storeId", "attempt", "duration", "error", "reason"} {
			require.Contains(t, line, key)
		}
	})
}

func TestRunnerPanicFailsTheJobAndGoesOn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "explode", "ping")
	r, err := runner.New(b.config())
	require.NoError(t, err)
	r.HandleFunc("explode", func(ctx context.Context, job *jobq.Job) error {
		var m map[string]int
		m["boom"]++ // assignment to entry in nil map
		return nil
	})
	r.HandleFunc("ping", func(ctx context.Context, job *jobq.Job) error { return nil })
	start(t, r)

	bad := b.enqueue(t, "explode", nil, jobq.EnqueueOptions{MaxAttempts: 1})
	row := b.waitState(t, bad, "dead")
	require.Contains(t, row.LastError, "panic: assignment to entry in nil map")
	require.Contains(t, row.LastError, "runner_test.go", "the stack is kept")
	require.Contains(t, row.LastError, "goroutine")

	good := b.enqueue(t, "ping", nil, jobq.EnqueueOptions{})
	b.waitState(t, good, "succeeded")
}

// Issue 30: a runner claims only the tasks it has handlers for. A job of a task it has no
// handler for stays queued, its attempts unused, for a worker that serves it (it used to be
// claimed and failed as JOB.UNKNOWN_TASK, retried up to max_attempts times).
func TestRunnerLeavesATaskWithoutHandlerQueued(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "nobody-handles-this", "ping")
	r, err := runner.New(b.config())
	require.NoError(t, err)
	r.HandleFunc("ping", func(context.Context, *jobq.Job) error { return nil })
	start(t, r)
	id := b.enqueue(t, "nobody-handles-this", nil, jobq.EnqueueOptions{BackoffBase: time.Hour})
	b.waitState(t, b.enqueue(t, "ping", nil, jobq.EnqueueOptions{}), "succeeded")
	row := b.job(t, id)
	require.Equal(t, "queued", row.State, "the claim that took ping, enqueued after it, left it queued")
	require.Zero(t, row.Attempt)
}

func TestRunnerCancelsHandlerWhenLeaseIsLost(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "block")
	cfg := b.config()
	cfg.Lease = time.Minute // no heartbeat within the test: the cancel's NOTIFY alone tells
	cfg.HeartbeatInterval = 30 * time.Second
	r, err := runner.New(cfg)
	require.NoError(t, err)
	started := make(chan int64, 1)
	causes := make(chan error, 1)
	r.HandleFunc("block", func(ctx context.Context, job *jobq.Job) error {
		started <- job.ID
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return ctx.Err()
	})
	start(t, r)

	id := b.enqueue(t, "block", nil, jobq.EnqueueOptions{})
	require.Equal(t, id, <-started)
	// An operator cancels the running job: its lease token stops working, and its NOTIFY makes
	// the runner check the lease at once (issue 34; the heartbeat path is TestHeartbeater's).
	_, err = b.admin.Exec(context.Background(), `SELECT jobq.cancel_job($1)`, id)
	require.NoError(t, err)
	select {
	case cause := <-causes:
		require.ErrorIs(t, cause, runner.ErrCanceled)
	case <-time.After(waitCeiling):
		t.Fatal("handler was not cancelled after its lease was lost")
	}
	require.Len(t, b.logs.lines("job canceled while it ran: stopping its handler"), 1)
	require.Equal(t, "canceled", b.job(t, id).State, "the runner wrote nothing over the cancel")
	waitFor(t, waitCeiling, "no lease held", func() bool {
		return len(b.logs.lines("handler stopped: the job was canceled; result discarded")) == 1
	})
}

func TestRunnerHeartbeatKeepsTheLease(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "slow")
	cfg := b.config()
	cfg.Lease = time.Second // the leader's maintain sweeps expired leases every second
	r, err := runner.New(cfg)
	require.NoError(t, err)
	r.HandleFunc("slow", func(ctx context.Context, job *jobq.Job) error {
		select {
		case <-time.After(2500 * time.Millisecond):
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	})
	start(t, r)
	id := b.enqueue(t, "slow", nil, jobq.EnqueueOptions{})
	row := b.waitState(t, id, "succeeded")
	require.Equal(t, 1, row.Attempt, "never rescued: heartbeats renewed the 1 s lease")
	require.Empty(t, b.logs.lines("lease lost"))
}

func TestRunnerJobTimeoutCancelsHandler(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "slow")
	r, err := runner.New(b.config())
	require.NoError(t, err)
	causes := make(chan error, 1)
	r.HandleFunc("slow", func(ctx context.Context, job *jobq.Job) error {
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return ctx.Err()
	})
	start(t, r)
	id := b.enqueue(t, "slow", nil, jobq.EnqueueOptions{Timeout: 300 * time.Millisecond, MaxAttempts: 1})
	select {
	case cause := <-causes:
		require.ErrorIs(t, cause, runner.ErrJobTimeout)
	case <-time.After(waitCeiling):
		t.Fatal("handler was not cancelled at its timeout")
	}
	row := b.waitState(t, id, "dead")
	require.Contains(t, row.LastError, "timed out after 300ms")
	require.Equal(t, "timed_out", row.Reason, "a handler stopped by its timeout dies as timed_out, not exhausted")
	var reason string
	require.NoError(t, b.admin.QueryRow(context.Background(),
		`SELECT reason FROM jobq.job_attempts WHERE job_id = $1 AND attempt = 1`, id).Scan(&reason))
	require.Equal(t, "timed_out", reason, "and its attempt is recorded as timed_out")
}

// TestRunnerPickupLatency measures how fast an idle runner starts a new job: from the enqueue
// (its statement, just before the commit) to the handler's start, both read from the database's
// clock_timestamp(). The runner polls once an hour, so every pickup is a wake-up's; the latencies
// are logged, not bounded (a loaded machine may take longer: issue 29).
func TestRunnerPickupLatency(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "latency")
	cfg := b.config()
	cfg.PollInterval = time.Hour
	r, err := runner.New(cfg)
	require.NoError(t, err)
	startedAt := make(chan time.Time, 1)
	r.HandleFunc("latency", func(ctx context.Context, job *jobq.Job) error {
		var ts time.Time
		if err := b.pool.QueryRow(ctx, "SELECT clock_timestamp()").Scan(&ts); err != nil {
			return err
		}
		startedAt <- ts
		return nil
	})
	start(t, r)

	conn, err := b.pool.Acquire(context.Background())
	require.NoError(t, err)
	defer conn.Release()
	const n = 200
	lat := make([]time.Duration, 0, n)
	for range n {
		var id int64
		var enqueued time.Time
		require.NoError(t, conn.QueryRow(context.Background(),
			`SELECT jobq.enqueue('latency'), clock_timestamp()`).Scan(&id, &enqueued))
		select {
		case s := <-startedAt:
			lat = append(lat, s.Sub(enqueued))
		case <-time.After(waitCeiling):
			t.Fatalf("job %d was not picked up within %s: no wake-up came (the next poll is an hour away)", id, waitCeiling)
		}
	}
	slices.Sort(lat)
	p50, p99 := lat[n/2], lat[n*99/100]
	t.Logf("pickup latency over %d single enqueues (commit -> handler start, database clock): p50 %s, p99 %s, max %s",
		n, p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond), lat[n-1].Round(10*time.Microsecond))
}

func TestRunnerListenerComesBackAfterTermination(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "ping")
	cfg := b.config()
	cfg.PollInterval = time.Second
	r, err := runner.New(cfg)
	require.NoError(t, err)
	startedAt := make(chan time.Time, 1)
	r.HandleFunc("ping", func(ctx context.Context, job *jobq.Job) error {
		var ts time.Time
		if err := b.pool.QueryRow(ctx, "SELECT clock_timestamp()").Scan(&ts); err != nil {
			return err
		}
		startedAt <- ts
		return nil
	})
	start(t, r)

	listenerPID := func() int {
		var pid int
		err := b.admin.QueryRow(context.Background(), `
			SELECT coalesce(max(pid), 0) FROM pg_stat_activity
			WHERE datname = $1 AND application_name = $2`, b.db.Name, runner.ListenerApplicationName).Scan(&pid)
		require.NoError(t, err)
		return pid
	}
	var old int
	// Killed only once it has LISTENed and logged so: killed while still connecting, it would log
	// "listening" once in all, and the wait below for a second line would time out.
	waitFor(t, waitCeiling, "first listen logged", func() bool { return len(b.logs.lines("listening")) >= 1 })
	waitFor(t, waitCeiling, "listener connected", func() bool { old = listenerPID(); return old != 0 })
	var killed bool
	require.NoError(t, b.admin.QueryRow(context.Background(), `SELECT pg_terminate_backend($1)`, old).Scan(&killed))
	require.True(t, killed)

	var enqueued time.Time
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT clock_timestamp() FROM jobq.enqueue('ping')`).Scan(&enqueued))
	select {
	case s := <-startedAt:
		require.Less(t, s.Sub(enqueued), cfg.PollInterval+500*time.Millisecond, "started within the poll interval")
	case <-time.After(waitCeiling):
		t.Fatal("job not picked up after the listener was terminated")
	}
	var fresh int
	waitFor(t, waitCeiling, "a new listener", func() bool { fresh = listenerPID(); return fresh != 0 && fresh != old })
	// The new connection shows in pg_stat_activity before it has LISTENed and logged so.
	waitFor(t, waitCeiling, "reconnect logged", func() bool { return len(b.logs.lines("listening")) >= 2 })

	// The new listener works: with polling far away, a notification still wakes the runner.
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT clock_timestamp() FROM jobq.enqueue('ping')`).Scan(&enqueued))
	select {
	case s := <-startedAt:
		require.Less(t, s.Sub(enqueued), cfg.PollInterval+500*time.Millisecond)
	case <-time.After(waitCeiling):
		t.Fatal("job not picked up after the listener came back")
	}
}

func TestRunnerGracefulShutdown(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "short", "long")
	cfg := b.config()
	cfg.ShutdownGrace = 5 * time.Second // the short handler's 200 ms fit in it on a loaded machine
	r, err := runner.New(cfg)
	require.NoError(t, err)
	running := make(chan int64, 2)
	causes := make(chan error, 1)
	r.HandleFunc("short", func(ctx context.Context, job *jobq.Job) error {
		running <- job.ID
		time.Sleep(200 * time.Millisecond) // finishes inside the grace period
		return nil
	})
	r.HandleFunc("long", func(ctx context.Context, job *jobq.Job) error {
		running <- job.ID
		<-ctx.Done()
		causes <- context.Cause(ctx)
		return ctx.Err()
	})
	stop := start(t, r)
	short := b.enqueue(t, "short", nil, jobq.EnqueueOptions{})
	long := b.enqueue(t, "long", nil, jobq.EnqueueOptions{})
	<-running
	<-running

	began := time.Now()
	require.NoError(t, stop(), "a clean drain")
	took := time.Since(began)
	t.Logf("Run returned %s after the stop (grace %s)", took.Round(time.Millisecond), cfg.ShutdownGrace)
	require.GreaterOrEqual(t, took, cfg.ShutdownGrace, "the long handler had the whole grace period")
	require.Less(t, took, cfg.ShutdownGrace+waitCeiling/2, "then it was cancelled: Run did not wait for it to end by itself")
	require.ErrorIs(t, <-causes, runner.ErrShutdown)

	require.Equal(t, "succeeded", b.job(t, short).State)
	row := b.job(t, long)
	require.Equal(t, "queued", row.State, "handed back")
	require.Equal(t, 0, row.Attempt, "the handed-back attempt is not counted")
	require.LessOrEqual(t, row.RunAtIn, time.Duration(0), "due again at once")
	require.Len(t, b.logs.lines("job handed back at shutdown"), 1)

	// Stopped means stopped: nothing claims the job now.
	time.Sleep(100 * time.Millisecond)
	require.Equal(t, "queued", b.job(t, long).State)
}

func TestRunnerStopAndCancel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "long")
	cfg := b.config()
	cfg.ShutdownGrace = time.Minute
	r, err := runner.New(cfg)
	require.NoError(t, err)
	running := make(chan struct{}, 1)
	r.HandleFunc("long", func(ctx context.Context, job *jobq.Job) error {
		running <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	})
	stop := start(t, r)
	id := b.enqueue(t, "long", nil, jobq.EnqueueOptions{})
	<-running
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	waitFor(t, waitCeiling, "the grace period began", func() bool {
		return len(b.logs.lines("shutting down: claiming stopped, waiting for running jobs")) == 1
	})
	began := time.Now()
	r.StopAndCancel()
	select {
	case err := <-stopped:
		require.Error(t, err, "not a clean drain")
	case <-time.After(waitCeiling):
		t.Fatal("StopAndCancel did not stop the runner")
	}
	took := time.Since(began)
	t.Logf("Run returned %s after StopAndCancel (grace %s)", took.Round(time.Millisecond), cfg.ShutdownGrace)
	require.Less(t, took, cfg.ShutdownGrace/2, "without waiting out the grace period")
	row := b.job(t, id)
	require.Equal(t, "queued", row.State, "handed back even on a hard stop when the handler returns at once")
	require.Equal(t, 0, row.Attempt)
}

func TestRunnerRefusesUnsafeRoles(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, role := range []string{"postgres", "jobq_migrator"} {
		t.Run(role, func(t *testing.T) {
			cfg := b.config()
			cfg.Pool = b.db.Pool(t, role, 2)
			r, err := runner.New(cfg)
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err = r.Run(ctx)
			require.ErrorIs(t, err, runner.ErrUnsafeRole)
			require.Contains(t, err.Error(), "WORKER.UNSAFE_ROLE")
		})
	}
	t.Run("worker_runtime", func(t *testing.T) {
		require.NoError(t, runner.CheckRole(context.Background(), b.pool))
	})
}

// A busy runner writes results in batches: far fewer complete_jobs calls than jobs. The calls
// are counted by PostgreSQL (track_functions) once the runner's sessions have ended.
func TestRunnerBatchesCompletions(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "quick")
	ctx := context.Background()
	_, err := b.admin.Exec(ctx, fmt.Sprintf(`ALTER DATABASE %q SET track_functions = 'pl'`, b.db.Name))
	require.NoError(t, err)
	pool := b.db.Pool(t, "worker_runtime", 8) // new sessions, with the setting
	cfg := b.config()
	cfg.Pool = pool
	cfg.Concurrency = 50
	r, err := runner.New(cfg)
	require.NoError(t, err)
	r.HandleFunc("quick", func(ctx context.Context, job *jobq.Job) error { return nil })

	const n = 300
	specs := make([]jobq.JobSpec, n)
	for i := range specs {
		specs[i] = jobq.JobSpec{Task: "quick"}
	}
	_, err = jobq.NewClient(b.admin).EnqueueMany(ctx, specs) // no other worker_runtime session
	require.NoError(t, err)
	stop := start(t, r)
	waitFor(t, waitCeiling, "all jobs succeeded", func() bool {
		return b.count(t, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded'`) == n
	})
	require.NoError(t, stop())
	pool.Close() // ending the sessions flushes their statistics

	var calls int
	waitFor(t, waitCeiling, "function statistics", func() bool {
		calls = b.count(t, `SELECT coalesce(sum(calls), 0)::int FROM pg_stat_user_functions
			WHERE schemaname = 'jobq' AND funcname = 'complete_jobs'`)
		return calls > 0 && b.count(t, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND usename = 'worker_runtime'`) == 0
	})
	t.Logf("%d jobs completed in %d complete_jobs calls", n, calls)
	require.Less(t, calls, n/2, "completions were batched")
}

// Roles that could bypass the engine are refused: BYPASSRLS, and a member of the schema owner.
func TestCheckRoleRefusesBypassAndOwnerMembers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	suffix := strings.ReplaceAll(b.db.Name, "jobq_test_", "")
	bypass, member := "jobq_t_bypass_"+suffix, "jobq_t_member_"+suffix
	_, err := b.admin.Exec(ctx, fmt.Sprintf(`
		CREATE ROLE %[1]s LOGIN BYPASSRLS;
		CREATE ROLE %[2]s LOGIN IN ROLE jobq_migrator`, bypass, member))
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = b.admin.Exec(context.Background(), fmt.Sprintf(`DROP ROLE IF EXISTS %s, %s`, bypass, member))
	})
	for role, want := range map[string]string{bypass: "has BYPASSRLS", member: "is a member of jobq_migrator"} {
		conn, err := pgx.Connect(ctx, b.db.URL(role))
		require.NoError(t, err)
		err = runner.CheckRole(ctx, conn)
		conn.Close(ctx)
		require.ErrorIs(t, err, runner.ErrUnsafeRole, role)
		require.ErrorContains(t, err, want)
	}
}
