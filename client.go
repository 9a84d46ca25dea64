package jobq

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/jobqdev/jobq/internal/jobsql"
)

// DB is what a Client needs of a database handle. *pgxpool.Pool, *pgx.Conn and pgx.Tx all
// satisfy it, so an enqueue can join the caller's transaction.
type DB = jobsql.DB

// Client calls the jobq SQL engine. It holds no state of its own: every decision (what to claim,
// whether a lease is still held, when to retry) is made by the database. A Client is safe for
// concurrent use when its DB is (a pool is; a single connection or transaction is not).
type Client struct {
	db DB
	// awaitBackstop: AwaitResult's wait for a notification before it reads the job again; zero
	// is 5 s. Set only by the package's tests.
	awaitBackstop time.Duration
}

// NewClient returns a Client that runs its statements on db.
func NewClient(db DB) *Client { return &Client{db: db} }

// Job is a claimed job as the runner sees it.
type Job = jobsql.Job

// Lease is a job id with the lease token of the claim that holds it. Every write about a claimed
// job is accepted only with the current token.
type Lease = jobsql.Lease

// JobKeyMode says what an enqueue with a job key does when a live job already has the key.
type JobKeyMode string

// The job key modes; see docs/job-lifecycle.md ("Job keys") for what each does to waiting and running jobs.
const (
	JobKeyReplace       JobKeyMode = "replace"
	JobKeyPreserveRunAt JobKeyMode = "preserve_run_at"
	JobKeyUnsafeDedupe  JobKeyMode = "unsafe_dedupe"
)

// EnqueueOptions are the optional settings of one enqueue. The zero value enqueues due now with
// the task's defaults (jobq.tasks: queue, priority, max attempts, timeout, backoff) and, where
// the task declares none, the engine's: queue "default", priority 0, the setting
// default_max_attempts.
type EnqueueOptions struct {
	Queue       string        // "" = the task's queue, else "default"
	Priority    int16         // lower runs first; 0 = the task's priority, else 0
	MaxAttempts int           // 0 = task or setting default_max_attempts (25)
	JobKey      string        // "" = no key
	JobKeyMode  JobKeyMode    // "" = replace
	RunAt       time.Time     // zero = now (plus Delay)
	Delay       time.Duration // added to the database's now() when RunAt is zero
	StoreID     string        // "" = a system job, or the payload's "storeId" for a store-scoped task
	Timeout     time.Duration // 0 = the task's timeout, else none
	BackoffBase time.Duration // 0 = the task's, else setting backoff_base
	BackoffMax  time.Duration // 0 = the task's, else setting backoff_max
	// UniqueFor makes JobKey unique over a period that includes finished jobs: when a job of
	// the key (same store) was enqueued within the last UniqueFor, live in any state or finished
	// (still in jobq.job_history), its id is returned and nothing is written; otherwise the job
	// is enqueued under JobKeyMode as usual. 0 = off; at most 365 days; it needs a JobKey
	// (ErrInvalidArgument otherwise). Race-free between concurrent enqueues of the key.
	UniqueFor time.Duration
	// DependsOn are the job's parents (docs/dependencies.md): it waits, blocked, until every one
	// succeeded. Jobs of the same store, live or finished; at most 10000; not with a JobKey.
	DependsOn []int64
	// OnParentFailure is what a dead or canceled parent does to the job: "" or "cancel" (it is
	// canceled too), or "run" (it runs anyway).
	OnParentFailure string
	// SequenceKey makes the job run after every earlier job of its store and key, one at a time
	// in enqueue order, retries included. "" = none; at most 500 characters; not with a JobKey.
	SequenceKey string
	// OnSequenceFailure is what the job dying does to its sequence: "" or "hold" (the next job
	// waits until an operator requeues or deletes it), or "continue".
	OnSequenceFailure string
}

// JobSpec is one job of an EnqueueMany batch.
type JobSpec struct {
	Task    string
	Payload any
	EnqueueOptions
	// Ref names the job for the later specs of the same batch; DependsOnRefs are the Refs of
	// earlier specs it depends on (beside DependsOn's ids of existing jobs).
	Ref           string
	DependsOnRefs []string
}

// Outcome is what the engine did with one complete or fail: "succeeded", "retry_pending",
// "dead" or "lease_lost" (the write was refused because the lease is gone; nothing changed).
type Outcome = jobsql.Outcome

// Failure is one failed attempt to report. The zero value of every optional field means a
// retryable failure with the computed backoff.
type Failure struct {
	Lease
	Error     string
	ErrorCode string        // "" = none
	Fatal     bool          // true makes the job dead at once (not retryable)
	RetryIn   time.Duration // 0 = the computed backoff
	// Reason is why the attempt failed: "" (error) or "timed_out" (the handler was stopped by
	// the job's timeout). It is the job's reason when retried, and a dead job's reason unless
	// Fatal.
	Reason string
	// Output is the tail of what the attempt printed (an exec task's output), kept in
	// jobq.job_attempts.output (its last 16384 characters); "" = none.
	Output string
	// LogRef says where the attempt's logs are (a URL, a trace id), kept in
	// jobq.job_attempts.log_ref (its first 1000 characters); "" = the engine's default,
	// "workerId=<worker> jobId=<id> attempt=<n>".
	LogRef string
	// ExitCode is a command's exit status, kept in jobq.job_attempts.exit_code; nil = none.
	ExitCode *int
}

func nullInt(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func marshalPayload(payload any) ([]byte, error) {
	switch p := payload.(type) {
	case nil:
		return []byte("{}"), nil
	case json.RawMessage:
		return p, nil
	case []byte:
		return p, nil
	default:
		return json.Marshal(p)
	}
}

// Enqueue adds one job and returns its id (the existing job's id when a job key matched).
// payload is marshalled to JSON and must be an object that keeps the task's contract. The task
// must be declared (jobq.ErrUnknownTask), a store-scoped task needs a store (StoreID or the
// payload's "storeId", jobq.ErrStoreRequired) and a system task has none
// (jobq.ErrStoreNotAllowed). Unless the caller has jobq_operator's rights, the job's store must be
// the transaction's app.current_store_id, NULL for a system job (jobq.ErrTenantMismatch). When
// ctx carries an OpenTelemetry span, the job keeps its trace context (W3C traceparent and
// tracestate) and the runner's span of each attempt continues it; so does EnqueueMany's.
func (c *Client) Enqueue(ctx context.Context, task string, payload any, opts EnqueueOptions) (int64, error) {
	body, err := marshalPayload(payload)
	if err != nil {
		return 0, fmt.Errorf("jobq: enqueue %s: payload: %w", task, err)
	}
	mode := string(opts.JobKeyMode)
	if mode == "" {
		mode = string(JobKeyReplace)
	}
	var priority *int16 // NULL lets the task's priority apply
	if opts.Priority != 0 {
		priority = &opts.Priority
	}
	args := []any{task, body, nullTime(opts.RunAt), jobsql.Interval(opts.Delay), jobsql.NullString(opts.JobKey),
		mode, nullInt(opts.MaxAttempts), priority, jobsql.NullString(opts.Queue), jobsql.NullString(opts.StoreID),
		jobsql.Interval(opts.Timeout), jobsql.Interval(opts.BackoffBase), jobsql.Interval(opts.BackoffMax),
		jobsql.Interval(opts.UniqueFor), nullInt64s(opts.DependsOn), jobsql.NullString(opts.OnParentFailure),
		jobsql.NullString(opts.SequenceKey), jobsql.NullString(opts.OnSequenceFailure)}
	// The span ctx carries, if any, is the job's trace context (jobq.jobs.traceparent).
	taskArg, args := withTrace(ctx, "$1", len(args)+1, args)
	var id int64
	err = c.db.QueryRow(ctx, `
		SELECT jobq.enqueue(
			task => `+taskArg+`, payload => $2::jsonb,
			run_at => coalesce($3::timestamptz, now() + coalesce($4::interval, interval '0')),
			job_key => $5, job_key_mode => $6, max_attempts => $7, priority => $8, queue => $9,
			store_id => $10::text::uuid, timeout => $11, backoff_base => $12, backoff_max => $13,
			unique_for => $14, depends_on => $15::bigint[], on_parent_failure => $16, sequence_key => $17,
			on_sequence_failure => $18)`, args...).Scan(&id)
	if err != nil {
		return 0, jobsql.Wrap(err, "enqueue "+task)
	}
	return id, nil
}

type specJSON struct {
	Task        string          `json:"task"`
	Payload     json.RawMessage `json:"payload"`
	Queue       string          `json:"queue,omitempty"`
	RunAt       *time.Time      `json:"run_at,omitempty"`
	Priority    int16           `json:"priority,omitempty"`
	MaxAttempts int             `json:"max_attempts,omitempty"`
	JobKey      string          `json:"job_key,omitempty"`
	JobKeyMode  string          `json:"job_key_mode,omitempty"`
	StoreID     string          `json:"store_id,omitempty"`
	Timeout     string          `json:"timeout,omitempty"`
	BackoffBase string          `json:"backoff_base,omitempty"`
	BackoffMax  string          `json:"backoff_max,omitempty"`
	UniqueFor   string          `json:"unique_for,omitempty"`
	// The workflow fields (docs/dependencies.md).
	Ref               string   `json:"ref,omitempty"`
	DependsOn         []int64  `json:"depends_on,omitempty"`
	DependsOnRefs     []string `json:"depends_on_refs,omitempty"`
	OnParentFailure   string   `json:"on_parent_failure,omitempty"`
	SequenceKey       string   `json:"sequence_key,omitempty"`
	OnSequenceFailure string   `json:"on_sequence_failure,omitempty"`
}

// nullInt64s is ids as a bigint[] argument: NULL when there are none.
func nullInt64s(ids []int64) any {
	if len(ids) == 0 {
		return nil
	}
	return ids
}

// encodeSpecs is specs as the JSON array of jobq.enqueue_many (and jobq.batch_enqueue); doing
// names the call in an error.
func encodeSpecs(specs []JobSpec, doing string) ([]byte, error) {
	batch := make([]specJSON, len(specs))
	for i, s := range specs {
		body, err := marshalPayload(s.Payload)
		if err != nil {
			return nil, fmt.Errorf("jobq: %s: job %d payload: %w", doing, i+1, err)
		}
		batch[i] = specJSON{
			Task: s.Task, Payload: body, Queue: s.Queue, RunAt: nullTime(s.RunAt), Priority: s.Priority,
			MaxAttempts: s.MaxAttempts, JobKey: s.JobKey, JobKeyMode: string(s.JobKeyMode), StoreID: s.StoreID,
			Timeout: durationText(s.Timeout), BackoffBase: durationText(s.BackoffBase), BackoffMax: durationText(s.BackoffMax),
			UniqueFor: durationText(s.UniqueFor),
			Ref:       s.Ref, DependsOn: s.DependsOn, DependsOnRefs: s.DependsOnRefs, OnParentFailure: s.OnParentFailure,
			SequenceKey: s.SequenceKey, OnSequenceFailure: s.OnSequenceFailure,
		}
	}
	doc, err := json.Marshal(batch)
	if err != nil {
		return nil, fmt.Errorf("jobq: %s: %w", doing, err)
	}
	return doc, nil
}

func durationText(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprintf("%d microseconds", d.Microseconds())
}

// EnqueueMany adds all specs in one statement and returns their ids in the same order. It is all
// or nothing: one invalid spec fails the call and writes nothing; each spec is checked as Enqueue
// checks its job, so a caller without jobq_operator's rights enqueues the jobs of one store (or
// only system jobs) per call. Delay is not supported here; use RunAt.
func (c *Client) EnqueueMany(ctx context.Context, specs []JobSpec) ([]int64, error) {
	doc, err := encodeSpecs(specs, "enqueue_many")
	if err != nil {
		return nil, err
	}
	arg, args := withTrace(ctx, "$1::jsonb", 2, []any{doc})
	rows, err := c.db.Query(ctx, `SELECT id FROM jobq.enqueue_many(`+arg+`) AS id`, args...)
	if err != nil {
		return nil, jobsql.Wrap(err, "enqueue_many")
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return ids, jobsql.Wrap(err, "enqueue_many")
}

// Claim claims up to max due jobs for workerID from queues (served in the order given), each
// under a fresh lease of length lease. The jobs come back in claim order: by the position of
// their queue in queues, then priority, run_at and id.
func (c *Client) Claim(ctx context.Context, workerID string, queues []string, max int, lease time.Duration) ([]Job, error) {
	return jobsql.Claim(ctx, c.db, workerID, queues, nil, max, lease, nil, nil, nil)
}

// Heartbeat renews, in one statement, the leases workerID still holds, for another lease. It
// returns the new expiry of each renewed job; a job missing from the map has lost its lease.
func (c *Client) Heartbeat(ctx context.Context, workerID string, leases []Lease, lease time.Duration) (map[int64]time.Time, error) {
	renewed, _, err := jobsql.Heartbeat(ctx, c.db, workerID, leases, lease)
	return renewed, err
}

// Complete completes the attempts in one statement and returns one Outcome per lease, in order
// (pass them sorted by job id; the engine locks in that order):
// "succeeded", or "lease_lost" when the lease was gone (nothing changed for that job).
func (c *Client) Complete(ctx context.Context, leases []Lease) ([]Outcome, error) {
	return jobsql.Complete(ctx, c.db, leases, nil, nil, nil, nil)
}

// SetProgress records what the running attempt of lease reports of its progress, a JSON object
// of at most 65536 bytes (jobq.set_progress): the latest report is kept, and its attempt keeps
// the last one. It fails with ErrLeaseLost when the lease is gone (nothing is written),
// ErrInvalidArgument when progress is not an object and ErrValueTooLong when it is too large.
func (c *Client) SetProgress(ctx context.Context, lease Lease, progress json.RawMessage) error {
	_, err := c.db.Exec(ctx, `SELECT jobq.set_progress($1, $2::text::uuid, $3::jsonb)`, lease.JobID, lease.Token, string(progress))
	return jobsql.Wrap(err, "set_progress")
}

// Fail reports failed attempts in one statement and returns one Outcome per failure, in order:
// "retry_pending" (with the next RunAt), "dead", or "lease_lost".
func (c *Client) Fail(ctx context.Context, failures []Failure) ([]Outcome, error) {
	n := len(failures)
	ids, tokens, msgs := make([]int64, n), make([]string, n), make([]string, n)
	codes, retryable, retryIn := make([]*string, n), make([]bool, n), make([]pgtype.Interval, n)
	reasons, outputs, logRefs := make([]*string, n), make([]*string, n), make([]*string, n)
	exits := make([]*int32, n)
	for i, f := range failures {
		ids[i], tokens[i], msgs[i] = f.JobID, f.Token, f.Error
		codes[i], retryable[i], retryIn[i] = jobsql.NullString(f.ErrorCode), !f.Fatal, jobsql.Interval(f.RetryIn)
		reasons[i], outputs[i], logRefs[i], exits[i] = jobsql.NullString(f.Reason), jobsql.NullString(f.Output), jobsql.NullString(f.LogRef), jobsql.ExitCode(f.ExitCode)
	}
	rows, err := c.db.Query(ctx, `SELECT job_id, outcome, run_at FROM jobq.fail_jobs($1, $2::text[]::uuid[], $3, $4, $5, $6, $7, $8, $9, $10)`,
		ids, tokens, msgs, codes, retryable, retryIn, reasons, outputs, logRefs, exits)
	return jobsql.Outcomes(rows, err, "fail", n)
}

// Snooze puts a running job back in the queue to run after delay without using an attempt, and
// returns its new run_at. It fails with ErrLeaseLost when the lease is gone.
func (c *Client) Snooze(ctx context.Context, lease Lease, delay time.Duration) (time.Time, error) {
	var runAt time.Time
	err := c.db.QueryRow(ctx, `SELECT jobq.snooze($1, $2::text::uuid, $3)`, lease.JobID, lease.Token,
		pgtype.Interval{Microseconds: delay.Microseconds(), Valid: true}).Scan(&runAt)
	return runAt, jobsql.Wrap(err, "snooze")
}

// SnoozeMany puts running jobs back in the queue after delay in one statement, without using
// their attempts (a runner handing its jobs back at shutdown uses delay 0). One Outcome per
// lease, in order: "queued" (with RunAt) or "lease_lost".
func (c *Client) SnoozeMany(ctx context.Context, leases []Lease, delay time.Duration) ([]Outcome, error) {
	ids, tokens := jobsql.LeaseArrays(leases)
	rows, err := c.db.Query(ctx, `SELECT job_id, outcome, run_at FROM jobq.snooze_jobs($1, $2::text[]::uuid[], $3)`,
		ids, tokens, pgtype.Interval{Microseconds: delay.Microseconds(), Valid: true})
	return jobsql.Outcomes(rows, err, "snooze", len(leases))
}

// TaskScope says whether a task works across stores (system) or on one store (store).
type TaskScope string

// The task scopes.
const (
	ScopeSystem TaskScope = "system"
	ScopeStore  TaskScope = "store"
)

// TaskDefinition declares a task in jobq.tasks. Enqueue refuses a task that is not declared, a
// payload that breaks PayloadSchema, a store task without a store and a system task with one.
type TaskDefinition struct {
	Name  string    // kebab-case, e.g. "send-operator-invitation-email"
	Scope TaskScope // "" = system
	// PayloadSchema maps each payload key to its type: string, number, integer, boolean, object,
	// array, uuid, date, timestamp or any; a key ending in "?" is optional. nil = anything.
	PayloadSchema map[string]string
	// Defaults an enqueue may override; zero = none (the global defaults apply).
	MaxAttempts int
	Queue       string
	Priority    *int16
	Timeout     time.Duration
	BackoffBase time.Duration
	BackoffMax  time.Duration
	Description string
	// AppEnqueue lets application logins (members of jobq_app) enqueue this system task. The
	// default, false, leaves it to runners and operators: an application then gets
	// JOB.NOT_ALLOWED. It must be false for a store task (applications enqueue their own store's
	// store tasks anyway).
	AppEnqueue bool
}

// DefineTask declares def, or updates it when the task exists (a no-op when nothing changed).
func (c *Client) DefineTask(ctx context.Context, def TaskDefinition) error {
	scope := def.Scope
	if scope == "" {
		scope = ScopeSystem
	}
	schema := def.PayloadSchema
	if schema == nil {
		schema = map[string]string{}
	}
	doc, err := json.Marshal(schema)
	if err != nil {
		return fmt.Errorf("jobq: define_task %s: %w", def.Name, err)
	}
	_, err = c.db.Exec(ctx, `SELECT jobq.define_task(name => $1, scope => $2, payload_schema => $3::jsonb,
		max_attempts => $4, queue => $5, priority => $6, timeout => $7, backoff_base => $8, backoff_max => $9,
		description => $10, app_enqueue => $11)`,
		def.Name, string(scope), doc, nullInt(def.MaxAttempts), jobsql.NullString(def.Queue), def.Priority,
		jobsql.Interval(def.Timeout), jobsql.Interval(def.BackoffBase), jobsql.Interval(def.BackoffMax), def.Description, def.AppEnqueue)
	return jobsql.Wrap(err, "define_task "+def.Name)
}

// FanOut enqueues the store-scoped task once for every store (jobq.fan_out), in one statement:
// payload plus {"storeId": ...}, job key keyTemplate with {storeId} replaced ("" =
// "<task>:{storeId}"), under mode ("" = preserve_run_at), so running it twice adds no
// duplicates. It returns the number of jobs enqueued or merged. Only worker_runtime may call it
// (it lists every store through public.list_store_ids_for_fan_out).
func (c *Client) FanOut(ctx context.Context, task string, payload any, keyTemplate string, mode JobKeyMode) (int, error) {
	body, err := marshalPayload(payload)
	if err != nil {
		return 0, fmt.Errorf("jobq: fan_out %s: payload: %w", task, err)
	}
	if mode == "" {
		mode = JobKeyPreserveRunAt
	}
	var n int
	err = c.db.QueryRow(ctx, `SELECT jobq.fan_out($1, $2::jsonb, $3, $4)`, task, body, jobsql.NullString(keyTemplate), string(mode)).Scan(&n)
	return n, jobsql.Wrap(err, "fan_out "+task)
}

// ConcurrencyPolicy says what a schedule does when a slot comes while the job of its previous
// slot is still live (waiting or running).
type ConcurrencyPolicy string

// The concurrency policies of a schedule.
const (
	// ConcurrencyAllow runs the new slot anyway (the default).
	ConcurrencyAllow ConcurrencyPolicy = "allow"
	// ConcurrencyForbid skips the new slot (jobq.schedule_runs records it, reason forbid).
	ConcurrencyForbid ConcurrencyPolicy = "forbid"
	// ConcurrencyReplace cancels the previous job (reason replaced) and runs the new one.
	ConcurrencyReplace ConcurrencyPolicy = "replace"
)

// Backfill says which missed slots within a schedule's backfill window run after downtime.
type Backfill string

// The backfill modes of a schedule.
const (
	// BackfillAll runs every missed slot within the window (the default).
	BackfillAll Backfill = "all"
	// BackfillLatest runs only the latest missed slot; the others are recorded as superseded.
	BackfillLatest Backfill = "latest"
)

// DefaultBackfillWindow is the backfill window of a ScheduleDefinition whose BackfillWindow is
// zero: missed slots younger than this run, older ones are recorded as skipped (reason late).
const DefaultBackfillWindow = 15 * time.Minute

// ScheduleDefinition declares a cron schedule (jobq.schedule): the system task Task is enqueued
// once per slot of Cron in time zone Timezone. Only Name, Cron and Task are required; every
// other field's zero value is the default stated on it.
type ScheduleDefinition struct {
	// Name identifies the schedule (kebab-case, at most 100 characters), e.g. "nightly-report".
	Name string
	// Cron is a 5-field cron expression (minute hour day-of-month month day-of-week) or a macro
	// such as @daily; see docs/scheduling.md.
	Cron string
	// Task is the declared system task each slot enqueues. A store-scoped task is refused:
	// schedule a system task that fans out (Client.FanOut).
	Task string
	// Payload is marshalled to a JSON object; nil is {}. Each job's payload is this object plus
	// {SlotKey: the slot's instant in UTC, RFC 3339}.
	Payload any
	// Timezone is the IANA zone whose wall clock Cron reads, e.g. "Asia/Tokyo". Default: "UTC".
	Timezone string
	// ConcurrencyPolicy applies when a slot comes while the previous slot's job is live.
	// Default: ConcurrencyAllow.
	ConcurrencyPolicy ConcurrencyPolicy
	// BackfillWindow is how old a missed slot may be and still run after downtime. Default:
	// DefaultBackfillWindow (15 minutes).
	BackfillWindow time.Duration
	// Backfill chooses which missed slots within the window run. Default: BackfillAll.
	Backfill Backfill
	// Jitter delays each slot's job by a fixed pseudo-random part of it (derived from the
	// schedule and the slot), to spread schedules that share a slot. Default: 0.
	Jitter time.Duration
	// SlotKey is the payload key that carries the slot's instant. Default: "slotAt".
	SlotKey string
	// NoSlotKey adds no slot key to the payload. Default: false (the key is added).
	NoSlotKey bool
	// Queue, Priority and MaxAttempts override the task's defaults for the schedule's jobs;
	// zero keeps the task's (then the engine's) defaults.
	Queue       string
	Priority    int16
	MaxAttempts int
	// Disabled keeps the schedule declared but enqueues nothing. Default: false (enabled).
	Disabled bool
}

// Schedule declares def, or updates the schedule of that name, and returns its next slot. It is
// idempotent: a declaration that differs in nothing changes nothing (updated_at included). A new
// schedule, or a changed cron or time zone, starts at the first slot after the database's
// now(); other changes keep the schedule's place. Errors: ErrInvalidCron, ErrInvalidTimezone,
// ErrUnknownTask, ErrInvalidArgument (name, store-scoped task, policy), ErrPayloadNotObject,
// ErrMaxAttemptsInvalid.
func (c *Client) Schedule(ctx context.Context, def ScheduleDefinition) (time.Time, error) {
	body, err := marshalPayload(def.Payload)
	if err != nil {
		return time.Time{}, fmt.Errorf("jobq: schedule %s: payload: %w", def.Name, err)
	}
	tz := def.Timezone
	if tz == "" {
		tz = "UTC"
	}
	policy := def.ConcurrencyPolicy
	if policy == "" {
		policy = ConcurrencyAllow
	}
	backfill := def.Backfill
	if backfill == "" {
		backfill = BackfillAll
	}
	window := def.BackfillWindow
	if window == 0 {
		window = DefaultBackfillWindow
	}
	var slotKey *string
	if !def.NoSlotKey {
		k := def.SlotKey
		if k == "" {
			k = "slotAt"
		}
		slotKey = &k
	}
	var priority *int16
	if def.Priority != 0 {
		priority = &def.Priority
	}
	var next time.Time
	err = c.db.QueryRow(ctx, `SELECT jobq.schedule(name => $1, cron => $2, task => $3, payload => $4::jsonb,
		timezone => $5, concurrency_policy => $6, backfill_window => $7, backfill => $8, jitter => $9,
		slot_key => $10, queue => $11, priority => $12, max_attempts => $13, enabled => $14)`,
		def.Name, def.Cron, def.Task, body, tz, string(policy),
		pgtype.Interval{Microseconds: window.Microseconds(), Valid: true}, string(backfill),
		pgtype.Interval{Microseconds: max(def.Jitter, 0).Microseconds(), Valid: true},
		slotKey, jobsql.NullString(def.Queue), priority, nullInt(def.MaxAttempts), !def.Disabled,
	).Scan(&next)
	if err != nil {
		return time.Time{}, jobsql.Wrap(err, "schedule "+def.Name)
	}
	return next, nil
}

// Unschedule removes the schedule name and its run records (jobq.unschedule, audited); jobs it
// already enqueued stay. It needs jobq_operator's rights. Errors: ErrUnknownSchedule.
func (c *Client) Unschedule(ctx context.Context, name string) error {
	_, err := c.db.Exec(ctx, `SELECT jobq.unschedule($1)`, name)
	return jobsql.Wrap(err, "unschedule "+name)
}
