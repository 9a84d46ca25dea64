package runner_test

import (
	"context"
	"net/http/httptest"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/engine"
	"github.com/jobqdev/jobq/runner"
)

// Issue 30: runners that share a queue claim only the tasks they have handlers for. Two runners
// on one queue, one handling task-a, the other task-b, each register their tasks and pass them
// to every claim: every job runs once, on its first attempt, on the runner that serves its task
// (before, each took the other's jobs and failed them as JOB.UNKNOWN_TASK).
func TestRunnersSharingAQueueClaimOnlyTheTasksTheyServe(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.define(t, "task-a", "task-b")

	var mu sync.Mutex
	ranOn := map[int64]string{}
	newRunner := func(id, task string) *runner.Runner {
		cfg := b.config()
		cfg.WorkerID = id
		cfg.Concurrency = 4
		r, err := runner.New(cfg)
		require.NoError(t, err)
		r.HandleFunc(task, func(_ context.Context, job *jobq.Job) error {
			mu.Lock()
			defer mu.Unlock()
			ranOn[job.ID] = id
			return nil
		})
		return r
	}
	// Jobs are waiting before either runner starts, so both find both tasks at the head of the
	// queue.
	want := map[int64]string{}
	for i := range 40 {
		task, worker := "task-a", "runner-a"
		if i%2 == 1 {
			task, worker = "task-b", "runner-b"
		}
		want[b.enqueue(t, task, nil, jobq.EnqueueOptions{})] = worker
	}
	start(t, newRunner("runner-a", "task-a"))
	stopB := start(t, newRunner("runner-b", "task-b"))

	// Until every job succeeded, or an attempt failed (a runner claimed a job it has no handler
	// for: the failure this test rules out).
	waitFor(t, waitCeiling, "every job succeeded or an attempt failed", func() bool {
		return b.count(t, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded'`) == len(want) ||
			b.count(t, `SELECT count(*) FROM jobq.job_attempts`) > 0
	})
	require.Zero(t, b.count(t, `SELECT count(*) FROM jobq.job_attempts`), "no attempt failed")
	rows, err := b.admin.Query(ctx, `SELECT id, locked_by, attempt FROM jobq.job_history`)
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var id int64
		var lockedBy string
		var attempt int
		require.NoError(t, rows.Scan(&id, &lockedBy, &attempt))
		require.Equal(t, want[id], lockedBy, "job %d ran on the runner that serves its task", id)
		require.Equal(t, 1, attempt, "job %d ran on its first attempt: no runner claimed it without a handler", id)
	}
	require.NoError(t, rows.Err())
	mu.Lock()
	require.Equal(t, want, ranOn, "each handler ran exactly its task's jobs")
	mu.Unlock()
	require.Zero(t, b.count(t, `SELECT count(*) FROM jobq.job_attempts`), "no attempt failed")

	// Each registered the tasks it serves.
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM jobq.workers WHERE id = 'runner-a' AND tasks = '{task-a}'`))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM jobq.workers WHERE id = 'runner-b' AND tasks = '{task-b}'`))

	// With runner-b stopped, a task-b job is not served: runner-a leaves it queued and the
	// engine says so.
	require.NoError(t, stopB())
	id := b.enqueue(t, "task-b", nil, jobq.EnqueueOptions{})
	ns, err := engine.New(b.admin).QueueNotServed(ctx, []string{"default"})
	require.NoError(t, err)
	require.Len(t, ns, 1)
	require.Equal(t, int64(1), ns[0].NotServed, "the task-b job is not served")
	b.enqueue(t, "task-a", nil, jobq.EnqueueOptions{})
	waitFor(t, waitCeiling, "the task-a job enqueued after it succeeded", func() bool {
		return b.count(t, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded'`) == len(want)+1
	})
	require.Equal(t, jobRow{State: "queued"}, func() jobRow { r := b.job(t, id); r.RunAtIn = 0; return r }(),
		"runner-a claimed the task-a job enqueued after the task-b one and left the task-b job queued, attempt 0")
}

// A runner without any handler claims nothing: with Once it finds nothing it could run and stops,
// and the waiting job keeps its attempts (before, it claimed the job and failed it as
// JOB.UNKNOWN_TASK). It registers that it serves no task.
func TestARunnerWithoutHandlersClaimsNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "task-a")
	id := b.enqueue(t, "task-a", nil, jobq.EnqueueOptions{})

	cfg := b.config()
	cfg.WorkerID = "runner-without-handlers"
	cfg.Once = true
	r, err := runner.New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), waitCeiling)
	defer cancel()
	require.NoError(t, r.Run(ctx))
	require.NoError(t, ctx.Err(), "Run returned on its own (once, nothing it could claim)")

	got := b.job(t, id)
	require.Equal(t, "queued", got.State)
	require.Equal(t, 0, got.Attempt, "the job was never claimed")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM jobq.workers WHERE id = 'runner-without-handlers' AND tasks = '{}'`),
		"it registered that it serves no task")
}

// Issue 30, first bullet: a worker declares its built-in tasks at every start, and that undid an
// operator's app_enqueue => true. A real runner declares ping (app_enqueue false) and stops; an
// operator opens ping to applications; the runner starts again and declares ping as before; the
// operator's word stands, and an application may enqueue ping.
func TestARunnersRestartKeepsTheAppEnqueueAnOperatorSet(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ping := jobq.TaskDefinition{Name: "ping", Scope: jobq.ScopeSystem, Description: "built-in: completes at once", Queue: "ping"}
	run := func() {
		cfg := b.config()
		cfg.WorkerID = "restarting-runner"
		cfg.Queues = []string{"ping"}
		cfg.Tasks = []jobq.TaskDefinition{ping}
		r, err := runner.New(cfg)
		require.NoError(t, err)
		r.HandleFunc("ping", func(context.Context, *jobq.Job) error { return nil })
		stop := start(t, r)
		require.NoError(t, stop())
	}
	appEnqueue := func() bool {
		var v bool
		require.NoError(t, b.admin.QueryRow(ctx, `SELECT app_enqueue FROM jobq.tasks WHERE name = 'ping'`).Scan(&v))
		return v
	}

	run()
	require.False(t, appEnqueue(), "the runner declared ping closed to applications")

	operator := jobq.NewClient(b.db.Pool(t, "jobq_operator", 1))
	opened := ping
	opened.AppEnqueue = true
	require.NoError(t, operator.DefineTask(ctx, opened))
	require.True(t, appEnqueue())

	run() // the restart: the runner declares ping again, app_enqueue false
	require.True(t, appEnqueue(), "the runner's declaration kept the operator's app_enqueue")
	_, err := jobq.NewClient(b.db.Pool(t, "jobq_app", 1)).Enqueue(ctx, "ping", nil, jobq.EnqueueOptions{})
	require.NoError(t, err, "an application may enqueue ping after the restart")
}

// The runner's /metrics exports, per served queue, the waiting jobs no live worker serves
// (jobq_jobs_not_served, from jobq.queue_not_served) and how long the oldest due one has waited:
// a job of a task this runner has no handler for, and no other worker serves, shows there.
func TestTheRunnerExportsTheJobsNoLiveWorkerServes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "served-task", "orphan-task")
	cfg := b.config()
	r, err := runner.New(cfg)
	require.NoError(t, err)
	r.HandleFunc("served-task", func(context.Context, *jobq.Job) error { return nil })
	srv := httptest.NewServer(r.HTTPHandler())
	t.Cleanup(srv.Close)
	start(t, r)

	require.Contains(t, scrape(t, srv), `jobq_jobs_not_served{queue="default"} 0`)
	b.enqueue(t, "orphan-task", nil, jobq.EnqueueOptions{RunAt: dbNow(t, b.admin).Add(-90 * time.Second)})
	served := b.enqueue(t, "served-task", nil, jobq.EnqueueOptions{})
	b.waitState(t, served, "succeeded")

	body := scrape(t, srv)
	require.Contains(t, body, `jobq_jobs_not_served{queue="default"} 1`)
	m := regexp.MustCompile(`(?m)^jobq_jobs_not_served_oldest_seconds\{queue="default"\} (\S+)$`).FindStringSubmatch(body)
	require.NotNil(t, m, body)
	age, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	require.InDelta(t, 90, age, 15, "age of the oldest due job not served, from the database")
}
