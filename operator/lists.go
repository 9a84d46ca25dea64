package operator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/jobqdev/jobq"
)

// Seconds is a duration that JSON writes as a number of seconds (the CLI's --json form).
type Seconds time.Duration

// MarshalJSON writes the duration in seconds.
func (s Seconds) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(s).Seconds()) }

// Duration is s as a time.Duration.
func (s Seconds) Duration() time.Duration { return time.Duration(s) }

// seconds is a SQL interval as Seconds, nil when NULL; a month counts 30 days.
func seconds(iv pgtype.Interval) *Seconds {
	if !iv.Valid {
		return nil
	}
	d := Seconds(time.Duration(iv.Microseconds)*time.Microsecond +
		time.Duration(iv.Days)*24*time.Hour + time.Duration(iv.Months)*30*24*time.Hour)
	return &d
}

// list runs a SQL call that returns rows and collects them with scan: an empty list, never nil,
// when there is none.
func list[T any](ctx context.Context, o *Operator, name string, scan pgx.RowToFunc[T], sql string, args ...any) ([]T, error) {
	rows, err := o.db.Query(ctx, sql, args...)
	if err != nil {
		return nil, wrap(err, name)
	}
	out, err := pgx.CollectRows(rows, scan)
	if err != nil {
		return nil, wrap(err, name)
	}
	if out == nil {
		out = []T{}
	}
	return out, nil
}

// ---- queues ----

// Queue is one row of jobq.queue_list: a queue (and store, when one is counted) with its pause,
// its live jobs, its recent outcomes, its wait and run percentiles, its flow controls and whether
// a live worker serves it. jobq queues list, jobq stats and the dashboard's overview all show
// these rows, so they agree by construction.
type Queue struct {
	Queue        string     `json:"queue"`
	StoreID      *string    `json:"store_id"` // the store counted; nil: every store
	Paused       bool       `json:"paused"`
	PausedAt     *time.Time `json:"paused_at"`
	PausedBy     *string    `json:"paused_by"`
	Queued       int64      `json:"queued"`        // queued and due now
	RetryPending int64      `json:"retry_pending"` // waiting for a retry, due or not
	Running      int64      `json:"running"`
	Scheduled    int64      `json:"scheduled"` // queued with a future run_at
	// Blocked counts the jobs waiting for their parents or their sequence (docs/dependencies.md):
	// live, but neither queued nor scheduled.
	Blocked int64 `json:"blocked"`
	// OldestDueAge is how long the oldest due job (queued or retry_pending) has waited; nil when
	// none is due.
	OldestDueAge       *Seconds `json:"oldest_due_age_seconds"`
	DeadLastHour       int64    `json:"dead_last_hour"`
	DeadLastDay        int64    `json:"dead_last_day"`
	SucceededLastHour  int64    `json:"succeeded_last_hour"`
	SucceededPerMinute float64  `json:"succeeded_per_minute"`
	WaitP50            *Seconds `json:"wait_p50_seconds"`
	WaitP95            *Seconds `json:"wait_p95_seconds"`
	RunP50             *Seconds `json:"run_p50_seconds"`
	RunP95             *Seconds `json:"run_p95_seconds"`
	// Limits are the queue's flow controls: the concurrency and rate limits that are set, by
	// their names in jobq.queues (max_running, max_running_per_store, partition_key,
	// max_running_per_partition, max_started, started_per, max_started_per_store,
	// store_started_per; windows as PostgreSQL writes intervals, e.g. "00:01:00"), and "fair":
	// true when fair claiming is on. Nil when the queue has none.
	Limits map[string]any `json:"limits"`
	// NotServed counts the waiting jobs (queued or retry_pending, due or not) whose task no live
	// worker of the queue serves; NotServedOldestAge is how long the oldest due one has waited
	// (nil when none is due).
	NotServed          int64    `json:"not_served"`
	NotServedOldestAge *Seconds `json:"not_served_oldest_age_seconds"`
	// Served says whether a live worker (active, heard from within worker_timeout) takes some of
	// the queue's tasks; false: nothing runs the queue's jobs now.
	Served bool `json:"served"`
	// CountedAt is when the live counts of the row (queued to blocked, the oldest due age, not
	// served) were taken: the count jobq.maintain keeps once the live jobs number at least the
	// setting stats_cached_above (jobq.stats_counted_at); nil when they were counted at the call.
	CountedAt *time.Time `json:"counted_at"`
}

// QueueFilter selects the rows of Queues; the zero value is every queue, every store.
type QueueFilter struct {
	Queue   string
	StoreID string // a uuid: count this store's jobs only
}

// Queues reads jobq.queue_list(queue, store_id): every queue the engine knows, by name, with the
// counts of jobq.stats, and in the same statement when its live counts were taken
// (jobq.stats_counted_at). An application reads its session's store only.
func (o *Operator) Queues(ctx context.Context, f QueueFilter) ([]Queue, error) {
	return list(ctx, o, "queue_list", func(row pgx.CollectableRow) (Queue, error) {
		var q Queue
		var oldest, w50, w95, r50, r95, notServed pgtype.Interval
		err := row.Scan(&q.Queue, &q.StoreID, &q.Paused, &q.PausedAt, &q.PausedBy, &q.Queued, &q.RetryPending, &q.Running,
			&q.Scheduled, &q.Blocked, &oldest, &q.DeadLastHour, &q.DeadLastDay, &q.SucceededLastHour, &q.SucceededPerMinute,
			&w50, &w95, &r50, &r95, &q.Limits, &q.NotServed, &notServed, &q.Served, &q.CountedAt)
		q.OldestDueAge, q.WaitP50, q.WaitP95, q.RunP50, q.RunP95, q.NotServedOldestAge =
			seconds(oldest), seconds(w50), seconds(w95), seconds(r50), seconds(r95), seconds(notServed)
		return q, err
	}, `SELECT queue, store_id::text, paused, paused_at, paused_by, queued, retry_pending, running,
		scheduled, blocked, oldest_due_age, dead_last_hour, dead_last_day, succeeded_last_hour, succeeded_per_minute::float8,
		wait_p50, wait_p95, run_p50, run_p95, limits, not_served, not_served_oldest_age, served,
		jobq.stats_counted_at($2::uuid)
		FROM jobq.queue_list($1, $2::uuid)`, nullString(f.Queue), nullString(f.StoreID))
}

// Minute is one minute of a queue's last hour (jobq.queue_minutes): the jobs that finished then
// as succeeded or dead, and the attempts that failed.
type Minute struct {
	Queue                   string    `json:"queue"`
	At                      time.Time `json:"minute"`
	Succeeded, Dead, Failed int64
}

// Minutes reads jobq.queue_minutes(since): per queue and minute, the jobs finished and the
// attempts failed since since (the dashboard's chart). An application counts its store only.
func (o *Operator) Minutes(ctx context.Context, since time.Time) ([]Minute, error) {
	return list(ctx, o, "queue_minutes", func(row pgx.CollectableRow) (Minute, error) {
		var m Minute
		err := row.Scan(&m.Queue, &m.At, &m.Succeeded, &m.Dead, &m.Failed)
		return m, err
	}, `SELECT queue, minute, succeeded, dead, failed FROM jobq.queue_minutes($1)`, since)
}

// ---- jobs ----

// JobFilter selects the jobs of Jobs; every field's zero value does not filter.
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

// Job is a job as an operator reads it, live (jobq.jobs) or finished (jobq.job_history).
type Job struct {
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
	// Attempts are the job's failed attempts (jobq.job_attempt_list), oldest first; filled by
	// Job only (Jobs leaves it nil). A succeeded attempt has none: the job itself holds it.
	Attempts []Attempt `json:"attempts,omitempty" db:"-"`
	// Last is what its running or last attempt keeps (jobq.job_list); filled by Job only.
	Last *LastAttempt `json:"last_attempt,omitempty" db:"-"`
	// Workflow is its dependencies, dependents and sequence (jobq.job_workflow), empty for a job
	// without any; filled by Job only (docs/dependencies.md).
	Workflow []WorkflowLink `json:"workflow,omitempty" db:"-"`
}

// WorkflowLink is one row of jobq.job_workflow: a dependency (a parent, with its state and
// whether the edge still waits), a dependent (a job enqueued depending on this one), or the
// sequence (key, position, on_sequence_failure, hold).
type WorkflowLink struct {
	Relation string  `json:"relation" db:"relation"` // dependency, dependent or sequence
	OtherID  *int64  `json:"other_id,omitempty" db:"other_id"`
	State    *string `json:"state,omitempty" db:"state"`
	Detail   *string `json:"detail,omitempty" db:"detail"`
}

// LastAttempt is what a job's running attempt reported, or what its last attempt (a succeeded
// one too) kept: docs/observability.md.
type LastAttempt struct {
	Progress    json.RawMessage `json:"progress,omitempty"`     // its latest progress (jobq.set_progress)
	Output      *string         `json:"output,omitempty"`       // a finished job's: the tail of its output
	LogRef      *string         `json:"log_ref,omitempty"`      // a finished job's: where its logs are
	ExitCode    *int32          `json:"exit_code,omitempty"`    // a finished job's command's exit status
	LeaderEpoch *int64          `json:"leader_epoch,omitempty"` // a finished job's: jobq.leader.epoch then
	Traceparent *string         `json:"traceparent,omitempty"`  // the trace context it was enqueued under
}

// Attempt is one failed attempt of a job (jobq.job_attempt_list): who ran it, when, and how it
// ended. The engine keeps the newest 25 of a job and prunes them with history
// (history_retention).
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
	// Progress, ExitCode and LeaderEpoch: its last progress, a command's exit status and
	// jobq.leader.epoch when it was recorded (docs/observability.md).
	Progress    json.RawMessage `json:"progress,omitempty" db:"progress"`
	ExitCode    *int32          `json:"exit_code,omitempty" db:"exit_code"`
	LeaderEpoch *int64          `json:"leader_epoch,omitempty" db:"leader_epoch"`
}

// jobColumns are the columns of jobq.job_list that Job holds.
const jobColumns = `SELECT id, task, queue, state, store_id::text AS store_id, priority, attempt, max_attempts, job_key,
	run_at, reason, last_error, error_code, locked_by, created_at, updated_at, finished_at, payload
	FROM jobq.job_list($1, $2, $3, $4::uuid, $5, $6, $7, $8, $9)`

// Jobs reads live and finished jobs matching f, newest first (jobq.job_list; an application reads
// its own store's jobs through row-level security).
func (o *Operator) Jobs(ctx context.Context, f JobFilter) ([]Job, error) {
	limit := f.Limit
	if limit == 0 {
		limit = 50
	}
	return list(ctx, o, "job_list", pgx.RowToStructByName[Job], jobColumns, nullString(f.Queue), nullString(f.Task),
		nullString(f.State), nullString(f.StoreID), nullString(f.Key), nullTime(f.Since), nullInt64(f.Before), limit, nil)
}

// Job reads job id, live or finished, with its failed attempts (Attempts, oldest first; empty,
// not nil, when it has none): the job pages of the CLI and the dashboard. Errors:
// jobq.ErrNotFound when no such job is visible.
func (o *Operator) Job(ctx context.Context, id int64) (Job, error) {
	rows, err := o.db.Query(ctx, jobColumns, nil, nil, nil, nil, nil, nil, nil, 1, id)
	if err != nil {
		return Job{}, wrap(err, "job_list")
	}
	job, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Job])
	if errors.Is(err, pgx.ErrNoRows) {
		return Job{}, fmt.Errorf("jobq: job_list: job %d: %w", id, jobq.ErrNotFound)
	}
	if err != nil {
		return Job{}, wrap(err, "job_list")
	}
	job.Attempts, err = list(ctx, o, "job_attempt_list", pgx.RowToStructByName[Attempt],
		`SELECT attempt, worker, started_at, ended_at, reason, error, error_code, output, log_ref, progress, exit_code, leader_epoch
		FROM jobq.job_attempt_list($1)`, id)
	if err != nil {
		return Job{}, err
	}
	var last LastAttempt
	err = o.db.QueryRow(ctx, `SELECT progress, output, log_ref, exit_code, leader_epoch, traceparent
		FROM jobq.job_list(id => $1, max_rows => 1)`, id).
		Scan(&last.Progress, &last.Output, &last.LogRef, &last.ExitCode, &last.LeaderEpoch, &last.Traceparent)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return Job{}, wrap(err, "job_list")
	}
	job.Last = &last
	job.Workflow, err = list(ctx, o, "job_workflow", pgx.RowToStructByName[WorkflowLink],
		`SELECT relation, other_id, state, detail FROM jobq.job_workflow($1)`, id)
	if err != nil {
		return Job{}, err
	}
	return job, nil
}

// Hold is one rule that holds a job now (jobq.explain_job): Rule is one of running, scheduled,
// backoff, queue_paused, queue_limit, store_limit, partition_limit, rate_limit,
// store_rate_limit, not_served, or finished for a job in the history; Detail says it in words,
// with the figures.
type Hold struct {
	Rule   string `json:"rule"`
	Detail string `json:"detail"`
}

// ExplainJob says why job id waits: one Hold per rule that holds it now, none when a claim of its
// queue may take it (jobq.explain_job). Operators and viewers explain every job; an application
// only its store's. Errors: jobq.ErrNotFound (no such job, or one the caller does not see).
func (o *Operator) ExplainJob(ctx context.Context, id int64) ([]Hold, error) {
	return list(ctx, o, "explain_job", pgx.RowToStructByName[Hold], `SELECT rule, detail FROM jobq.explain_job($1)`, id)
}

// ---- workers, leader, schedules, settings, audit ----

// Worker is one registered runner (jobq.worker_list).
type Worker struct {
	ID             string    `json:"id"`
	Node           string    `json:"node"`
	PID            *int32    `json:"pid"`
	Queues         []string  `json:"queues"`
	Tasks          []string  `json:"tasks"` // nil: every task (a runner registered without a list)
	Concurrency    int32     `json:"concurrency"`
	Running        int32     `json:"running"`
	State          string    `json:"state"` // active, draining, detached, lost, stopped
	Version        string    `json:"version"`
	StartedAt      time.Time `json:"started_at"`
	HeartbeatAt    time.Time `json:"heartbeat_at"`
	HeartbeatAge   Seconds   `json:"heartbeat_age_seconds"`
	StateChangedAt time.Time `json:"state_changed_at"`
	Leader         bool      `json:"leader"` // it holds an unexpired leadership lease
}

// Workers reads jobq.worker_list(state): the registered workers, oldest start first, only those
// in state when it is not "".
func (o *Operator) Workers(ctx context.Context, state string) ([]Worker, error) {
	return list(ctx, o, "worker_list", func(row pgx.CollectableRow) (Worker, error) {
		var w Worker
		var age pgtype.Interval
		err := row.Scan(&w.ID, &w.Node, &w.PID, &w.Queues, &w.Tasks, &w.Concurrency, &w.Running, &w.State, &w.Version,
			&w.StartedAt, &w.HeartbeatAt, &age, &w.StateChangedAt, &w.Leader)
		if s := seconds(age); s != nil {
			w.HeartbeatAge = *s
		}
		return w, err
	}, `SELECT id, node, pid, queues, tasks, concurrency, running, state, version,
		started_at, heartbeat_at, heartbeat_age, state_changed_at, leader FROM jobq.worker_list($1)`, nullString(state))
}

// Leader is the leadership (jobq.leader_state): its holder, fencing epoch and lease; Held says
// whether the holder's lease is unexpired.
type Leader struct {
	Holder         *string    `json:"holder" db:"holder"`
	Epoch          int64      `json:"epoch" db:"epoch"`
	AcquiredAt     *time.Time `json:"acquired_at" db:"acquired_at"`
	LeaseExpiresAt *time.Time `json:"lease_expires_at" db:"lease_expires_at"`
	Held           bool       `json:"held" db:"held"`
}

// Leader reads jobq.leader_state(): the leadership, epoch 0 and no holder before any runner led.
func (o *Operator) Leader(ctx context.Context) (Leader, error) {
	rows, err := o.db.Query(ctx, `SELECT holder, epoch, acquired_at, lease_expires_at, held FROM jobq.leader_state()`)
	if err != nil {
		return Leader{}, wrap(err, "leader_state")
	}
	l, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Leader])
	return l, wrap(err, "leader_state")
}

// Schedule is one cron schedule (jobq.schedule_list) with its next slots and latest runs.
type Schedule struct {
	Name              string        `json:"name" db:"name"`
	Cron              string        `json:"cron" db:"cron"`
	Timezone          string        `json:"timezone" db:"timezone"`
	Task              string        `json:"task" db:"task"`
	Queue             *string       `json:"queue" db:"queue"`
	Enabled           bool          `json:"enabled" db:"enabled"`
	PausedAt          *time.Time    `json:"paused_at" db:"paused_at"`
	PausedBy          *string       `json:"paused_by" db:"paused_by"`
	ConcurrencyPolicy string        `json:"concurrency_policy" db:"concurrency_policy"`
	NextSlotAt        *time.Time    `json:"next_slot_at" db:"next_slot_at"`
	LastSlotAt        *time.Time    `json:"last_slot_at" db:"last_slot_at"`
	LastJobID         *int64        `json:"last_job_id" db:"last_job_id"`
	Upcoming          []time.Time   `json:"upcoming" db:"upcoming"` // the next 3 slots after now
	Runs              []ScheduleRun `json:"runs" db:"runs"`         // the 5 latest runs, newest first
}

// ScheduleRun is one slot of a schedule that jobq.maintain handled (jobq.schedule_runs).
type ScheduleRun struct {
	SlotAt    time.Time `json:"slot_at"`
	Outcome   string    `json:"outcome"`
	Reason    *string   `json:"reason"`
	JobID     *int64    `json:"job_id"`
	CreatedAt time.Time `json:"created_at"`
}

// Late is how long after its slot the run was recorded (never negative).
func (r ScheduleRun) Late() time.Duration { return max(r.CreatedAt.Sub(r.SlotAt), 0) }

// Schedules reads jobq.schedule_list(): every cron schedule by name.
func (o *Operator) Schedules(ctx context.Context) ([]Schedule, error) {
	return list(ctx, o, "schedule_list", pgx.RowToStructByName[Schedule], `SELECT name, cron, timezone, task, queue, enabled,
		paused_at, paused_by, concurrency_policy, next_slot_at, last_slot_at, last_job_id, upcoming, runs FROM jobq.schedule_list()`)
}

// Setting is one engine setting (jobq.setting_list).
type Setting struct {
	Name        string    `json:"name" db:"name"`
	Kind        string    `json:"kind" db:"kind"` // interval, integer, boolean, text
	Value       string    `json:"value" db:"value"`
	Description string    `json:"description" db:"description"`
	UpdatedAt   time.Time `json:"updated_at" db:"updated_at"`
}

// Settings reads jobq.setting_list(name): every setting by name, or only name when it is not ""
// (none when no setting has that name).
func (o *Operator) Settings(ctx context.Context, name string) ([]Setting, error) {
	return list(ctx, o, "setting_list", pgx.RowToStructByName[Setting],
		`SELECT name, kind, value, description, updated_at FROM jobq.setting_list($1)`, nullString(name))
}

// AuditEntry is one row of the audit log (jobq.audit_list): who did what, when, to which job.
type AuditEntry struct {
	ID     int64           `json:"id" db:"id"`
	At     time.Time       `json:"at" db:"at"`
	Actor  string          `json:"actor" db:"actor"`
	Action string          `json:"action" db:"action"`
	JobID  *int64          `json:"job_id" db:"job_id"`
	Detail json.RawMessage `json:"detail" db:"detail"`
}

// AuditFilter selects the entries of Audit; every field's zero value does not filter.
type AuditFilter struct {
	Actor, Action string
	JobID         int64
	Since         time.Time
	Before        int64 // only ids below it (the next page)
	Limit         int   // 0 = 50
}

// Audit reads jobq.audit_list: the audit log, newest first, matching f.
func (o *Operator) Audit(ctx context.Context, f AuditFilter) ([]AuditEntry, error) {
	limit := f.Limit
	if limit == 0 {
		limit = 50
	}
	return list(ctx, o, "audit_list", pgx.RowToStructByName[AuditEntry],
		`SELECT id, at, actor, action, job_id, detail FROM jobq.audit_list($1, $2, $3, $4, $5, $6)`,
		nullString(f.Actor), nullString(f.Action), nullInt64(f.JobID), nullTime(f.Since), nullInt64(f.Before), limit)
}

// EveryTask says whether w registered without a list of tasks: it serves every task of its
// queues (Tasks nil), where an empty list serves none.
func (w Worker) EveryTask() bool { return w.Tasks == nil }
