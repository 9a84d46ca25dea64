// Package jobqtest helps an application's tests assert what it enqueued and run its jobs, against
// a real database with the jobq schema (the tests' own database, not a mock).
//
// RequireEnqueued and RequireNotEnqueued look for a live job of a task whose payload contains
// some JSON; RunJob runs one job with a handler as a runner would; Drain runs the due jobs of a
// queue until none is left. Claims, completions, failures and snoozes go through the engine's
// functions (jobq.claim_job, jobq.complete_jobs, jobq.fail_jobs, jobq.snooze), so a test sees the
// same attempts, backoff, retries and dead jobs as production does; a handler's error is
// interpreted as the runner interprets it (runner.Permanent, runner.RetryIn, runner.WithCode,
// runner.Snooze; see runner.VerdictOf).
//
// The database handle must read jobq.jobs across stores and call the worker's functions: in a
// test, a connection of the database's owner or of a superuser. Every helper fails the test on
// an error.
package jobqtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/operator"
	"github.com/jobqdev/jobq/runner"
)

// T is what the helpers need of a test: a *testing.T or *testing.B satisfies it.
type T interface {
	Helper()
	Fatalf(format string, args ...any)
}

// WorkerID is the worker id the jobs of RunJob and Drain are claimed by (jobq.jobs.locked_by).
const WorkerID = "jobqtest"

// lease is how long RunJob and Drain hold a claimed job.
const lease = 5 * time.Minute

// Options narrow RequireEnqueued and RequireNotEnqueued; the zero value does not.
type Options struct {
	Queue   string // only jobs of this queue
	StoreID string // only jobs of this store (a uuid)
	JobKey  string // only jobs with this key
	State   string // only jobs in this live state: queued, retry_pending or running
}

const liveJobsQuery = `SELECT id, task, queue, state, store_id::text AS store_id, priority, attempt, max_attempts,
	job_key, run_at, reason, last_error, error_code, locked_by, created_at, updated_at,
	NULL::timestamptz AS finished_at, payload
FROM jobq.jobs
WHERE task = $1 AND payload @> $2::jsonb
  AND ($3::text IS NULL OR queue = $3) AND ($4::uuid IS NULL OR store_id = $4::uuid)
  AND ($5::text IS NULL OR job_key = $5) AND ($6::text IS NULL OR state = $6)
ORDER BY id`

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// liveJobs returns the live jobs of task whose payload contains want (nil = any payload).
func liveJobs(t T, db jobq.DB, task string, want any, opts Options) ([]operator.Job, string) {
	t.Helper()
	contains := []byte("{}")
	if want != nil {
		var err error
		if contains, err = json.Marshal(want); err != nil {
			t.Fatalf("jobqtest: payload %v: %v", want, err)
		}
	}
	rows, err := db.Query(context.Background(), liveJobsQuery, task, string(contains),
		nullable(opts.Queue), nullable(opts.StoreID), nullable(opts.JobKey), nullable(opts.State))
	if err != nil {
		t.Fatalf("jobqtest: reading jobq.jobs: %v", err)
	}
	jobs, err := pgx.CollectRows(rows, pgx.RowToStructByName[operator.Job])
	if err != nil {
		t.Fatalf("jobqtest: reading jobq.jobs: %v", err)
	}
	return jobs, string(contains)
}

// describe is a filter in words, for failure messages.
func describe(task, contains string, opts Options) string {
	parts := []string{fmt.Sprintf("task %q with a payload containing %s", task, contains)}
	for _, f := range [][2]string{{"queue", opts.Queue}, {"store", opts.StoreID}, {"key", opts.JobKey}, {"state", opts.State}} {
		if f[1] != "" {
			parts = append(parts, fmt.Sprintf("%s %q", f[0], f[1]))
		}
	}
	return strings.Join(parts, ", ")
}

// RequireEnqueued asserts that a live job (queued, retry_pending or running) of task exists whose
// payload contains wantPayload (JSON containment, @>: every key of wantPayload with an equal
// value; nil matches any payload) and that opts select, and returns the oldest such job. It fails
// the test, listing the task's live jobs, when there is none.
func RequireEnqueued(t T, db jobq.DB, task string, wantPayload any, opts Options) operator.Job {
	t.Helper()
	jobs, contains := liveJobs(t, db, task, wantPayload, opts)
	if len(jobs) == 0 {
		all, _ := liveJobs(t, db, task, nil, Options{})
		var seen []string
		for _, j := range all {
			seen = append(seen, fmt.Sprintf("  job %d (%s, queue %s): %s", j.ID, j.State, j.Queue, j.Payload))
		}
		if len(seen) == 0 {
			seen = []string{"  none"}
		}
		t.Fatalf("jobqtest: no live job of %s; live jobs of the task:\n%s",
			describe(task, contains, opts), strings.Join(seen, "\n"))
	}
	return jobs[0]
}

// RequireNotEnqueued asserts that no live job of task whose payload contains wantPayload (nil:
// any payload) and that opts select exists.
func RequireNotEnqueued(t T, db jobq.DB, task string, wantPayload any, opts Options) {
	t.Helper()
	jobs, contains := liveJobs(t, db, task, wantPayload, opts)
	if len(jobs) > 0 {
		t.Fatalf("jobqtest: want no live job of %s, found job %d (%s): %s",
			describe(task, contains, opts), jobs[0].ID, jobs[0].State, jobs[0].Payload)
	}
}

// Result is what RunJob did with a job: the verdict of its handler and what the engine made of
// it ("succeeded", "retry_pending", "dead", or "queued" after a snooze).
type Result struct {
	Job     jobq.Job // the job as claimed
	Err     error    // what the handler returned (a panic becomes an error)
	Outcome string
}

// RunJob claims job id as worker WorkerID (jobq.claim_job), runs handler on it and completes,
// fails or snoozes it as a runner would for what the handler returned. The job must be due
// (queued or retry_pending with run_at not in the future) in a queue that is not paused; the
// other due jobs of its queue are held aside with row locks while it is claimed, so they stay
// untouched. db needs two connections.
func RunJob(t T, ctx context.Context, db *pgxpool.Pool, handler runner.Handler, id int64) Result {
	t.Helper()
	job, err := claimOne(ctx, db, id)
	if err != nil {
		t.Fatalf("jobqtest: RunJob: %v", err)
	}
	res, err := run(ctx, db, handler, job)
	if err != nil {
		t.Fatalf("jobqtest: RunJob: job %d: %v", id, err)
	}
	return res
}

// claimOne claims job id and no other: a transaction locks the queue's other waiting jobs, which
// the claim skips (FOR UPDATE SKIP LOCKED), and rolls back after the claim.
func claimOne(ctx context.Context, db *pgxpool.Pool, id int64) (jobq.Job, error) {
	var queue, state string
	var due bool
	err := db.QueryRow(ctx, `SELECT queue, state, run_at <= now() FROM jobq.jobs WHERE id = $1`, id).Scan(&queue, &state, &due)
	if errors.Is(err, pgx.ErrNoRows) {
		return jobq.Job{}, fmt.Errorf("job %d is not live (not in jobq.jobs)", id)
	}
	if err != nil {
		return jobq.Job{}, err
	}
	if state == "running" || !due {
		return jobq.Job{}, fmt.Errorf("job %d is not due (state %s, due %t)", id, state, due)
	}
	hold, err := db.Begin(ctx)
	if err != nil {
		return jobq.Job{}, err
	}
	defer func() { _ = hold.Rollback(ctx) }()
	if _, err := hold.Exec(ctx, `SELECT id FROM jobq.jobs
		WHERE queue = $1 AND id <> $2 AND state IN ('queued', 'retry_pending') FOR UPDATE`, queue, id); err != nil {
		return jobq.Job{}, fmt.Errorf("holding the other jobs of queue %s: %w", queue, err)
	}
	jobs, err := jobq.NewClient(db).Claim(ctx, WorkerID, []string{queue}, 1, lease)
	if err != nil {
		return jobq.Job{}, err
	}
	if len(jobs) != 1 || jobs[0].ID != id {
		return jobq.Job{}, fmt.Errorf("job %d was not claimable (is queue %s paused?)", id, queue)
	}
	return jobs[0], nil
}

// run runs handler on a claimed job and writes its verdict.
func run(ctx context.Context, db jobq.DB, handler runner.Handler, job jobq.Job) (Result, error) {
	res := Result{Job: job, Err: call(ctx, handler, &job)}
	c := jobq.NewClient(db)
	v := runner.VerdictOf(&job, res.Err)
	var outs []jobq.Outcome
	var err error
	switch v.Kind {
	case runner.VerdictComplete:
		outs, err = c.Complete(ctx, []jobq.Lease{job.Lease()})
	case runner.VerdictSnooze:
		outs, err = c.SnoozeMany(ctx, []jobq.Lease{job.Lease()}, v.Delay)
	default:
		outs, err = c.Fail(ctx, []jobq.Failure{v.Failure})
	}
	if err != nil {
		return res, err
	}
	if len(outs) != 1 {
		return res, fmt.Errorf("%d outcomes for one job", len(outs))
	}
	res.Outcome = outs[0].Outcome
	if res.Outcome == "lease_lost" {
		return res, fmt.Errorf("the lease was lost while the handler ran")
	}
	return res, nil
}

// call runs the handler, turning a panic into an error as a runner does.
func call(ctx context.Context, h runner.Handler, job *jobq.Job) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return h.Work(ctx, job)
}

// DrainResult counts what Drain did, by the engine's outcome of each run.
type DrainResult struct {
	Succeeded int // completed
	Retried   int // failed with attempts left: retry_pending (due later, after the backoff)
	Dead      int // failed for good
	Snoozed   int // snoozed (queued again without using an attempt)
}

// Ran is the number of handler runs.
func (r DrainResult) Ran() int { return r.Succeeded + r.Retried + r.Dead + r.Snoozed }

// maxDrainRuns bounds Drain, so a handler that snoozes for 0 forever fails the test instead of
// spinning.
const maxDrainRuns = 10000

// Drain claims the due jobs of queue one at a time as worker WorkerID and runs each with the
// handler of its task in handlers, until none is due; a job retried or snoozed into the future
// is left for later. It fails the test when a job's task has no handler and returns the counts.
func Drain(t T, ctx context.Context, db *pgxpool.Pool, queue string, handlers map[string]runner.Handler) DrainResult {
	t.Helper()
	var out DrainResult
	c := jobq.NewClient(db)
	for range maxDrainRuns {
		jobs, err := c.Claim(ctx, WorkerID, []string{queue}, 1, lease)
		if err != nil {
			t.Fatalf("jobqtest: Drain: %v", err)
		}
		if len(jobs) == 0 {
			return out
		}
		h, ok := handlers[jobs[0].Task]
		if !ok {
			// Hand the job back untouched before failing, so the database stays as it was.
			_, _ = c.SnoozeMany(ctx, []jobq.Lease{jobs[0].Lease()}, 0)
			t.Fatalf("jobqtest: Drain: no handler for task %q (job %d)", jobs[0].Task, jobs[0].ID)
		}
		res, err := run(ctx, db, h, jobs[0])
		if err != nil {
			t.Fatalf("jobqtest: Drain: job %d: %v", jobs[0].ID, err)
		}
		switch res.Outcome {
		case "succeeded":
			out.Succeeded++
		case "retry_pending":
			out.Retried++
		case "dead":
			out.Dead++
		default:
			out.Snoozed++
		}
	}
	t.Fatalf("jobqtest: Drain: queue %s still has due jobs after %d runs", queue, maxDrainRuns)
	return out
}
