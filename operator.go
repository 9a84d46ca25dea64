package jobq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The operator's acts. Each method is one call of its SQL function and needs the rights that
// function grants (most are jobq_operator's only; RetryJob and CancelJob are also an
// application's, for its own store's jobs). The CLI (cmd/jobq) calls the same functions.

// RetryJob runs a waiting job (queued or retry_pending) at once, keeping its attempts, or queues
// a dead or canceled job again with attempt 0 (jobq.retry_job, audited). It returns the job's new
// state, "queued". Errors: ErrNotFound, ErrStateConflict (the job is running or succeeded, or its
// key is held by another live job).
func (c *Client) RetryJob(ctx context.Context, id int64) (string, error) {
	var state string
	err := c.db.QueryRow(ctx, `SELECT jobq.retry_job($1)`, id).Scan(&state)
	return state, wrap(err, "retry_job")
}

// CancelJob cancels a live job, also a running one, whose lease token then stops working
// (jobq.cancel_job, audited). It returns "canceled". Errors: ErrNotFound, ErrStateConflict (the
// job has already ended).
func (c *Client) CancelJob(ctx context.Context, id int64) (string, error) {
	var state string
	err := c.db.QueryRow(ctx, `SELECT jobq.cancel_job($1)`, id).Scan(&state)
	return state, wrap(err, "cancel_job")
}

// JobHold is one rule that holds a job now (jobq.explain_job): Rule is one of running,
// scheduled, backoff, queue_paused, queue_limit, store_limit, partition_limit, rate_limit,
// store_rate_limit, not_served, or finished for a job in the history; Detail says it in words,
// with the figures.
type JobHold struct {
	Rule   string `json:"rule"`
	Detail string `json:"detail"`
}

// ExplainJob says why job id waits: one JobHold per rule that holds it now, none when a claim of
// its queue may take it (jobq.explain_job). Operators and viewers explain every job; an
// application only its store's. Errors: ErrNotFound (no such job, or one the caller does not
// see).
func (c *Client) ExplainJob(ctx context.Context, id int64) ([]JobHold, error) {
	rows, err := c.db.Query(ctx, `SELECT rule, detail FROM jobq.explain_job($1)`, id)
	if err != nil {
		return nil, wrap(err, "explain_job")
	}
	holds, err := pgx.CollectRows(rows, pgx.RowToStructByName[JobHold])
	if err != nil {
		return nil, wrap(err, "explain_job")
	}
	return holds, nil
}

// SetSetting changes engine setting name to value, given in the setting's kind (interval,
// integer, boolean or text), and returns the value as stored (jobq.set_setting, audited).
// Errors: ErrUnknownSetting; ErrInvalidArgument, ErrOutOfRange or ErrValueTooLong for a value
// the setting refuses.
func (c *Client) SetSetting(ctx context.Context, name, value string) (string, error) {
	var stored string
	err := c.db.QueryRow(ctx, `SELECT jobq.set_setting($1, $2)`, name, value).Scan(&stored)
	return stored, wrap(err, "set_setting")
}

// DeleteJob deletes a job from the live table or the history (jobq.delete_job, audited with the
// deleted row) and returns the state it had. Errors: ErrNotFound.
func (c *Client) DeleteJob(ctx context.Context, id int64) (string, error) {
	var state string
	err := c.db.QueryRow(ctx, `SELECT jobq.delete_job($1)`, id).Scan(&state)
	return state, wrap(err, "delete_job")
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
// queued. Errors: ErrOutOfRange, ErrValueTooLong.
func (c *Client) RequeueDead(ctx context.Context, opts RequeueDeadOptions) (int64, error) {
	max := opts.Max
	if max == 0 {
		max = 1000
	}
	var after *time.Time
	if !opts.FinishedAfter.IsZero() {
		after = &opts.FinishedAfter
	}
	var n int64
	err := c.db.QueryRow(ctx, `SELECT jobq.requeue_dead($1, $2, $3)`, nullString(opts.Task), after, max).Scan(&n)
	return n, wrap(err, "requeue_dead")
}

// PauseQueue stops claims of queue's jobs from the commit on; enqueue still works and the jobs
// wait (jobq.pause_queue). Any name may be paused, known or not. It returns true when the queue
// was not paused before (audited), false when nothing changed. Errors: ErrInvalidArgument,
// ErrValueTooLong.
func (c *Client) PauseQueue(ctx context.Context, queue string) (bool, error) {
	var changed bool
	err := c.db.QueryRow(ctx, `SELECT jobq.pause_queue($1)`, queue).Scan(&changed)
	return changed, wrap(err, "pause_queue")
}

// ResumeQueue makes a paused queue's due jobs claimable again and wakes its runners
// (jobq.resume_queue). It returns true when the queue was paused (audited), false when nothing
// changed. Errors: ErrInvalidArgument, ErrValueTooLong.
func (c *Client) ResumeQueue(ctx context.Context, queue string) (bool, error) {
	var changed bool
	err := c.db.QueryRow(ctx, `SELECT jobq.resume_queue($1)`, queue).Scan(&changed)
	return changed, wrap(err, "resume_queue")
}

// PauseSchedule stops jobq.maintain enqueueing the slots of schedule name; its jobs already
// enqueued stay, and re-declaring it keeps the pause (jobq.pause_schedule). It returns true when
// it was running (audited), false when already paused. Errors: ErrUnknownSchedule.
func (c *Client) PauseSchedule(ctx context.Context, name string) (bool, error) {
	var changed bool
	err := c.db.QueryRow(ctx, `SELECT jobq.pause_schedule($1)`, name).Scan(&changed)
	return changed, wrap(err, "pause_schedule")
}

// ResumeSchedule resumes a paused schedule from its next slot after now; the slots of the pause
// are not backfilled (jobq.resume_schedule). It returns true when it was paused (audited), false
// otherwise. Errors: ErrUnknownSchedule, ErrInvalidTimezone.
func (c *Client) ResumeSchedule(ctx context.Context, name string) (bool, error) {
	var changed bool
	err := c.db.QueryRow(ctx, `SELECT jobq.resume_schedule($1)`, name).Scan(&changed)
	return changed, wrap(err, "resume_schedule")
}

// RunScheduleNow enqueues one job of schedule name now, paused or not, with the schedule's task,
// queue and payload (its slot key set to now), and returns the job's id; the schedule's slots are
// unchanged (jobq.run_schedule_now, audited). Errors: ErrUnknownSchedule, ErrPayloadInvalid.
func (c *Client) RunScheduleNow(ctx context.Context, name string) (int64, error) {
	var id int64
	err := c.db.QueryRow(ctx, `SELECT jobq.run_schedule_now($1)`, name).Scan(&id)
	return id, wrap(err, "run_schedule_now")
}

// DemoteLeader takes the leadership from its holder at once: the fencing epoch grows by one and
// nobody holds it, so the old leader's maintenance is fenced until a runner acquires it again
// (jobq.demote_leader, audited). The old leader is held off for leader_ttl, so that another
// runner takes over. It returns the new epoch.
func (c *Client) DemoteLeader(ctx context.Context) (int64, error) {
	var epoch int64
	err := c.db.QueryRow(ctx, `SELECT jobq.demote_leader()`).Scan(&epoch)
	return epoch, wrap(err, "demote_leader")
}

// QueueState is one queue of QueueStates: whether it is paused and its live jobs by state.
type QueueState struct {
	Queue        string     `db:"queue"`
	Paused       bool       `db:"paused"`
	PausedAt     *time.Time `db:"paused_at"`
	PausedBy     *string    `db:"paused_by"`
	Queued       int64      `db:"queued"`        // due now
	RetryPending int64      `db:"retry_pending"` // waiting for a retry
	Running      int64      `db:"running"`
	Scheduled    int64      `db:"scheduled"` // queued with a future run_at
	// Limits are the queue's flow controls, the same object as QueueStats.Limits; nil when the
	// queue has none.
	Limits map[string]any `db:"limits"`
}

// QueueStates lists every queue the engine knows, by name, with its pause and its live jobs across
// every store (jobq.queue_states; it counts every live job, so it is an operator's view, not a
// metric to poll often).
func (c *Client) QueueStates(ctx context.Context) ([]QueueState, error) {
	rows, err := c.db.Query(ctx, `SELECT queue, paused, paused_at, paused_by, queued, retry_pending, running, scheduled, limits
		FROM jobq.queue_states()`)
	if err != nil {
		return nil, wrap(err, "queue_states")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[QueueState])
	return out, wrap(err, "queue_states")
}

// JobFilter selects the jobs of ListJobs; every field's zero value does not filter.
type JobFilter struct {
	Queue   string
	Task    string
	State   string    // queued, running, retry_pending, succeeded, dead or canceled
	StoreID string    // a uuid
	Key     string    // the job key
	Since   time.Time // changed (or, for a finished job, finished) at or after
	Before  int64     // only ids below it: the next page after a page that ended at Before (0 = none)
	Limit   int       // 0 = 50
}

// JobInfo is a job as an operator reads it, live (jobq.jobs) or finished (jobq.job_history).
type JobInfo struct {
	ID          int64           `json:"id" db:"id"`
	Task        string          `json:"task" db:"task"`
	Queue       string          `json:"queue" db:"queue"`
	State       string          `json:"state" db:"state"`
	StoreID     *string         `json:"store_id" db:"store_id"`
	Priority    int16           `json:"priority" db:"priority"`
	Attempt     int32           `json:"attempt" db:"attempt"`
	MaxAttempts int32           `json:"max_attempts" db:"max_attempts"`
	Key         *string         `json:"key" db:"job_key"`
	RunAt       time.Time       `json:"run_at" db:"run_at"`
	Reason      *string         `json:"reason" db:"reason"`
	LastError   *string         `json:"last_error" db:"last_error"`
	ErrorCode   *string         `json:"error_code" db:"error_code"`
	LockedBy    *string         `json:"locked_by" db:"locked_by"`
	CreatedAt   time.Time       `json:"created_at" db:"created_at"`
	UpdatedAt   time.Time       `json:"updated_at" db:"updated_at"`
	FinishedAt  *time.Time      `json:"finished_at" db:"finished_at"` // nil while live
	Payload     json.RawMessage `json:"payload" db:"payload"`
	// Attempts are the job's failed attempts (jobq.job_attempts), oldest first; filled by GetJob
	// only (ListJobs leaves it nil). A succeeded attempt has none: the job itself holds it.
	Attempts []Attempt `json:"attempts,omitempty" db:"-"`
}

// Attempt is one failed attempt of a job (jobq.job_attempts): who ran it, when, and how it ended.
// The engine keeps the newest 25 of a job and prunes them with history (history_retention).
type Attempt struct {
	Attempt   int32      `json:"attempt" db:"attempt"`
	Worker    *string    `json:"worker" db:"worker"`         // the worker that held the lease
	StartedAt *time.Time `json:"started_at" db:"started_at"` // when it was claimed
	EndedAt   time.Time  `json:"ended_at" db:"ended_at"`
	Reason    string     `json:"reason" db:"reason"` // error, timed_out, orphaned, not_retryable, exhausted
	Error     *string    `json:"error" db:"error"`
	ErrorCode *string    `json:"error_code" db:"error_code"`
	Output    *string    `json:"output,omitempty" db:"output"`   // the tail of an exec task's output
	LogRef    *string    `json:"log_ref,omitempty" db:"log_ref"` // where the attempt's logs are
}

const jobInfoColumns = `id, task, queue, state, store_id::text AS store_id, priority, attempt, max_attempts, job_key,
	run_at, reason, last_error, error_code, locked_by, created_at, updated_at`

// jobInfoQuery reads live and finished jobs, newest first; $8 picks one id.
const jobInfoQuery = `SELECT * FROM (
	SELECT ` + jobInfoColumns + `, NULL::timestamptz AS finished_at, payload FROM jobq.jobs
	UNION ALL
	SELECT ` + jobInfoColumns + `, finished_at, payload FROM jobq.job_history
) j
WHERE ($1::text IS NULL OR queue = $1) AND ($2::text IS NULL OR task = $2)
  AND ($3::text IS NULL OR state = $3) AND ($4::uuid IS NULL OR store_id = $4::text)
  AND ($5::text IS NULL OR job_key = $5)
  AND ($6::timestamptz IS NULL OR coalesce(finished_at, updated_at) >= $6)
  AND ($8::bigint IS NULL OR id = $8) AND ($9::bigint IS NULL OR id < $9)
ORDER BY id DESC
LIMIT $7`

// ListJobs reads live and finished jobs matching f, newest first, from the tables jobq.jobs and
// jobq.job_history (an operator's read rights; applications read their own store's rows through
// row-level security).
func (c *Client) ListJobs(ctx context.Context, f JobFilter) ([]JobInfo, error) {
	limit := f.Limit
	if limit == 0 {
		limit = 50
	}
	var since *time.Time
	if !f.Since.IsZero() {
		since = &f.Since
	}
	var before *int64
	if f.Before > 0 {
		before = &f.Before
	}
	rows, err := c.db.Query(ctx, jobInfoQuery, nullString(f.Queue), nullString(f.Task), nullString(f.State),
		nullString(f.StoreID), nullString(f.Key), since, limit, nil, before)
	if err != nil {
		return nil, wrap(err, "list jobs")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[JobInfo])
	return out, wrap(err, "list jobs")
}

// GetJob reads job id, live or finished, with its failed attempts (Attempts, oldest first; empty,
// not nil, when it has none). Errors: ErrNotFound when no such job is visible.
func (c *Client) GetJob(ctx context.Context, id int64) (JobInfo, error) {
	rows, err := c.db.Query(ctx, jobInfoQuery, nil, nil, nil, nil, nil, nil, 1, id, nil)
	if err != nil {
		return JobInfo{}, wrap(err, "get job")
	}
	job, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[JobInfo])
	if errors.Is(err, pgx.ErrNoRows) {
		return JobInfo{}, fmt.Errorf("jobq: get job: job %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return JobInfo{}, wrap(err, "get job")
	}
	rows, err = c.db.Query(ctx, `SELECT attempt, worker, started_at, ended_at, reason, error, error_code, output, log_ref
		FROM jobq.job_attempts WHERE job_id = $1 ORDER BY ended_at, attempt`, id)
	if err != nil {
		return JobInfo{}, wrap(err, "get job attempts")
	}
	job.Attempts, err = pgx.CollectRows(rows, pgx.RowToStructByName[Attempt])
	if err != nil {
		return JobInfo{}, wrap(err, "get job attempts")
	}
	if job.Attempts == nil {
		job.Attempts = []Attempt{}
	}
	return job, nil
}

// StatsFilter selects the rows of Stats; the zero value is every queue and store.
type StatsFilter struct {
	Queue   string
	StoreID string // a uuid
}

// QueueStats is one row of jobq.stats: a queue (and store) with its live counts, recent outcomes
// and wait and run percentiles. A duration that the engine has no sample for is nil.
type QueueStats struct {
	Queue              string
	StoreID            *string
	Queued             int64
	RetryPending       int64
	Running            int64
	Scheduled          int64
	OldestDueAge       *time.Duration
	DeadLastHour       int64
	DeadLastDay        int64
	SucceededLastHour  int64
	SucceededPerMinute float64
	WaitP50            *time.Duration
	WaitP95            *time.Duration
	RunP50             *time.Duration
	RunP95             *time.Duration
	// Limits are the queue's flow controls, as jobq.queue_states shows them: the concurrency and
	// rate limits that are set, by their names in jobq.queues (max_running, max_running_per_store,
	// partition_key, max_running_per_partition, max_started, started_per, max_started_per_store,
	// store_started_per; windows as PostgreSQL writes intervals, e.g. "00:01:00"), and "fair": true
	// when fair claiming is on. Nil when the queue has none. Every caller sees them.
	Limits map[string]any
	// NotServed counts the waiting jobs (queued or retry_pending, due or not) whose task no live
	// worker of the queue serves; NotServedOldestAge is how long the oldest due one has waited
	// (nil when none is due).
	NotServed          int64
	NotServedOldestAge *time.Duration
}

// Stats reads jobq.stats(queue, store_id): per queue and store, the live jobs by state, the age of
// the oldest due job, the dead and succeeded jobs of the last hour and day, the wait and run
// percentiles, and the queue's flow controls (Limits).
func (c *Client) Stats(ctx context.Context, f StatsFilter) ([]QueueStats, error) {
	rows, err := c.db.Query(ctx, `SELECT queue, store_id::text, queued, retry_pending, running, scheduled,
		oldest_due_age, dead_last_hour, dead_last_day, succeeded_last_hour, succeeded_per_minute::float8,
		wait_p50, wait_p95, run_p50, run_p95, limits, not_served, not_served_oldest_age
		FROM jobq.stats($1, $2::uuid)`, nullString(f.Queue), nullString(f.StoreID))
	if err != nil {
		return nil, wrap(err, "stats")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (QueueStats, error) {
		var s QueueStats
		var perMinute *float64
		var oldest, w50, w95, r50, r95, notServed pgtype.Interval
		err := row.Scan(&s.Queue, &s.StoreID, &s.Queued, &s.RetryPending, &s.Running, &s.Scheduled,
			&oldest, &s.DeadLastHour, &s.DeadLastDay, &s.SucceededLastHour, &perMinute, &w50, &w95, &r50, &r95, &s.Limits,
			&s.NotServed, &notServed)
		s.NotServedOldestAge = durationOf(notServed)
		if perMinute != nil {
			s.SucceededPerMinute = *perMinute
		}
		s.OldestDueAge, s.WaitP50, s.WaitP95, s.RunP50, s.RunP95 =
			durationOf(oldest), durationOf(w50), durationOf(w95), durationOf(r50), durationOf(r95)
		return s, err
	})
	return out, wrap(err, "stats")
}

// durationOf is a SQL interval as a duration, nil when NULL; a month counts 30 days.
func durationOf(iv pgtype.Interval) *time.Duration {
	if !iv.Valid {
		return nil
	}
	d := time.Duration(iv.Microseconds)*time.Microsecond +
		time.Duration(iv.Days)*24*time.Hour + time.Duration(iv.Months)*30*24*time.Hour
	return &d
}
