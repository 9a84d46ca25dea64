package jobqtest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/jobqtest"
	"github.com/jobqdev/jobq/operator"
	"github.com/jobqdev/jobq/runner"
)

// recordT records a helper's failure instead of ending the test; Fatalf stops the helper's
// goroutine as testing.T does.
type recordT struct{ failure string }

func (r *recordT) Helper() {}
func (r *recordT) Fatalf(format string, args ...any) {
	r.failure = fmt.Sprintf(format, args...)
	panic(r)
}

// failure runs fn with a recordT and returns the failure it reported ("" when none).
func failure(fn func(t jobqtest.T)) (msg string) {
	r := &recordT{}
	defer func() {
		if p := recover(); p != nil {
			if p != r {
				panic(p)
			}
			msg = r.failure
		}
	}()
	fn(r)
	return ""
}

const store = "3f2c1a9e-5b7d-4c8e-9f00-112233445566"

type bundle struct {
	ctx    context.Context
	pool   *pgxpool.Pool
	client *jobq.Client
}

func setup(t *testing.T) *bundle {
	t.Helper()
	db := dbtest.New(t)
	b := &bundle{ctx: t.Context(), pool: db.Pool(t, "postgres", 4)}
	b.client = jobq.NewClient(b.pool)
	for _, def := range []jobq.TaskDefinition{
		{Name: "mail", Scope: jobq.ScopeSystem, AppEnqueue: true},
		{Name: "other", Scope: jobq.ScopeSystem, AppEnqueue: true},
		{Name: "store-task", Scope: jobq.ScopeStore},
	} {
		require.NoError(t, b.client.DefineTask(b.ctx, def))
	}
	return b
}

func (b *bundle) enqueue(t *testing.T, task string, payload any, opts jobq.EnqueueOptions) int64 {
	t.Helper()
	id, err := b.client.Enqueue(b.ctx, task, payload, opts)
	require.NoError(t, err)
	return id
}

func (b *bundle) state(t *testing.T, id int64) string {
	t.Helper()
	job, err := operator.New(b.pool).Job(b.ctx, id)
	require.NoError(t, err)
	return job.State
}

func handler(err error) runner.Handler {
	return runner.HandlerFunc(func(context.Context, *jobq.Job) error { return err })
}

func TestRequireEnqueued(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id := b.enqueue(t, "mail", map[string]any{"to": "ada@example.com", "lines": []int{1, 2}}, jobq.EnqueueOptions{Queue: "post", JobKey: "mail:ada"})

	t.Run("MatchesByContainment", func(t *testing.T) {
		got := jobqtest.RequireEnqueued(t, b.pool, "mail", map[string]any{"to": "ada@example.com"}, jobqtest.Options{})
		require.Equal(t, id, got.ID)
		require.Equal(t, id, jobqtest.RequireEnqueued(t, b.pool, "mail", nil,
			jobqtest.Options{Queue: "post", JobKey: "mail:ada", State: "queued"}).ID)
		jobqtest.RequireNotEnqueued(t, b.pool, "mail", map[string]any{"to": "bob@example.com"}, jobqtest.Options{})
		jobqtest.RequireNotEnqueued(t, b.pool, "other", nil, jobqtest.Options{})
	})

	t.Run("FailsNamingTheLiveJobs", func(t *testing.T) {
		msg := failure(func(rt jobqtest.T) {
			jobqtest.RequireEnqueued(rt, b.pool, "mail", map[string]any{"to": "bob@example.com"}, jobqtest.Options{})
		})
		require.Contains(t, msg, `no live job of task "mail" with a payload containing {"to":"bob@example.com"}`)
		require.Contains(t, msg, fmt.Sprintf("job %d (queued, queue post)", id))
		for _, opts := range []jobqtest.Options{{Queue: "default"}, {JobKey: "mail:bob"}, {State: "running"}, {StoreID: store}} {
			require.NotEmpty(t, failure(func(rt jobqtest.T) { jobqtest.RequireEnqueued(rt, b.pool, "mail", nil, opts) }), "%+v", opts)
		}
		msg = failure(func(rt jobqtest.T) { jobqtest.RequireNotEnqueued(rt, b.pool, "mail", nil, jobqtest.Options{}) })
		require.Contains(t, msg, fmt.Sprintf("found job %d (queued)", id))
	})
}

func TestRunJob(t *testing.T) {
	t.Parallel()

	t.Run("OnlyThatJob", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		older := b.enqueue(t, "other", nil, jobq.EnqueueOptions{})
		id := b.enqueue(t, "mail", map[string]int{"n": 1}, jobq.EnqueueOptions{Priority: 5})
		var ran int64
		res := jobqtest.RunJob(t, b.ctx, b.pool, runner.HandlerFunc(func(_ context.Context, job *jobq.Job) error {
			ran = job.ID
			return nil
		}), id)
		require.Equal(t, id, ran)
		require.Equal(t, "succeeded", res.Outcome)
		require.Equal(t, "succeeded", b.state(t, id))
		require.Equal(t, "queued", b.state(t, older), "the queue's other job is untouched")
	})

	t.Run("VerdictsAsTheRunner", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		for _, c := range []struct {
			name    string
			err     error
			outcome string
		}{
			{"Retry", errors.New("smtp down"), "retry_pending"},
			{"RetryIn", runner.RetryIn(errors.New("429"), time.Hour), "retry_pending"},
			{"Permanent", runner.WithCode(runner.Permanent(errors.New("bad address")), "BAD_ADDRESS"), "dead"},
			{"Snooze", runner.Snooze(time.Hour), "queued"},
		} {
			id := b.enqueue(t, "mail", map[string]string{"case": c.name}, jobq.EnqueueOptions{})
			res := jobqtest.RunJob(t, b.ctx, b.pool, handler(c.err), id)
			require.Equal(t, c.outcome, res.Outcome, c.name)
			require.Equal(t, c.outcome, b.state(t, id), c.name)
			require.ErrorIs(t, res.Err, c.err, c.name)
		}
		dead, err := operator.New(b.pool).Jobs(b.ctx, operator.JobFilter{State: "dead"})
		require.NoError(t, err)
		require.Len(t, dead, 1)
		require.Equal(t, jobqPtr("BAD_ADDRESS"), dead[0].ErrorCode)

		id := b.enqueue(t, "mail", nil, jobq.EnqueueOptions{})
		res := jobqtest.RunJob(t, b.ctx, b.pool, runner.HandlerFunc(func(context.Context, *jobq.Job) error { panic("boom") }), id)
		require.Equal(t, "retry_pending", res.Outcome)
		require.ErrorContains(t, res.Err, "panic: boom")
	})

	t.Run("RefusesAJobThatIsNotDue", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		later := b.enqueue(t, "mail", nil, jobq.EnqueueOptions{Delay: time.Hour})
		require.Contains(t, failure(func(rt jobqtest.T) { jobqtest.RunJob(rt, b.ctx, b.pool, handler(nil), later) }),
			fmt.Sprintf("job %d is not due", later))
		require.Contains(t, failure(func(rt jobqtest.T) { jobqtest.RunJob(rt, b.ctx, b.pool, handler(nil), later+100) }),
			"is not live")
		paused := b.enqueue(t, "mail", nil, jobq.EnqueueOptions{Queue: "paused"})
		_, err := operator.New(b.pool).PauseQueue(b.ctx, "paused")
		require.NoError(t, err)
		require.Contains(t, failure(func(rt jobqtest.T) { jobqtest.RunJob(rt, b.ctx, b.pool, handler(nil), paused) }),
			"was not claimable")
		require.Equal(t, "queued", b.state(t, paused))
	})
}

func jobqPtr(s string) *string { return &s }

func TestDrain(t *testing.T) {
	t.Parallel()

	t.Run("RunsTheDueJobsOfTheQueue", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		for i := range 3 {
			b.enqueue(t, "mail", map[string]int{"n": i}, jobq.EnqueueOptions{})
		}
		flaky := b.enqueue(t, "other", nil, jobq.EnqueueOptions{MaxAttempts: 3})
		doomed := b.enqueue(t, "other", map[string]bool{"doomed": true}, jobq.EnqueueOptions{})
		elsewhere := b.enqueue(t, "mail", nil, jobq.EnqueueOptions{Queue: "elsewhere"})
		future := b.enqueue(t, "mail", nil, jobq.EnqueueOptions{Delay: time.Hour})

		got := jobqtest.Drain(t, b.ctx, b.pool, "default", map[string]runner.Handler{
			"mail": handler(nil),
			"other": runner.HandlerFunc(func(_ context.Context, job *jobq.Job) error {
				if job.ID == doomed {
					return runner.Permanent(errors.New("no"))
				}
				return errors.New("later")
			}),
		})
		require.Equal(t, jobqtest.DrainResult{Succeeded: 3, Retried: 1, Dead: 1}, got)
		require.Equal(t, 5, got.Ran())
		require.Equal(t, "retry_pending", b.state(t, flaky))
		require.Equal(t, "queued", b.state(t, elsewhere))
		require.Equal(t, "queued", b.state(t, future))

		require.Equal(t, jobqtest.DrainResult{}, jobqtest.Drain(t, b.ctx, b.pool, "default", nil), "nothing left due")
	})

	t.Run("FailsOnATaskWithoutHandler", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		id := b.enqueue(t, "other", nil, jobq.EnqueueOptions{})
		msg := failure(func(rt jobqtest.T) {
			jobqtest.Drain(rt, b.ctx, b.pool, "default", map[string]runner.Handler{"mail": handler(nil)})
		})
		require.Contains(t, msg, fmt.Sprintf(`no handler for task "other" (job %d)`, id))
		job, err := operator.New(b.pool).Job(b.ctx, id)
		require.NoError(t, err)
		require.Equal(t, "queued", job.State, "handed back")
		require.Zero(t, job.Attempt, "without using an attempt")
	})
}
