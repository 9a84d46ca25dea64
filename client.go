package jobq

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// DB is what a Client needs of a database handle. *pgxpool.Pool, *pgx.Conn and pgx.Tx all
// satisfy it, so an enqueue can join the caller's transaction.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Client calls the jobq SQL engine. It holds no state of its own: every decision (what to claim,
// whether a lease is still held, when to retry) is made by the database. A Client is safe for
// concurrent use when its DB is (a pool is; a single connection or transaction is not).
type Client struct {
	db DB
}

// NewClient returns a Client that runs its statements on db.
func NewClient(db DB) *Client { return &Client{db: db} }

// Job is a claimed job as the runner sees it.
type Job struct {
	ID             int64
	Task           string
	Queue          string
	Payload        json.RawMessage
	StoreID        *string
	Priority       int16
	RunAt          time.Time
	Attempt        int
	MaxAttempts    int
	JobKey         *string
	LeaseToken     string
	ClaimedAt      time.Time
	LeaseExpiresAt time.Time
	DeadlineAt     *time.Time
	LastError      *string
	CreatedAt      time.Time
}

// Lease identifies one claimed attempt: the job and the token its claim was given.
func (j *Job) Lease() Lease { return Lease{JobID: j.ID, Token: j.LeaseToken} }

// Lease is a job id with the lease token of the claim that holds it. Every write about a claimed
// job is accepted only with the current token.
type Lease struct {
	JobID int64
	Token string
}

// JobKeyMode says what an enqueue with a job key does when a live job already has the key.
type JobKeyMode string

// The job key modes; see the README ("Job keys") for what each does to waiting and running jobs.
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
}

// JobSpec is one job of an EnqueueMany batch.
type JobSpec struct {
	Task    string
	Payload any
	EnqueueOptions
}

// Outcome is what the engine did with one complete or fail: "succeeded", "retry_pending",
// "dead" or "lease_lost" (the write was refused because the lease is gone; nothing changed).
type Outcome struct {
	JobID   int64
	Outcome string
	RunAt   *time.Time // the next run of a retry_pending job
}

// Failure is one failed attempt to report. The zero value of every optional field means a
// retryable failure with the computed backoff.
type Failure struct {
	Lease
	Error     string
	ErrorCode string        // "" = none
	Fatal     bool          // true makes the job dead at once (not retryable)
	RetryIn   time.Duration // 0 = the computed backoff
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

// QueueLag is how long the next due job of a queue has waited past its run_at.
type QueueLag struct {
	Queue string
	Lag   time.Duration
}

func interval(d time.Duration) pgtype.Interval {
	if d <= 0 {
		return pgtype.Interval{}
	}
	return pgtype.Interval{Microseconds: d.Microseconds(), Valid: true}
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
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
// the transaction's app.current_store_id, NULL for a system job (jobq.ErrTenantMismatch).
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
	var id int64
	err = c.db.QueryRow(ctx, `
		SELECT jobq.enqueue(
			task => $1, payload => $2::jsonb,
			run_at => coalesce($3::timestamptz, now() + coalesce($4::interval, interval '0')),
			job_key => $5, job_key_mode => $6, max_attempts => $7, priority => $8, queue => $9,
			store_id => $10::uuid, timeout => $11, backoff_base => $12, backoff_max => $13)`,
		task, body, nullTime(opts.RunAt), interval(opts.Delay), nullString(opts.JobKey), mode,
		nullInt(opts.MaxAttempts), priority, nullString(opts.Queue), nullString(opts.StoreID),
		interval(opts.Timeout), interval(opts.BackoffBase), interval(opts.BackoffMax),
	).Scan(&id)
	if err != nil {
		return 0, wrap(err, "enqueue "+task)
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
	batch := make([]specJSON, len(specs))
	for i, s := range specs {
		body, err := marshalPayload(s.Payload)
		if err != nil {
			return nil, fmt.Errorf("jobq: enqueue_many: job %d payload: %w", i+1, err)
		}
		batch[i] = specJSON{
			Task: s.Task, Payload: body, Queue: s.Queue, RunAt: nullTime(s.RunAt), Priority: s.Priority,
			MaxAttempts: s.MaxAttempts, JobKey: s.JobKey, JobKeyMode: string(s.JobKeyMode), StoreID: s.StoreID,
			Timeout: durationText(s.Timeout), BackoffBase: durationText(s.BackoffBase), BackoffMax: durationText(s.BackoffMax),
		}
	}
	doc, err := json.Marshal(batch)
	if err != nil {
		return nil, fmt.Errorf("jobq: enqueue_many: %w", err)
	}
	rows, err := c.db.Query(ctx, `SELECT id FROM jobq.enqueue_many($1::jsonb) AS id`, doc)
	if err != nil {
		return nil, wrap(err, "enqueue_many")
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return ids, wrap(err, "enqueue_many")
}

// Claim claims up to max due jobs for workerID from queues (served in the order given), each
// under a fresh lease of length lease.
func (c *Client) Claim(ctx context.Context, workerID string, queues []string, max int, lease time.Duration) ([]Job, error) {
	rows, err := c.db.Query(ctx, `
		SELECT id, task, queue, payload, store_id::text, priority, run_at, attempt, max_attempts, job_key,
		       lease_token::text, claimed_at, lease_expires_at, deadline_at, last_error, created_at
		FROM jobq.claim_job($1, $2, $3, $4)
		ORDER BY array_position($2::text[], queue), priority, run_at, id`,
		workerID, queues, max, interval(lease))
	if err != nil {
		return nil, wrap(err, "claim")
	}
	jobs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Job, error) {
		var j Job
		err := row.Scan(&j.ID, &j.Task, &j.Queue, &j.Payload, &j.StoreID, &j.Priority, &j.RunAt, &j.Attempt,
			&j.MaxAttempts, &j.JobKey, &j.LeaseToken, &j.ClaimedAt, &j.LeaseExpiresAt, &j.DeadlineAt, &j.LastError, &j.CreatedAt)
		return j, err
	})
	return jobs, wrap(err, "claim")
}

func splitLeases(leases []Lease) ([]int64, []string) {
	ids := make([]int64, len(leases))
	tokens := make([]string, len(leases))
	for i, l := range leases {
		ids[i], tokens[i] = l.JobID, l.Token
	}
	return ids, tokens
}

// Heartbeat renews, in one statement, the leases workerID still holds, for another lease. It
// returns the new expiry of each renewed job; a job missing from the map has lost its lease.
func (c *Client) Heartbeat(ctx context.Context, workerID string, leases []Lease, lease time.Duration) (map[int64]time.Time, error) {
	ids, tokens := splitLeases(leases)
	rows, err := c.db.Query(ctx, `SELECT job_id, lease_expires_at FROM jobq.heartbeat_jobs($1, $2, $3::uuid[], $4)`,
		workerID, ids, tokens, interval(lease))
	if err != nil {
		return nil, wrap(err, "heartbeat")
	}
	renewed := make(map[int64]time.Time, len(leases))
	var id int64
	var until time.Time
	_, err = pgx.ForEachRow(rows, []any{&id, &until}, func() error {
		renewed[id] = until
		return nil
	})
	return renewed, wrap(err, "heartbeat")
}

func collectOutcomes(rows pgx.Rows, err error, doing string) ([]Outcome, error) {
	if err != nil {
		return nil, wrap(err, doing)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Outcome, error) {
		var o Outcome
		if len(row.FieldDescriptions()) == 3 {
			return o, row.Scan(&o.JobID, &o.Outcome, &o.RunAt)
		}
		return o, row.Scan(&o.JobID, &o.Outcome)
	})
	return out, wrap(err, doing)
}

// Complete completes the attempts in one statement and returns one Outcome per lease, in order
// (pass them sorted by job id; the engine locks in that order):
// "succeeded", or "lease_lost" when the lease was gone (nothing changed for that job).
func (c *Client) Complete(ctx context.Context, leases []Lease) ([]Outcome, error) {
	ids, tokens := splitLeases(leases)
	rows, err := c.db.Query(ctx, `SELECT job_id, outcome FROM jobq.complete_jobs($1, $2::uuid[])`, ids, tokens)
	return collectOutcomes(rows, err, "complete")
}

// Fail reports failed attempts in one statement and returns one Outcome per failure, in order:
// "retry_pending" (with the next RunAt), "dead", or "lease_lost".
func (c *Client) Fail(ctx context.Context, failures []Failure) ([]Outcome, error) {
	n := len(failures)
	ids, tokens, msgs := make([]int64, n), make([]string, n), make([]string, n)
	codes, retryable, retryIn := make([]*string, n), make([]bool, n), make([]pgtype.Interval, n)
	for i, f := range failures {
		ids[i], tokens[i], msgs[i] = f.JobID, f.Token, f.Error
		codes[i], retryable[i], retryIn[i] = nullString(f.ErrorCode), !f.Fatal, interval(f.RetryIn)
	}
	rows, err := c.db.Query(ctx, `SELECT job_id, outcome, run_at FROM jobq.fail_jobs($1, $2::uuid[], $3, $4, $5, $6)`,
		ids, tokens, msgs, codes, retryable, retryIn)
	return collectOutcomes(rows, err, "fail")
}

// Snooze puts a running job back in the queue to run after delay without using an attempt, and
// returns its new run_at. It fails with ErrLeaseLost when the lease is gone.
func (c *Client) Snooze(ctx context.Context, lease Lease, delay time.Duration) (time.Time, error) {
	var runAt time.Time
	err := c.db.QueryRow(ctx, `SELECT jobq.snooze($1, $2::uuid, $3)`, lease.JobID, lease.Token,
		pgtype.Interval{Microseconds: delay.Microseconds(), Valid: true}).Scan(&runAt)
	return runAt, wrap(err, "snooze")
}

// SnoozeMany puts running jobs back in the queue after delay in one statement, without using
// their attempts (a runner handing its jobs back at shutdown uses delay 0). One Outcome per
// lease, in order: "queued" (with RunAt) or "lease_lost".
func (c *Client) SnoozeMany(ctx context.Context, leases []Lease, delay time.Duration) ([]Outcome, error) {
	ids, tokens := splitLeases(leases)
	rows, err := c.db.Query(ctx, `SELECT job_id, outcome, run_at FROM jobq.snooze_jobs($1, $2::uuid[], $3)`,
		ids, tokens, pgtype.Interval{Microseconds: delay.Microseconds(), Valid: true})
	return collectOutcomes(rows, err, "snooze")
}

// QueueLag reports, per queue (all queues with live jobs when queues is nil), how long the next
// job due to be claimed has waited past its run_at.
func (c *Client) QueueLag(ctx context.Context, queues []string) ([]QueueLag, error) {
	rows, err := c.db.Query(ctx, `SELECT queue, extract(epoch FROM lag)::float8 FROM jobq.queue_lag($1)`, queues)
	if err != nil {
		return nil, wrap(err, "queue_lag")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (QueueLag, error) {
		var q QueueLag
		var secs float64
		err := row.Scan(&q.Queue, &secs)
		q.Lag = time.Duration(secs * float64(time.Second))
		return q, err
	})
	return out, wrap(err, "queue_lag")
}

// RescueExpired sweeps at most batch running jobs whose lease expired or whose timeout passed.
func (c *Client) RescueExpired(ctx context.Context, batch int) ([]Rescue, error) {
	rows, err := c.db.Query(ctx, `SELECT job_id, outcome, reason, task, queue, store_id::text, attempt, locked_by
		FROM jobq.rescue_expired($1)`, batch)
	if err != nil {
		return nil, wrap(err, "rescue_expired")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Rescue])
	return out, wrap(err, "rescue_expired")
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
		description => $10)`,
		def.Name, string(scope), doc, nullInt(def.MaxAttempts), nullString(def.Queue), def.Priority,
		interval(def.Timeout), interval(def.BackoffBase), interval(def.BackoffMax), def.Description)
	return wrap(err, "define_task "+def.Name)
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
	err = c.db.QueryRow(ctx, `SELECT jobq.fan_out($1, $2::jsonb, $3, $4)`, task, body, nullString(keyTemplate), string(mode)).Scan(&n)
	return n, wrap(err, "fan_out "+task)
}
