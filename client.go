package jobq

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
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
	// Traceparent and Tracestate are the W3C trace context its producer enqueued it under
	// (jobq.jobs.traceparent, tracestate: the session settings jobq.traceparent and
	// jobq.tracestate at the enqueue); "" when none.
	Traceparent string
	Tracestate  string
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

// Completion is one succeeded attempt to report with what it left behind, kept in the job's
// jobq.job_history row as a failed attempt's are in jobq.job_attempts.
type Completion struct {
	Lease
	Output   string // the tail of its output (the last 16384 characters are kept); "" = none
	LogRef   string // where its logs are (the first 1000 characters); "" = the engine's default
	ExitCode *int   // a command's exit status; nil = none
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

// QueueDepth is how many live jobs a queue holds by state, and how many of its jobs died in the
// last hour.
type QueueDepth struct {
	Queue        string
	Queued       int64 // due, waiting to be claimed
	RetryPending int64 // waiting for a retry
	Running      int64
	Scheduled    int64 // queued with a future run_at
	DeadLastHour int64 // moved to jobq.job_history as dead in the last hour
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
	args := []any{task, body, nullTime(opts.RunAt), interval(opts.Delay), nullString(opts.JobKey), mode,
		nullInt(opts.MaxAttempts), priority, nullString(opts.Queue), nullString(opts.StoreID),
		interval(opts.Timeout), interval(opts.BackoffBase), interval(opts.BackoffMax), interval(opts.UniqueFor),
		nullInt64s(opts.DependsOn), nullString(opts.OnParentFailure), nullString(opts.SequenceKey), nullString(opts.OnSequenceFailure)}
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
			UniqueFor: durationText(s.UniqueFor),
			Ref:       s.Ref, DependsOn: s.DependsOn, DependsOnRefs: s.DependsOnRefs, OnParentFailure: s.OnParentFailure,
			SequenceKey: s.SequenceKey, OnSequenceFailure: s.OnSequenceFailure,
		}
	}
	doc, err := json.Marshal(batch)
	if err != nil {
		return nil, fmt.Errorf("jobq: enqueue_many: %w", err)
	}
	arg, args := withTrace(ctx, "$1::jsonb", 2, []any{doc})
	rows, err := c.db.Query(ctx, `SELECT id FROM jobq.enqueue_many(`+arg+`) AS id`, args...)
	if err != nil {
		return nil, wrap(err, "enqueue_many")
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return ids, wrap(err, "enqueue_many")
}

// Claim claims up to max due jobs for workerID from queues (served in the order given), each
// under a fresh lease of length lease. The jobs come back in claim order: by the position of
// their queue in queues, then priority, run_at and id.
func (c *Client) Claim(ctx context.Context, workerID string, queues []string, max int, lease time.Duration) ([]Job, error) {
	return c.ClaimAfter(ctx, workerID, queues, nil, max, lease, nil)
}

// ClaimPosition is a place in a queue's claim order: the priority, run_at and id of a job.
type ClaimPosition struct {
	Priority int16
	RunAt    time.Time
	ID       int64
}

// PositionOf returns j's place in its queue's claim order.
func PositionOf(j *Job) ClaimPosition {
	return ClaimPosition{Priority: j.Priority, RunAt: j.RunAt, ID: j.ID}
}

// ClaimAfter claims like Claim, but in each queue that after gives a position for, only the
// jobs of a higher priority than the position's and those after it in claim order; queues
// without one are claimed from their head. A claim that starts where the caller's last one
// ended does not read again the index entries of the jobs claimed before (they stay until a
// vacuum), so it stays fast while the queue's backlog drains or a snapshot is held open. It
// leaves behind the waiting jobs at or before the position (committed late by a long
// transaction, enqueued with a past run_at, a cron catch-up slot): only a claim from the head
// takes them, so a caller of ClaimAfter must also claim without positions when ClaimPassedOver
// says so (the runner asks once per Config.RescanInterval). A nil or empty after is Claim.
//
// tasks are the tasks the caller serves (has handlers for): no job of another task is claimed,
// whatever its queue, and it stays queued for a worker that serves it. Nil claims every task (as
// before issue 30); an empty list is refused (ErrInvalidArgument), so a caller that serves no
// task must not claim at all.
func (c *Client) ClaimAfter(ctx context.Context, workerID string, queues, tasks []string, max int, lease time.Duration, after map[string]ClaimPosition) ([]Job, error) {
	const columns = `id, task, queue, payload, store_id::text, priority, run_at, attempt, max_attempts, job_key,
		       lease_token::text, claimed_at, lease_expires_at, deadline_at, last_error, created_at,
		       coalesce(traceparent, ''), coalesce(tracestate, '')`
	var rows pgx.Rows
	var err error
	// The tasks are one array parameter, NULL for every task: the plain claim stays one statement.
	switch {
	case len(after) == 0 && tasks == nil:
		rows, err = c.db.Query(ctx, `SELECT `+columns+` FROM jobq.claim_job($1, $2, $3, $4)`,
			workerID, queues, max, interval(lease))
	case len(after) == 0:
		rows, err = c.db.Query(ctx, `SELECT `+columns+` FROM jobq.claim_job($1, $2, $3, $4, tasks => $5::text[])`,
			workerID, queues, max, interval(lease), tasks)
	default:
		priority, runAt, id := positionArrays(queues, after)
		rows, err = c.db.Query(ctx, `SELECT `+columns+` FROM jobq.claim_job($1, $2, $3, $4, $5::int[], $6::timestamptz[], $7::bigint[], $8::text[])`,
			workerID, queues, max, interval(lease), priority, runAt, id, tasks)
	}
	if err != nil {
		return nil, wrap(err, "claim")
	}
	jobs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Job, error) {
		var j Job
		err := row.Scan(&j.ID, &j.Task, &j.Queue, &j.Payload, &j.StoreID, &j.Priority, &j.RunAt, &j.Attempt,
			&j.MaxAttempts, &j.JobKey, &j.LeaseToken, &j.ClaimedAt, &j.LeaseExpiresAt, &j.DeadlineAt, &j.LastError, &j.CreatedAt,
			&j.Traceparent, &j.Tracestate)
		return j, err
	})
	if err != nil {
		return nil, wrap(err, "claim")
	}
	// In claim order as the engine returns them (jobq._claim): the order is stated once, in SQL.
	return jobs, nil
}

// ClaimPassedOver reports whether ClaimAfter with after passes over a job in queues: a due,
// waiting job of a position's priority at or before the position (committed late, enqueued with a
// past run_at, a cron catch-up slot, handed back) in a queue that is not paused. Only a claim from
// the head (Claim) takes such a job. It reads only; what it costs is the walk ClaimAfter avoids,
// so the runner calls it once per Config.RescanInterval beside its claims, not before each.
// tasks are those ClaimAfter is given (nil: every task): a job of another task is no job passed
// over.
func (c *Client) ClaimPassedOver(ctx context.Context, queues, tasks []string, after map[string]ClaimPosition) (bool, error) {
	priority, runAt, id := positionArrays(queues, after)
	var found bool
	err := c.db.QueryRow(ctx, `SELECT jobq.claim_passed_over($1, $2::int[], $3::timestamptz[], $4::bigint[], $5::text[])`,
		queues, priority, runAt, id, tasks).Scan(&found)
	return found, wrap(err, "claim_passed_over")
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
	renewed, _, err := c.HeartbeatAt(ctx, workerID, leases, lease)
	return renewed, err
}

// HeartbeatAt is Heartbeat that also returns the database's now() of the call, the instant the
// new expiries count from: a runner maps lease_expires_at - now() onto its own monotonic clock
// (it self-fences by it) without trusting its wall clock. The time is zero when no lease was
// renewed.
func (c *Client) HeartbeatAt(ctx context.Context, workerID string, leases []Lease, lease time.Duration) (map[int64]time.Time, time.Time, error) {
	ids, tokens := splitLeases(leases)
	rows, err := c.db.Query(ctx, `SELECT job_id, lease_expires_at, now() FROM jobq.heartbeat_jobs($1, $2, $3::text[]::uuid[], $4)`,
		workerID, ids, tokens, interval(lease))
	if err != nil {
		return nil, time.Time{}, wrap(err, "heartbeat")
	}
	renewed := make(map[int64]time.Time, len(leases))
	var id int64
	var until, now, dbNow time.Time
	_, err = pgx.ForEachRow(rows, []any{&id, &until, &now}, func() error {
		renewed[id], dbNow = until, now
		return nil
	})
	return renewed, dbNow, wrap(err, "heartbeat")
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

// ConfirmContinuation confirms, for a detached worker, that the jobs it runs go on
// (jobq.confirm_continuation), renewing their leases to lease. One Outcome per lease, in order:
// "confirmed" (the job runs on here), "detached" (too late: the attempt failed with reason
// detached; stop the handler) or "lease_lost".
func (c *Client) ConfirmContinuation(ctx context.Context, workerID string, leases []Lease, lease time.Duration) ([]Outcome, error) {
	ids, tokens := splitLeases(leases)
	rows, err := c.db.Query(ctx, `SELECT job_id, outcome FROM jobq.confirm_continuation($1, $2, $3::text[]::uuid[], $4)`,
		workerID, ids, tokens, interval(lease))
	return collectOutcomes(rows, err, "confirm continuation")
}

// Complete completes the attempts in one statement and returns one Outcome per lease, in order
// (pass them sorted by job id; the engine locks in that order):
// "succeeded", or "lease_lost" when the lease was gone (nothing changed for that job).
func (c *Client) Complete(ctx context.Context, leases []Lease) ([]Outcome, error) {
	ids, tokens := splitLeases(leases)
	rows, err := c.db.Query(ctx, `SELECT job_id, outcome FROM jobq.complete_jobs($1, $2::text[]::uuid[])`, ids, tokens)
	return collectOutcomes(rows, err, "complete")
}

// CompleteAttempts is Complete for attempts that left something behind: the output's tail, a
// log reference, an exit status (jobq.complete_jobs' outputs, log_refs and exit_codes).
func (c *Client) CompleteAttempts(ctx context.Context, done []Completion) ([]Outcome, error) {
	n := len(done)
	ids, tokens, outputs, logRefs, codes := make([]int64, n), make([]string, n), make([]*string, n), make([]*string, n), make([]*int32, n)
	for i, d := range done {
		ids[i], tokens[i], outputs[i], logRefs[i], codes[i] = d.JobID, d.Token, nullString(d.Output), nullString(d.LogRef), exitCode(d.ExitCode)
	}
	rows, err := c.db.Query(ctx, `SELECT job_id, outcome FROM jobq.complete_jobs($1, $2::text[]::uuid[], $3, $4, $5)`,
		ids, tokens, outputs, logRefs, codes)
	return collectOutcomes(rows, err, "complete")
}

func exitCode(code *int) *int32 {
	if code == nil {
		return nil
	}
	c := int32(*code)
	return &c
}

// SetProgress records what the running attempt of lease reports of its progress, a JSON object
// of at most 65536 bytes (jobq.set_progress): the latest report is kept, and its attempt keeps
// the last one. It fails with ErrLeaseLost when the lease is gone (nothing is written),
// ErrInvalidArgument when progress is not an object and ErrValueTooLong when it is too large.
func (c *Client) SetProgress(ctx context.Context, lease Lease, progress json.RawMessage) error {
	_, err := c.db.Exec(ctx, `SELECT jobq.set_progress($1, $2::text::uuid, $3::jsonb)`, lease.JobID, lease.Token, string(progress))
	return wrap(err, "set_progress")
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
		codes[i], retryable[i], retryIn[i] = nullString(f.ErrorCode), !f.Fatal, interval(f.RetryIn)
		reasons[i], outputs[i], logRefs[i], exits[i] = nullString(f.Reason), nullString(f.Output), nullString(f.LogRef), exitCode(f.ExitCode)
	}
	rows, err := c.db.Query(ctx, `SELECT job_id, outcome, run_at FROM jobq.fail_jobs($1, $2::text[]::uuid[], $3, $4, $5, $6, $7, $8, $9, $10)`,
		ids, tokens, msgs, codes, retryable, retryIn, reasons, outputs, logRefs, exits)
	return collectOutcomes(rows, err, "fail")
}

// Snooze puts a running job back in the queue to run after delay without using an attempt, and
// returns its new run_at. It fails with ErrLeaseLost when the lease is gone.
func (c *Client) Snooze(ctx context.Context, lease Lease, delay time.Duration) (time.Time, error) {
	var runAt time.Time
	err := c.db.QueryRow(ctx, `SELECT jobq.snooze($1, $2::text::uuid, $3)`, lease.JobID, lease.Token,
		pgtype.Interval{Microseconds: delay.Microseconds(), Valid: true}).Scan(&runAt)
	return runAt, wrap(err, "snooze")
}

// SnoozeMany puts running jobs back in the queue after delay in one statement, without using
// their attempts (a runner handing its jobs back at shutdown uses delay 0). One Outcome per
// lease, in order: "queued" (with RunAt) or "lease_lost".
func (c *Client) SnoozeMany(ctx context.Context, leases []Lease, delay time.Duration) ([]Outcome, error) {
	ids, tokens := splitLeases(leases)
	rows, err := c.db.Query(ctx, `SELECT job_id, outcome, run_at FROM jobq.snooze_jobs($1, $2::text[]::uuid[], $3)`,
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

// QueueDepth reports, per queue (all queues with live jobs when queues is nil), its live jobs by
// state and its dead jobs of the last hour (jobq.queue_depth).
func (c *Client) QueueDepth(ctx context.Context, queues []string) ([]QueueDepth, error) {
	rows, err := c.db.Query(ctx, `SELECT queue, queued, retry_pending, running, scheduled, dead_last_hour
		FROM jobq.queue_depth($1)`, queues)
	if err != nil {
		return nil, wrap(err, "queue_depth")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[QueueDepth])
	return out, wrap(err, "queue_depth")
}

// QueueNotServed is how many waiting jobs of a queue no live worker serves (no live worker of the
// queue registered their task), and how long the oldest due one has waited.
type QueueNotServed struct {
	Queue     string
	NotServed int64          // waiting jobs (queued or retry_pending, due or not), counted up to 10001
	OldestAge *time.Duration // nil when none of them is due
}

// QueueNotServed reports, per queue given, the waiting jobs no live worker serves
// (jobq.queue_not_served).
func (c *Client) QueueNotServed(ctx context.Context, queues []string) ([]QueueNotServed, error) {
	rows, err := c.db.Query(ctx, `SELECT queue, not_served, oldest_age FROM jobq.queue_not_served($1)`, queues)
	if err != nil {
		return nil, wrap(err, "queue_not_served")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (QueueNotServed, error) {
		var q QueueNotServed
		var oldest pgtype.Interval
		err := row.Scan(&q.Queue, &q.NotServed, &oldest)
		q.OldestAge = durationOf(oldest)
		return q, err
	})
	return out, wrap(err, "queue_not_served")
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
func (c *Client) HandBackUnheld(ctx context.Context, workerID string, tokens []string) ([]HandedBack, error) {
	if tokens == nil {
		tokens = []string{}
	}
	rows, err := c.db.Query(ctx, `SELECT job_id, task, queue FROM jobq.hand_back_unheld($1, $2::text[]::uuid[])`, workerID, tokens)
	if err != nil {
		return nil, wrap(err, "hand_back_unheld")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[HandedBack])
	return out, wrap(err, "hand_back_unheld")
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
		def.Name, string(scope), doc, nullInt(def.MaxAttempts), nullString(def.Queue), def.Priority,
		interval(def.Timeout), interval(def.BackoffBase), interval(def.BackoffMax), def.Description, def.AppEnqueue)
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
		slotKey, nullString(def.Queue), priority, nullInt(def.MaxAttempts), !def.Disabled,
	).Scan(&next)
	if err != nil {
		return time.Time{}, wrap(err, "schedule "+def.Name)
	}
	return next, nil
}

// Unschedule removes the schedule name and its run records (jobq.unschedule, audited); jobs it
// already enqueued stay. It needs jobq_operator's rights. Errors: ErrUnknownSchedule.
func (c *Client) Unschedule(ctx context.Context, name string) error {
	_, err := c.db.Exec(ctx, `SELECT jobq.unschedule($1)`, name)
	return wrap(err, "unschedule "+name)
}

// WorkerState is a runner's state in jobq.workers.
type WorkerState string

// The worker states. A runner is told its state by every WorkerHeartbeat and obeys it.
const (
	// WorkerActive claims and runs jobs.
	WorkerActive WorkerState = "active"
	// WorkerDraining claims nothing new and finishes the jobs it holds (jobq.drain_worker).
	WorkerDraining WorkerState = "draining"
	// WorkerDetached claims nothing and its leases were rescued (jobq.detach_worker).
	WorkerDetached WorkerState = "detached"
	// WorkerLost missed its heartbeats for longer than the setting worker_timeout; maintain
	// rescued its leases. A lost worker that heartbeats again is active.
	WorkerLost WorkerState = "lost"
	// WorkerStopped exited cleanly (DeregisterWorker).
	WorkerStopped WorkerState = "stopped"
)

// WorkerInfo describes a runner to RegisterWorker.
type WorkerInfo struct {
	ID          string   // the runner's worker id (locked_by of its claims)
	Node        string   // the host it runs on
	PID         int      // its process id; 0 = unknown
	Queues      []string // the queues it serves, at least one
	Concurrency int      // the most jobs it runs at once, at least 1
	Version     string   // the runner's version, free text
	// Tasks are the tasks it serves (has handlers for), as it passes them to its claims; nil =
	// every task (a runner before issue 30), empty = none. A waiting job of a task that no live
	// worker of its queue serves shows as not served (jobq.stats, jobq queues, the dashboard).
	Tasks []string
}

// Settings are the engine's tunables (jobq.settings) as register_worker and worker_heartbeat
// return them.
type Settings struct {
	// Values holds every setting as stored: name → text.
	Values map[string]string
	// Intervals holds the settings of kind interval, parsed by PostgreSQL.
	Intervals map[string]time.Duration
}

// Interval returns the interval setting name, and false when there is none.
func (s Settings) Interval(name string) (time.Duration, bool) {
	d, ok := s.Intervals[name]
	return d, ok
}

// settingsSQL turns the settings object a worker function returns (column settings) into its
// interval settings in seconds, so PostgreSQL, not Go, parses interval text.
const settingsSQL = `(SELECT coalesce(jsonb_object_agg(e.key, extract(epoch FROM e.value::interval)), '{}')
	FROM jsonb_each_text(settings) AS e JOIN jobq.settings AS s ON s.name = e.key AND s.kind = 'interval')`

func decodeSettings(values, seconds []byte) (Settings, error) {
	s := Settings{Values: map[string]string{}, Intervals: map[string]time.Duration{}}
	if err := json.Unmarshal(values, &s.Values); err != nil {
		return s, err
	}
	var secs map[string]float64
	if err := json.Unmarshal(seconds, &secs); err != nil {
		return s, err
	}
	for name, v := range secs {
		s.Intervals[name] = time.Duration(math.Round(v*1e6)) * time.Microsecond
	}
	return s, nil
}

// RegisterWorker registers (or re-registers) a runner as active in jobq.workers and returns the
// settings it should apply. Errors: ErrInvalidArgument.
func (c *Client) RegisterWorker(ctx context.Context, w WorkerInfo) (Settings, error) {
	var values, seconds []byte
	var pid *int
	if w.PID != 0 {
		pid = &w.PID
	}
	err := c.db.QueryRow(ctx, `SELECT settings, `+settingsSQL+`
		FROM jobq.register_worker($1, $2, $3, $4, $5, $6, $7::text[]) AS settings`,
		w.ID, w.Node, pid, w.Queues, w.Concurrency, w.Version, w.Tasks).Scan(&values, &seconds)
	if err != nil {
		return Settings{}, wrap(err, "register_worker")
	}
	s, err := decodeSettings(values, seconds)
	return s, wrap(err, "register_worker")
}

// WorkerHeartbeat records that workerID is alive with running jobs in hand, and returns the
// state it must obey (draining and detached runners stop claiming) and the current settings.
// Errors: ErrUnknownWorker (not registered: register again).
func (c *Client) WorkerHeartbeat(ctx context.Context, workerID string, running int) (WorkerState, Settings, error) {
	var state string
	var values, seconds []byte
	err := c.db.QueryRow(ctx, `SELECT state, settings, `+settingsSQL+` FROM jobq.worker_heartbeat($1, $2)`,
		workerID, running).Scan(&state, &values, &seconds)
	if err != nil {
		return "", Settings{}, wrap(err, "worker_heartbeat")
	}
	s, err := decodeSettings(values, seconds)
	return WorkerState(state), s, wrap(err, "worker_heartbeat")
}

// DeregisterWorker marks workerID stopped after a clean exit and gives up its leadership, if it
// holds it, so another runner takes over at once.
func (c *Client) DeregisterWorker(ctx context.Context, workerID string) error {
	_, err := c.db.Exec(ctx, `SELECT jobq.deregister_worker($1)`, workerID)
	return wrap(err, "deregister_worker")
}

// DrainWorker asks workerID to stop claiming and finish the jobs it holds (jobq.drain_worker,
// audited; needs jobq_operator's rights). Errors: ErrUnknownWorker.
func (c *Client) DrainWorker(ctx context.Context, workerID string) error {
	_, err := c.db.Exec(ctx, `SELECT jobq.drain_worker($1)`, workerID)
	return wrap(err, "drain_worker")
}

// ResumeWorker undoes a drain: workerID claims again at its next heartbeat (jobq.resume_worker,
// audited; needs jobq_operator's rights). Errors: ErrUnknownWorker.
func (c *Client) ResumeWorker(ctx context.Context, workerID string) error {
	_, err := c.db.Exec(ctx, `SELECT jobq.resume_worker($1)`, workerID)
	return wrap(err, "resume_worker")
}

// DetachWorker stops workerID claiming and rescues every lease it holds now; its late writes
// are refused (jobq.detach_worker, audited; needs jobq_operator's rights). It returns the number
// of leases taken. Errors: ErrUnknownWorker.
func (c *Client) DetachWorker(ctx context.Context, workerID string) (int, error) {
	var n int
	err := c.db.QueryRow(ctx, `SELECT jobq.detach_worker($1)`, workerID).Scan(&n)
	return n, wrap(err, "detach_worker")
}

// AcquireLeadership takes the leadership for workerID when nobody holds a live lease on it, or
// renews it, for ttl (0 = the function's default, 15 seconds). It returns the fencing epoch and
// true while workerID leads, 0 and false when another worker does. The epoch grows on every
// change of leader; pass it to Maintain. Errors: ErrInvalidArgument, ErrLeaseInvalid.
func (c *Client) AcquireLeadership(ctx context.Context, workerID string, ttl time.Duration) (int64, bool, error) {
	var epoch *int64
	var err error
	if ttl > 0 {
		err = c.db.QueryRow(ctx, `SELECT jobq.acquire_leadership($1, $2)`, workerID, interval(ttl)).Scan(&epoch)
	} else {
		err = c.db.QueryRow(ctx, `SELECT jobq.acquire_leadership($1)`, workerID).Scan(&epoch)
	}
	if err != nil {
		return 0, false, wrap(err, "acquire_leadership")
	}
	if epoch == nil {
		return 0, false, nil
	}
	return *epoch, true, nil
}

// MaintainResult is what one jobq.maintain call did (or, fenced, why it did nothing).
type MaintainResult struct {
	// Fenced is true when the caller does not lead with the epoch it passed: nothing was done.
	Fenced bool `json:"fenced"`
	// Epoch is the epoch passed; nil for an unfenced call.
	Epoch *int64 `json:"epoch"`
	// CurrentEpoch and Holder name the leadership as it is, when Fenced.
	CurrentEpoch int64   `json:"current_epoch"`
	Holder       *string `json:"holder"`
	// SlotsEnqueued and SlotsSkipped count the cron slots handled: jobs enqueued, and slots
	// recorded as skipped (late, forbid, superseded).
	SlotsEnqueued int `json:"slots_enqueued"`
	SlotsSkipped  int `json:"slots_skipped"`
	// LostWorkers are the workers marked lost (heartbeat older than worker_timeout); their
	// leases were rescued.
	LostWorkers []string `json:"lost_workers"`
	// Rescued counts the expired leases and timed-out jobs swept.
	Rescued int `json:"rescued"`
	// HistoryPruned counts the history rows deleted past history_retention.
	HistoryPruned int64 `json:"history_pruned"`
	// Dead are the jobs that died in this call's sweep (orphaned, timed_out or detached on
	// their last attempt). A job dies in exactly one sweep, so exactly one maintain returns it:
	// the runner that called it reports it (Config.Reporter).
	Dead []SweptDead `json:"dead"`
}

// SweptDead is a job that died in a sweep of jobq.maintain.
type SweptDead struct {
	JobID      int64   `json:"job_id"`
	Task       string  `json:"task"`
	Queue      string  `json:"queue"`
	StoreID    *string `json:"store_id"`
	Attempt    int     `json:"attempt"`
	Reason     string  `json:"reason"` // orphaned, timed_out or detached
	Worker     string  `json:"worker"` // the worker that lost it
	Error      string  `json:"error"`
	DurationMs int64   `json:"duration_ms"` // from its claim to the sweep
}

// Did reports whether the call did any work.
func (m MaintainResult) Did() bool {
	return m.SlotsEnqueued+m.SlotsSkipped+len(m.LostWorkers)+m.Rescued > 0 || m.HistoryPruned > 0
}

// Maintain runs jobq.maintain: due cron slots, lost workers, expired leases and timeouts,
// retention, each batched. With a workerID it is fenced: it acts only while workerID leads with
// epoch, and otherwise returns Fenced and changes nothing. An empty workerID calls it unfenced
// (as pg_cron does), which is safe too. Errors: ErrInvalidArgument.
func (c *Client) Maintain(ctx context.Context, workerID string, epoch int64) (MaintainResult, error) {
	var worker *string
	var ep *int64
	if workerID != "" {
		worker, ep = &workerID, &epoch
	}
	var doc []byte
	if err := c.db.QueryRow(ctx, `SELECT jobq.maintain($1, $2)`, worker, ep).Scan(&doc); err != nil {
		return MaintainResult{}, wrap(err, "maintain")
	}
	var m MaintainResult
	if err := json.Unmarshal(doc, &m); err != nil {
		return MaintainResult{}, fmt.Errorf("jobq: maintain: decode %s: %w", doc, err)
	}
	return m, nil
}
