package jobq_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/jobqdev/jobq/internal/engine"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
)

func TestJobResults(t *testing.T) {
	t.Parallel()

	t.Run("CompleteAttemptsKeepsAnyJSONResult", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.Define(t, "task")
		ids := b.EnqueueMany(t, testbundle.ManyArgs{Count: 3})
		jobs := b.Claim(t, testbundle.ClaimArgs{Max: 3})
		require.Len(t, jobs, 3)
		results := []json.RawMessage{json.RawMessage(`{"sum": 6}`), json.RawMessage(`[1, "two"]`), nil}
		done := make([]engine.Completion, 3)
		for i, j := range jobs {
			done[i] = engine.Completion{Lease: j.Lease(), Result: results[i]}
		}
		outs, err := engine.New(b.WorkerPool).CompleteAttempts(b.Ctx, done)
		require.NoError(t, err)
		for i, o := range outs {
			require.Equal(t, "succeeded", o.Outcome)
			r, err := b.Worker.JobResult(b.Ctx, jobs[i].ID)
			require.NoError(t, err)
			require.Equal(t, "succeeded", r.State)
			require.True(t, r.Finished())
			if results[i] == nil {
				require.Nil(t, r.Result)
			} else {
				require.JSONEq(t, string(results[i]), string(r.Result))
			}
		}
		require.Len(t, ids, 3)
	})

	t.Run("TooLargeResultLeavesTheJobRunning", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.Define(t, "task")
		b.EnqueueMany(t, testbundle.ManyArgs{Count: 2})
		jobs := b.Claim(t, testbundle.ClaimArgs{Max: 2})
		big, err := json.Marshal(map[string]string{"x": strings.Repeat("x", 70000)})
		require.NoError(t, err)
		outs, err := engine.New(b.WorkerPool).CompleteAttempts(b.Ctx, []engine.Completion{
			{Lease: jobs[0].Lease(), Result: big}, {Lease: jobs[1].Lease(), Result: json.RawMessage(`1`)}})
		require.NoError(t, err)
		require.Equal(t, "result_too_large", outs[0].Outcome)
		require.Equal(t, "succeeded", outs[1].Outcome)
		require.Equal(t, "running", b.Live(t, jobs[0].ID).State)
	})

	t.Run("AwaitResultReturnsAtOnceForAFinishedJobAndTimesOutForALiveOne", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.Define(t, "task")
		b.EnqueueMany(t, testbundle.ManyArgs{Count: 2})
		jobs := b.Claim(t, testbundle.ClaimArgs{Max: 2})
		_, err := engine.New(b.WorkerPool).CompleteAttempts(b.Ctx, []engine.Completion{{Lease: jobs[0].Lease(), Result: json.RawMessage(`{"n": 1}`)}})
		require.NoError(t, err)

		type answer struct {
			N int `json:"n"`
		}
		v, r, err := jobq.AwaitResultOf[answer](b.Ctx, b.Worker, jobs[0].ID)
		require.NoError(t, err)
		require.Equal(t, 1, v.N)
		require.Equal(t, "succeeded", r.State)

		ctx, cancel := context.WithTimeout(b.Ctx, 200*time.Millisecond)
		defer cancel()
		_, err = b.Worker.AwaitResult(ctx, jobs[1].ID)
		require.ErrorIs(t, err, context.DeadlineExceeded, "a job still running is waited for until the context ends")

		_, err = b.Worker.AwaitResult(b.Ctx, 1<<40)
		require.ErrorIs(t, err, jobq.ErrNotFound)

		// The pool's connection went back without its LISTEN.
		var channels int
		require.NoError(t, b.WorkerPool.QueryRow(b.Ctx, `SELECT count(*) FROM pg_listening_channels()`).Scan(&channels))
		require.Zero(t, channels)
	})

	t.Run("AwaitResultOfADeadJobSaysItDidNotSucceed", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.Define(t, "task")
		b.EnqueueMany(t, testbundle.ManyArgs{Count: 1})
		job := b.ClaimOne(t, testbundle.ClaimArgs{})
		_, err := b.Worker.Fail(b.Ctx, []jobq.Failure{{Lease: job.Lease(), Error: "boom", Fatal: true}})
		require.NoError(t, err)
		_, r, err := jobq.AwaitResultOf[map[string]any](b.Ctx, b.Worker, job.ID)
		require.ErrorIs(t, err, jobq.ErrJobNotSucceeded)
		require.Equal(t, "dead", r.State)
	})

	t.Run("AnApplicationAwaitsOnlyItsStoresJobs", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.DefineStore(t, "store-task")
		other := "99999999-9999-4999-8999-999999999999"
		mine := b.Enqueue(t, testbundle.EnqueueArgs{Task: "store-task", EnqueueOptions: jobq.EnqueueOptions{StoreID: testbundle.StoreID}})
		theirs := b.Enqueue(t, testbundle.EnqueueArgs{Task: "store-task", EnqueueOptions: jobq.EnqueueOptions{StoreID: other}})
		// An application whose sessions act for its store (app.current_store_id set per connection).
		cfg, err := pgxpool.ParseConfig(b.DB.URL("postgres"))
		require.NoError(t, err)
		cfg.ConnConfig.RuntimeParams["app.current_store_id"] = testbundle.StoreID
		cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
			_, err := c.Exec(ctx, "SET ROLE jobq_app")
			return err
		}
		pool, err := pgxpool.NewWithConfig(b.Ctx, cfg)
		require.NoError(t, err)
		t.Cleanup(pool.Close)
		app := jobq.NewClient(pool)

		_, err = app.AwaitResult(b.Ctx, theirs)
		require.ErrorIs(t, err, jobq.ErrNotFound, "another store's job is not found")

		jobs := b.Claim(t, testbundle.ClaimArgs{Max: 2})
		for _, j := range jobs {
			if j.ID == mine {
				_, err = engine.New(b.WorkerPool).CompleteAttempts(b.Ctx, []engine.Completion{{Lease: j.Lease(), Result: json.RawMessage(`"mine"`)}})
				require.NoError(t, err)
			}
		}
		r, err := app.AwaitResult(b.Ctx, mine)
		require.NoError(t, err)
		require.JSONEq(t, `"mine"`, string(r.Result))
	})
}

// TestAwaitResultMissesNoWakeUp: 50 clients await 50 jobs on 50 connections while 50 workers
// complete them, round after round. Every awaiter must return its job's result through a
// notification: the poll backstop is set far beyond the test's deadline, so a wake-up lost
// between reading the job and listening fails the test instead of being rescued by the poll.
// In the first four rounds the completions start at the same moment as the awaiters, so they
// race the awaiters' LISTEN and their taking of the done doorbell. In the last, every completion
// has ended its job, without notifying (nobody held the done doorbell), in a transaction left
// open; the transactions commit only once all 50 awaiters hold the doorbell, so each awaiter has
// read its job as running and learns of its end only by waiting for jobq.done_quiet before it
// stops reading: without that wait, no notification ever comes.
func TestAwaitResultMissesNoWakeUp(t *testing.T) {
	t.Parallel()
	const n, rounds = 50, 5
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: 2*n + 2})
	b.Define(t, "task")
	for round := range rounds {
		silentFirst := round == rounds-1
		ids := b.EnqueueMany(t, testbundle.ManyArgs{Count: n})
		jobs := b.Claim(t, testbundle.ClaimArgs{Max: n})
		require.Len(t, jobs, n)
		ctx, cancel := context.WithTimeout(b.Ctx, 2*time.Minute)
		start := make(chan struct{})
		commit := make(chan struct{})
		var ended sync.WaitGroup // the completions of the last round, ended and still open
		var wg sync.WaitGroup
		errs := make(chan error, 2*n)
		for _, j := range jobs {
			wg.Add(2)
			ended.Add(1)
			go func() {
				defer wg.Done()
				<-start
				want := fmt.Sprintf(`{"job": %d}`, j.ID)
				r, err := jobq.WithAwaitBackstop(b.Worker, time.Hour).AwaitResult(ctx, j.ID)
				if err == nil && (r.State != "succeeded" || string(r.Result) != want) {
					err = fmt.Errorf("job %d: state %s, result %s, want %s", j.ID, r.State, r.Result, want)
				}
				errs <- err
			}()
			go func() {
				defer wg.Done()
				res := []engine.Completion{{Lease: j.Lease(), Result: json.RawMessage(fmt.Sprintf(`{"job": %d}`, j.ID))}}
				if !silentFirst {
					ended.Done()
					<-start
					_, err := engine.New(b.WorkerPool).CompleteAttempts(ctx, res)
					errs <- err
					return
				}
				errs <- pgx.BeginFunc(ctx, b.WorkerPool, func(tx pgx.Tx) error {
					_, err := engine.New(tx).CompleteAttempts(ctx, res)
					ended.Done()
					if err == nil {
						<-commit
					}
					return err
				})
			}()
		}
		ended.Wait()
		close(start)
		if silentFirst {
			// Commit once every awaiter holds the done doorbell (polled: how long it takes is
			// the machine's business, not the test's).
			for held := 0; held < n; time.Sleep(5 * time.Millisecond) {
				require.NoError(t, ctx.Err(), "the awaiters never all held the done doorbell")
				require.NoError(t, b.Admin.QueryRow(ctx, `SELECT count(*) FROM pg_locks l
					WHERE l.locktype = 'advisory' AND l.classid = 1785790468 AND l.objid = 0 AND l.granted
					  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&held))
			}
			close(commit)
		}
		wg.Wait()
		cancel()
		close(errs)
		for err := range errs {
			require.NoError(t, err, "round %d", round)
		}
		require.Len(t, ids, n)
		require.Zero(t, b.Count(t, `SELECT count(*) FROM pg_locks l WHERE l.locktype = 'advisory' AND l.classid IN (1785790467, 1785790468)
			AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`),
			"round %d: every awaiter let go of the done doorbell", round)
	}
}

// TestResultIsFencedUnderRacingCompletions: 50 jobs each lost their first lease (rescued and
// claimed again by another worker); the zombie and the current worker complete every job at the
// same moment on 100 parallel connections, each with its own result. Whatever the order, every
// history row keeps the current worker's result, the zombie's completions are all lease_lost,
// and each job ended exactly once.
func TestResultIsFencedUnderRacingCompletions(t *testing.T) {
	t.Parallel()
	const n = 50
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: 2*n + 2})
	b.Define(t, "task")
	ids := b.EnqueueMany(t, testbundle.ManyArgs{Count: n})
	zombie := b.Claim(t, testbundle.ClaimArgs{Worker: "zombie", Max: n})
	require.Len(t, zombie, n)
	_, err := b.Admin.Exec(b.Ctx, `UPDATE jobq.jobs SET lease_expires_at = now() - interval '1 second' WHERE id = ANY($1)`, ids)
	require.NoError(t, err)
	rescued, err := engine.New(b.WorkerPool).RescueExpired(b.Ctx, n)
	require.NoError(t, err)
	require.Len(t, rescued, n)
	b.MakeDue(t, ids...)
	current := b.Claim(t, testbundle.ClaimArgs{Worker: "current", Max: n})
	require.Len(t, current, n)

	start := make(chan struct{})
	var wg sync.WaitGroup
	outcomes := make(chan string, 2*n)
	errs := make(chan error, 2*n)
	for _, set := range [][]jobq.Job{zombie, current} {
		for _, j := range set {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				res := json.RawMessage(fmt.Sprintf(`{"by": %q}`, j.LeaseToken))
				outs, err := engine.New(b.WorkerPool).CompleteAttempts(b.Ctx, []engine.Completion{{Lease: j.Lease(), Result: res}})
				if err != nil {
					errs <- err
					return
				}
				outcomes <- fmt.Sprintf("%d %s %s", j.ID, j.LeaseToken, outs[0].Outcome)
			}()
		}
	}
	close(start)
	wg.Wait()
	close(errs)
	close(outcomes)
	for err := range errs {
		require.NoError(t, err)
	}
	currentToken := map[int64]string{}
	for _, j := range current {
		currentToken[j.ID] = j.LeaseToken
	}
	got := map[string]int{}
	for o := range outcomes {
		var id int64
		var token, outcome string
		_, err := fmt.Sscanf(o, "%d %s %s", &id, &token, &outcome)
		require.NoError(t, err)
		if token == currentToken[id] {
			require.Equal(t, "succeeded", outcome, "the current lease of job %d", id)
		} else {
			require.Equal(t, "lease_lost", outcome, "the zombie's lease of job %d", id)
		}
		got[outcome]++
	}
	require.Equal(t, map[string]int{"succeeded": n, "lease_lost": n}, got)
	require.Equal(t, n, b.Count(t, `SELECT count(*) FROM jobq.job_history WHERE id = ANY($1) AND state = 'succeeded'
		AND result = jsonb_build_object('by', lease_token::text)`, ids),
		"every history row keeps the result given under its own (current) lease token")
}
