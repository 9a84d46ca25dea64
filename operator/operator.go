// Package operator is jobq's API for the people who run the queue: the one read-and-act API that
// the CLI (cmd/jobq) and the dashboard both call. Applications enqueue and runners claim through
// the root package jobq; an operator reads and acts through this one.
//
// Every list and count is one call of one SQL function (jobq.queue_list, jobq.job_list,
// jobq.worker_list, ...; docs/sql-api.md), so two screens that show the same thing read it from
// the same place and cannot disagree. Every act (retry, cancel, pause, set a limit, ...) is one
// call of its SQL function, audited there with the login as actor. Each method needs the rights
// its function grants: the acts are jobq_operator's (RetryJob and CancelJob also an application's,
// for its own store's jobs); the lists are also jobq_viewer's, and the lists of jobs, attempts
// and queues an application's, which row-level security keeps to its store.
package operator

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/jobqdev/jobq"
)

// Operator calls the operator's SQL functions on its DB. It holds no state of its own; it is safe
// for concurrent use when its DB is (a pool is; a connection or a transaction is not). Pass a
// transaction to make several acts one change (jobq queues limit does).
type Operator struct {
	db jobq.DB
}

// New returns an Operator that runs its statements on db (a *pgxpool.Pool, *pgx.Conn or pgx.Tx
// whose login has the rights of the functions it calls).
func New(db jobq.DB) *Operator { return &Operator{db: db} }

// wrap names the call that failed and maps a database error to jobq's sentinels (jobq.FromDB), so
// errors.Is(err, jobq.ErrNotFound) works on every error of this package.
func wrap(err error, doing string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("jobq: %s: %w", doing, jobq.FromDB(err))
}

// one runs a SQL call that returns one value and scans it into a T.
func one[T any](ctx context.Context, o *Operator, name, sql string, args ...any) (T, error) {
	var v T
	err := o.db.QueryRow(ctx, sql, args...).Scan(&v)
	return v, wrap(err, name)
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func nullInt64(n int64) *int64 {
	if n == 0 {
		return nil
	}
	return &n
}

// ---- jobs ----

// RetryJob runs a waiting job (queued or retry_pending) at once, keeping its attempts, or queues
// a dead or canceled job again with attempt 0 (jobq.retry_job, audited). It returns the job's new
// state, "queued". Errors: jobq.ErrNotFound, jobq.ErrStateConflict (the job is running or
// succeeded, or its key is held by another live job).
func (o *Operator) RetryJob(ctx context.Context, id int64) (string, error) {
	return one[string](ctx, o, "retry_job", `SELECT jobq.retry_job($1)`, id)
}

// CancelJob cancels a live job, also a running one, whose lease token then stops working
// (jobq.cancel_job, audited). It returns "canceled". Errors: jobq.ErrNotFound,
// jobq.ErrStateConflict (the job has already ended).
func (o *Operator) CancelJob(ctx context.Context, id int64) (string, error) {
	return one[string](ctx, o, "cancel_job", `SELECT jobq.cancel_job($1)`, id)
}

// DeleteJob deletes a job from the live table or the history (jobq.delete_job, audited with the
// deleted row) and returns the state it had. Errors: jobq.ErrNotFound.
func (o *Operator) DeleteJob(ctx context.Context, id int64) (string, error) {
	return one[string](ctx, o, "delete_job", `SELECT jobq.delete_job($1)`, id)
}

// RequeueDeadOptions filters RequeueDead. The zero value requeues at most 1000 dead jobs of any
// task, whenever they died.
type RequeueDeadOptions struct {
	Task          string    // "" = every task
	FinishedAfter time.Time // zero = any time
	Max           int       // 0 = 1000; at most 100000
}

// RequeueDead queues dead jobs again (attempt 0, due now), oldest death first, as
// jobq.requeue_dead does; a job whose key a live job holds stays dead. It returns the number
// queued. Errors: jobq.ErrOutOfRange, jobq.ErrValueTooLong.
func (o *Operator) RequeueDead(ctx context.Context, opts RequeueDeadOptions) (int64, error) {
	max := opts.Max
	if max == 0 {
		max = 1000
	}
	return one[int64](ctx, o, "requeue_dead", `SELECT jobq.requeue_dead($1, $2, $3)`,
		nullString(opts.Task), nullTime(opts.FinishedAfter), max)
}

// ---- queues ----

// PauseQueue stops claims of queue's jobs from the commit on; enqueue still works and the jobs
// wait (jobq.pause_queue). Any name may be paused, known or not. It returns true when the queue
// was not paused before (audited), false when nothing changed. Errors: jobq.ErrInvalidArgument,
// jobq.ErrValueTooLong.
func (o *Operator) PauseQueue(ctx context.Context, queue string) (bool, error) {
	return one[bool](ctx, o, "pause_queue", `SELECT jobq.pause_queue($1)`, queue)
}

// ResumeQueue makes a paused queue's due jobs claimable again and wakes its runners
// (jobq.resume_queue). It returns true when the queue was paused (audited), false when nothing
// changed. Errors: jobq.ErrInvalidArgument, jobq.ErrValueTooLong.
func (o *Operator) ResumeQueue(ctx context.Context, queue string) (bool, error) {
	return one[bool](ctx, o, "resume_queue", `SELECT jobq.resume_queue($1)`, queue)
}

// SetConcurrencyLimit sets (n non-nil) or removes (nil) the most jobs of queue running across
// every worker (jobq.set_concurrency_limit, audited; docs/flow-control.md). It returns whether
// anything changed.
func (o *Operator) SetConcurrencyLimit(ctx context.Context, queue string, n *int64) (bool, error) {
	return one[bool](ctx, o, "set_concurrency_limit", `SELECT jobq.set_concurrency_limit($1, $2)`, queue, n)
}

// SetStoreConcurrencyLimit sets or removes the most jobs of queue running per store
// (jobq.set_store_concurrency_limit).
func (o *Operator) SetStoreConcurrencyLimit(ctx context.Context, queue string, n *int64) (bool, error) {
	return one[bool](ctx, o, "set_store_concurrency_limit", `SELECT jobq.set_store_concurrency_limit($1, $2)`, queue, n)
}

// SetPartitionConcurrencyLimit sets the most jobs of queue running per value of the payload field
// key, or removes it (key "" and n nil) (jobq.set_partition_concurrency_limit).
func (o *Operator) SetPartitionConcurrencyLimit(ctx context.Context, queue, key string, n *int64) (bool, error) {
	return one[bool](ctx, o, "set_partition_concurrency_limit", `SELECT jobq.set_partition_concurrency_limit($1, $2, $3)`,
		queue, nullString(key), n)
}

// SetRateLimit sets at most n jobs of queue started in any window of per, or removes it (n nil)
// (jobq.set_rate_limit).
func (o *Operator) SetRateLimit(ctx context.Context, queue string, n *int64, per time.Duration) (bool, error) {
	return one[bool](ctx, o, "set_rate_limit", `SELECT jobq.set_rate_limit($1, $2, $3)`, queue, n, window(n, per))
}

// SetStoreRateLimit sets at most n jobs of queue started per store in any window of per, or
// removes it (n nil) (jobq.set_store_rate_limit).
func (o *Operator) SetStoreRateLimit(ctx context.Context, queue string, n *int64, per time.Duration) (bool, error) {
	return one[bool](ctx, o, "set_store_rate_limit", `SELECT jobq.set_store_rate_limit($1, $2, $3)`, queue, n, window(n, per))
}

// window is a rate limit's window as an interval, NULL when the limit is removed.
func window(n *int64, per time.Duration) pgtype.Interval {
	if n == nil {
		return pgtype.Interval{}
	}
	return pgtype.Interval{Microseconds: per.Microseconds(), Valid: true}
}

// SetFairClaiming turns fair claiming of queue on (its stores served in turn) or off
// (jobq.set_fair_claiming). It returns whether anything changed.
func (o *Operator) SetFairClaiming(ctx context.Context, queue string, fair bool) (bool, error) {
	return one[bool](ctx, o, "set_fair_claiming", `SELECT jobq.set_fair_claiming($1, $2)`, queue, fair)
}

// ---- settings ----

// SetSetting changes engine setting name to value, given in the setting's kind (interval,
// integer, boolean or text), and returns the value as stored (jobq.set_setting, audited).
// Errors: jobq.ErrUnknownSetting; jobq.ErrInvalidArgument, jobq.ErrOutOfRange or
// jobq.ErrValueTooLong for a value the setting refuses.
func (o *Operator) SetSetting(ctx context.Context, name, value string) (string, error) {
	return one[string](ctx, o, "set_setting", `SELECT jobq.set_setting($1, $2)`, name, value)
}

// ---- schedules ----

// PauseSchedule stops jobq.maintain enqueueing the slots of schedule name; its jobs already
// enqueued stay, and re-declaring it keeps the pause (jobq.pause_schedule). It returns true when
// it was running (audited), false when already paused. Errors: jobq.ErrUnknownSchedule.
func (o *Operator) PauseSchedule(ctx context.Context, name string) (bool, error) {
	return one[bool](ctx, o, "pause_schedule", `SELECT jobq.pause_schedule($1)`, name)
}

// ResumeSchedule resumes a paused schedule from its next slot after now; the slots of the pause
// are not backfilled (jobq.resume_schedule). It returns true when it was paused (audited), false
// otherwise. Errors: jobq.ErrUnknownSchedule, jobq.ErrInvalidTimezone.
func (o *Operator) ResumeSchedule(ctx context.Context, name string) (bool, error) {
	return one[bool](ctx, o, "resume_schedule", `SELECT jobq.resume_schedule($1)`, name)
}

// RunScheduleNow enqueues one job of schedule name now, paused or not, with the schedule's task,
// queue and payload (its slot key set to now), and returns the job's id; the schedule's slots are
// unchanged (jobq.run_schedule_now, audited). Its concurrency policy applies as at a cron tick:
// under forbid, while its previous run is live, nothing is enqueued (jobq.ErrScheduleOverlap);
// under replace, that run is canceled. Errors: jobq.ErrScheduleOverlap, jobq.ErrUnknownSchedule,
// jobq.ErrPayloadInvalid.
func (o *Operator) RunScheduleNow(ctx context.Context, name string) (int64, error) {
	return one[int64](ctx, o, "run_schedule_now", `SELECT jobq.run_schedule_now($1)`, name)
}

// ---- workers and the leader ----

// DrainWorker asks workerID to stop claiming and finish the jobs it holds (jobq.drain_worker,
// audited). Errors: jobq.ErrUnknownWorker.
func (o *Operator) DrainWorker(ctx context.Context, workerID string) error {
	_, err := o.db.Exec(ctx, `SELECT jobq.drain_worker($1)`, workerID)
	return wrap(err, "drain_worker")
}

// ResumeWorker undoes a drain: workerID claims again at its next heartbeat (jobq.resume_worker,
// audited). Errors: jobq.ErrUnknownWorker.
func (o *Operator) ResumeWorker(ctx context.Context, workerID string) error {
	_, err := o.db.Exec(ctx, `SELECT jobq.resume_worker($1)`, workerID)
	return wrap(err, "resume_worker")
}

// DetachWorker stops workerID claiming and rescues every lease it holds now; its late writes are
// refused (jobq.detach_worker, audited). It returns the number of leases taken. Errors:
// jobq.ErrUnknownWorker.
func (o *Operator) DetachWorker(ctx context.Context, workerID string) (int, error) {
	return one[int](ctx, o, "detach_worker", `SELECT jobq.detach_worker($1)`, workerID)
}

// DemoteLeader takes the leadership from its holder at once: the fencing epoch grows by one and
// nobody holds it, so the old leader's maintenance is fenced until a runner acquires it again
// (jobq.demote_leader, audited). The old leader is held off for leader_ttl, so that another
// runner takes over. It returns the new epoch.
func (o *Operator) DemoteLeader(ctx context.Context) (int64, error) {
	return one[int64](ctx, o, "demote_leader", `SELECT jobq.demote_leader()`)
}
