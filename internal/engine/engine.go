// Package engine holds the jobq SQL engine's calls that only the runner makes: claims from claim
// positions and for the tasks it serves, lease heartbeats against the database's clock,
// completions with what an attempt left behind, worker registration and heartbeats, leadership,
// maintenance, sweeps and the queue figures of its metrics. Applications enqueue and work through
// package jobq; operators act through package operator; package runner is this package's user.
//
// An Engine is also a *jobq.Client on the same database, so the runner holds one value for both.
// Every error is mapped by internal/jobsql's FromDB (which jobq.FromDB is), the one place where
// SQLSTATEs become Go errors, so errors.Is(err, jobq.ErrLeaseLost) and the other sentinels work
// here as on a Client. The calls that share a statement with a Client method (ClaimAfter with
// Claim, HeartbeatAt with Heartbeat, CompleteAttempts with Complete) call its one implementation,
// in internal/jobsql, as the Client does.
package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/jobsql"
)

// Engine runs the runner's calls on a database handle.
type Engine struct {
	*jobq.Client
	db jobq.DB
}

// New returns an Engine that runs its statements, and its Client's, on db (the runner's pool).
func New(db jobq.DB) *Engine { return &Engine{Client: jobq.NewClient(db), db: db} }

// ClaimPosition is a place in a queue's claim order: the priority, run_at and id of a job.
type ClaimPosition struct {
	Priority int16
	RunAt    time.Time
	ID       int64
}

// PositionOf returns j's place in its queue's claim order.
func PositionOf(j *jobq.Job) ClaimPosition {
	return ClaimPosition{Priority: j.Priority, RunAt: j.RunAt, ID: j.ID}
}

// ClaimAfter claims like Client.Claim, but in each queue that after gives a position for, only
// the jobs of a higher priority than the position's and those after it in claim order; queues
// without one are claimed from their head. A claim that starts where the caller's last one
// ended does not read again the index entries of the jobs claimed before (they stay until a
// vacuum), so it stays fast while the queue's backlog drains or a snapshot is held open. It
// leaves behind the waiting jobs at or before the position (committed late by a long
// transaction, enqueued with a past run_at, a cron catch-up slot): only a claim from the head
// takes them, so a caller of ClaimAfter must also claim without positions when ClaimPassedOver
// says so (the runner asks once per Config.RescanInterval). A nil or empty after claims from the
// head.
//
// tasks are the tasks the caller serves (has handlers for): no job of another task is claimed,
// whatever its queue, and it stays queued for a worker that serves it. Nil claims every task (as
// before issue 30); an empty list is refused (ErrInvalidArgument), so a caller that serves no
// task must not claim at all.
func (e *Engine) ClaimAfter(ctx context.Context, workerID string, queues, tasks []string, max int, lease time.Duration, after map[string]ClaimPosition) ([]jobq.Job, error) {
	if len(after) == 0 {
		return jobsql.Claim(ctx, e.db, workerID, queues, tasks, max, lease, nil, nil, nil)
	}
	priority, runAt, id := positionArrays(queues, after)
	return jobsql.Claim(ctx, e.db, workerID, queues, tasks, max, lease, priority, runAt, id)
}

// ClaimPassedOver reports whether ClaimAfter with after passes over a job in queues: a due,
// waiting job of a position's priority at or before the position (committed late, enqueued with a
// past run_at, a cron catch-up slot, handed back) in a queue that is not paused. Only a claim from
// the head takes such a job. It reads only; what it costs is the walk ClaimAfter avoids, so the
// runner calls it once per Config.RescanInterval beside its claims, not before each. tasks are
// those ClaimAfter is given (nil: every task): a job of another task is no job passed over.
func (e *Engine) ClaimPassedOver(ctx context.Context, queues, tasks []string, after map[string]ClaimPosition) (bool, error) {
	priority, runAt, id := positionArrays(queues, after)
	var found bool
	err := e.db.QueryRow(ctx, `SELECT jobq.claim_passed_over($1, $2::int[], $3::timestamptz[], $4::bigint[], $5::text[])`,
		queues, priority, runAt, id, tasks).Scan(&found)
	return found, jobsql.Wrap(err, "claim_passed_over")
}

// positionArrays lays after out as claim_job's three arrays, one element per queue (NULL where
// after has no position for it).
func positionArrays(queues []string, after map[string]ClaimPosition) ([]*int32, []*time.Time, []*int64) {
	priority := make([]*int32, len(queues))
	runAt := make([]*time.Time, len(queues))
	id := make([]*int64, len(queues))
	for i, q := range queues {
		if p, ok := after[q]; ok {
			pr := int32(p.Priority)
			priority[i], runAt[i], id[i] = &pr, &p.RunAt, &p.ID
		}
	}
	return priority, runAt, id
}

// HeartbeatAt is Client.Heartbeat that also returns the database's now() of the call, the
// instant the new expiries count from: a runner maps lease_expires_at - now() onto its own
// monotonic clock (it self-fences by it) without trusting its wall clock. The time is zero when
// no lease was renewed.
func (e *Engine) HeartbeatAt(ctx context.Context, workerID string, leases []jobq.Lease, lease time.Duration) (map[int64]time.Time, time.Time, error) {
	return jobsql.Heartbeat(ctx, e.db, workerID, leases, lease)
}

// ConfirmContinuation confirms, for a detached worker, that the jobs it runs go on
// (jobq.confirm_continuation), renewing their leases to lease. One Outcome per lease, in order:
// "confirmed" (the job runs on here), "detached" (too late: the attempt failed with reason
// detached; stop the handler) or "lease_lost".
func (e *Engine) ConfirmContinuation(ctx context.Context, workerID string, leases []jobq.Lease, lease time.Duration) ([]jobq.Outcome, error) {
	ids, tokens := jobsql.LeaseArrays(leases)
	rows, err := e.db.Query(ctx, `SELECT job_id, outcome FROM jobq.confirm_continuation($1, $2, $3::text[]::uuid[], $4)`,
		workerID, ids, tokens, jobsql.Interval(lease))
	return jobsql.Outcomes(rows, err, "confirm continuation", len(leases))
}

// Completion is one succeeded attempt to report with what it left behind, kept in the job's
// jobq.job_history row as a failed attempt's are in jobq.job_attempts.
type Completion struct {
	jobq.Lease
	Output   string // the tail of its output (the last 16384 characters are kept); "" = none
	LogRef   string // where its logs are (the first 1000 characters); "" = the engine's default
	ExitCode *int   // a command's exit status; nil = none
	// Result is what the handler returned, any JSON value kept in jobq.job_history.result (at
	// most the setting max_result_bytes as JSON text, else the lease's outcome is
	// "result_too_large" and nothing is written for it); nil = none.
	Result json.RawMessage
}

// CompleteAttempts is Client.Complete for attempts that left something behind: the output's
// tail, a log reference, an exit status, a result (jobq.complete_jobs' outputs, log_refs,
// exit_codes and results). A lease whose result is above the setting max_result_bytes has the
// outcome "result_too_large": nothing was written for it and its job still runs under the lease.
func (e *Engine) CompleteAttempts(ctx context.Context, done []Completion) ([]jobq.Outcome, error) {
	n := len(done)
	leases, outputs, logRefs, codes := make([]jobq.Lease, n), make([]string, n), make([]string, n), make([]*int, n)
	var results []json.RawMessage
	for i, d := range done {
		leases[i], outputs[i], logRefs[i], codes[i] = d.Lease, d.Output, d.LogRef, d.ExitCode
		if d.Result != nil {
			if results == nil {
				results = make([]json.RawMessage, n)
			}
			results[i] = d.Result
		}
	}
	return jobsql.Complete(ctx, e.db, leases, outputs, logRefs, codes, results)
}

// HandedBack is one job HandBackUnheld returned to the queue.
type HandedBack struct {
	JobID int64
	Task  string
	Queue string
}

// HandBackUnheld hands back to the queue, without using an attempt, every job running under
// workerID (claimed since its current registration) whose lease token is not in tokens: the
// jobs of a claim that committed but whose answer never reached the worker. Call it with every
// token the worker holds, and never while one of its claims is in flight (jobq.hand_back_unheld).
func (e *Engine) HandBackUnheld(ctx context.Context, workerID string, tokens []string) ([]HandedBack, error) {
	if tokens == nil {
		tokens = []string{}
	}
	rows, err := e.db.Query(ctx, `SELECT job_id, task, queue FROM jobq.hand_back_unheld($1, $2::text[]::uuid[])`, workerID, tokens)
	if err != nil {
		return nil, jobsql.Wrap(err, "hand_back_unheld")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[HandedBack])
	return out, jobsql.Wrap(err, "hand_back_unheld")
}

// Rescue is one job swept by RescueExpired.
type Rescue struct {
	JobID    int64
	Outcome  string // retry_pending or dead
	Reason   string // orphaned or timed_out
	Task     string
	Queue    string
	StoreID  *string
	Attempt  int
	LockedBy string // the worker that lost the job
}

// RescueExpired sweeps at most batch running jobs whose lease expired or whose timeout passed.
func (e *Engine) RescueExpired(ctx context.Context, batch int) ([]Rescue, error) {
	rows, err := e.db.Query(ctx, `SELECT job_id, outcome, reason, task, queue, store_id::text, attempt, locked_by
		FROM jobq.rescue_expired($1)`, batch)
	if err != nil {
		return nil, jobsql.Wrap(err, "rescue_expired")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Rescue])
	return out, jobsql.Wrap(err, "rescue_expired")
}
