// Package testbundle is what the Go tests of the client API (package jobq) and of the SQL engine
// (package sql) share: a private migrated database with a jobq.Client per role, factories that
// declare tasks, enqueue and claim as the roles do, and superuser inspection of the job tables.
//
// Applications (enqueue) use jobq_app; workers (claim, heartbeat, complete, fail, snooze, rescue,
// task declarations, fan-out) use worker_runtime; only inspection and time travel use the
// superuser. Every helper fails the test on an error.
package testbundle

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
)

// StoreID is the store the tests enqueue store-scoped jobs for when one store is enough.
const StoreID = "3f2c1a9e-5b7d-4c8e-9f00-112233445566"

// Bundle is one test's database and the clients on it.
type Bundle struct {
	Ctx        context.Context
	DB         *dbtest.DB
	Admin      *pgxpool.Pool // postgres: inspection and time travel only
	AppPool    *pgxpool.Pool // jobq_app
	WorkerPool *pgxpool.Pool // worker_runtime
	App        *jobq.Client  // on AppPool
	Worker     *jobq.Client  // on WorkerPool
}

// Options sizes the pools of a Bundle.
type Options struct {
	AppConns    int32 // MaxConns of the jobq_app pool; 0 = pgxpool's default
	WorkerConns int32 // MaxConns of the worker_runtime pool; 0 = pgxpool's default
}

// New returns a Bundle on a fresh database with pools of pgxpool's default size.
func New(t *testing.T) *Bundle { return NewWith(t, Options{}) }

// NewWith returns a Bundle on a fresh database with pools sized by opts.
func NewWith(t *testing.T, opts Options) *Bundle {
	t.Helper()
	db := dbtest.New(t)
	b := &Bundle{
		Ctx:        t.Context(),
		DB:         db,
		Admin:      db.Pool(t, "postgres", 4),
		AppPool:    db.Pool(t, "jobq_app", opts.AppConns),
		WorkerPool: db.Pool(t, "worker_runtime", opts.WorkerConns),
	}
	b.App = jobq.NewClient(b.AppPool)
	b.Worker = jobq.NewClient(b.WorkerPool)
	return b
}

// Define declares system tasks without a payload contract, as a runner does at start-up
// (worker_runtime); enqueue refuses a task that is not declared. The application client enqueues
// them in these tests, so they are declared AppEnqueue.
func (b *Bundle) Define(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		require.NoError(t, b.Worker.DefineTask(b.Ctx, jobq.TaskDefinition{Name: name, Scope: jobq.ScopeSystem, AppEnqueue: true}))
	}
}

// DefineStore declares store-scoped tasks without a payload contract: each job needs a store.
func (b *Bundle) DefineStore(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		require.NoError(t, b.Worker.DefineTask(b.Ctx, jobq.TaskDefinition{Name: name, Scope: jobq.ScopeStore}))
	}
}

// InStore runs fn with a client on a transaction of pool whose app.current_store_id is store, as
// an application enqueues a store's jobs; store "" runs fn on the pool itself (system jobs). The
// transaction commits when fn returns nil.
func (b *Bundle) InStore(pool *pgxpool.Pool, store string, fn func(c *jobq.Client) error) error {
	if store == "" {
		return fn(jobq.NewClient(pool))
	}
	return pgx.BeginFunc(b.Ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(b.Ctx, `SELECT pg_catalog.set_config('app.current_store_id', $1, true)`, store); err != nil {
			return err
		}
		return fn(jobq.NewClient(tx))
	})
}

// --- factories -------------------------------------------------------------------------------

// Payload is the payload of the jobs that EnqueueMany adds.
type Payload struct {
	N int `json:"n"`
}

// EnqueueArgs is one job for Enqueue.
type EnqueueArgs struct {
	Task    string // default "task"
	Payload any    // default {}
	jobq.EnqueueOptions
}

// Enqueue adds one job through the application client and returns its id; a job of a store is
// enqueued in a transaction of that store (InStore). The task must be declared (Define).
func (b *Bundle) Enqueue(t *testing.T, args EnqueueArgs) int64 {
	t.Helper()
	if args.Task == "" {
		args.Task = "task"
	}
	// Applications may not key system jobs (JOB.NOT_ALLOWED): keyed system jobs are enqueued as
	// runners and their handlers do, as worker_runtime.
	pool := b.AppPool
	if args.StoreID == "" && args.JobKey != "" {
		pool = b.WorkerPool
	}
	var id int64
	err := b.InStore(pool, args.StoreID, func(c *jobq.Client) error {
		var err error
		id, err = c.Enqueue(b.Ctx, args.Task, args.Payload, args.EnqueueOptions)
		return err
	})
	require.NoError(t, err)
	require.NotZero(t, id)
	return id
}

// ManyArgs is a batch for EnqueueMany.
type ManyArgs struct {
	Count int // jobs to enqueue
	Chunk int // jobs per EnqueueMany call; default 1000
	Spec  jobq.JobSpec
}

// EnqueueMany adds Count copies of Spec (payload {"n": i}) in chunks and returns the ids in order.
// Spec is a system job of a declared task; its Task defaults to "task".
func (b *Bundle) EnqueueMany(t *testing.T, args ManyArgs) []int64 {
	t.Helper()
	if args.Chunk == 0 {
		args.Chunk = 1000
	}
	if args.Spec.Task == "" {
		args.Spec.Task = "task"
	}
	ids := make([]int64, 0, args.Count)
	for start := 0; start < args.Count; start += args.Chunk {
		specs := make([]jobq.JobSpec, 0, args.Chunk)
		for i := start; i < min(start+args.Chunk, args.Count); i++ {
			spec := args.Spec
			spec.Payload = Payload{N: i}
			specs = append(specs, spec)
		}
		client := b.App
		if args.Spec.JobKey != "" && args.Spec.StoreID == "" {
			client = b.Worker // applications may not key system jobs
		}
		got, err := client.EnqueueMany(b.Ctx, specs)
		require.NoError(t, err)
		require.Len(t, got, len(specs))
		ids = append(ids, got...)
	}
	return ids
}

// ClaimArgs is one claim for Claim.
type ClaimArgs struct {
	Worker string        // default "worker"
	Queues []string      // default ["default"]
	Max    int           // default 1
	Lease  time.Duration // default 30s
	Client *jobq.Client  // default the worker_runtime client
}

// Claim claims up to Max due jobs and returns them.
func (b *Bundle) Claim(t *testing.T, args ClaimArgs) []jobq.Job {
	t.Helper()
	if args.Worker == "" {
		args.Worker = "worker"
	}
	if args.Queues == nil {
		args.Queues = []string{"default"}
	}
	if args.Max == 0 {
		args.Max = 1
	}
	if args.Lease == 0 {
		args.Lease = 30 * time.Second
	}
	if args.Client == nil {
		args.Client = b.Worker
	}
	jobs, err := args.Client.Claim(b.Ctx, args.Worker, args.Queues, args.Max, args.Lease)
	require.NoError(t, err)
	require.LessOrEqual(t, len(jobs), args.Max)
	return jobs
}

// ClaimOne claims exactly one job and fails the test when none is due.
func (b *Bundle) ClaimOne(t *testing.T, args ClaimArgs) jobq.Job {
	t.Helper()
	args.Max = 1
	jobs := b.Claim(t, args)
	require.Len(t, jobs, 1, "claim by %s found no due job", args.Worker)
	return jobs[0]
}

// --- inspection and time travel (superuser) --------------------------------------------------

// JobRow is a row of jobq.jobs or jobq.job_history as the tests read it.
type JobRow struct {
	ID             int64      `db:"id"`
	Task           string     `db:"task"`
	Queue          string     `db:"queue"`
	Payload        []byte     `db:"payload"`
	StoreID        *string    `db:"store_id"`
	Priority       int16      `db:"priority"`
	RunAt          time.Time  `db:"run_at"`
	State          string     `db:"state"`
	Attempt        int        `db:"attempt"`
	MaxAttempts    int        `db:"max_attempts"`
	JobKey         *string    `db:"job_key"`
	LockedBy       *string    `db:"locked_by"`
	LeaseToken     *string    `db:"lease_token"`
	LeaseExpiresAt *time.Time `db:"lease_expires_at"`
	Timeout        *string    `db:"timeout"`
	Reason         *string    `db:"reason"`
	LastError      *string    `db:"last_error"`
	ErrorCode      *string    `db:"error_code"`
	CreatedAt      time.Time  `db:"created_at"`
	UpdatedAt      time.Time  `db:"updated_at"`
}

// PayloadN is the n of a Payload.
func (r JobRow) PayloadN(t *testing.T) int {
	t.Helper()
	var p Payload
	require.NoError(t, json.Unmarshal(r.Payload, &p), "payload %s", r.Payload)
	return p.N
}

const jobColumns = `id, task, queue, payload, store_id::text AS store_id, priority, run_at, state,
	attempt, max_attempts, job_key, locked_by, lease_token::text AS lease_token, lease_expires_at,
	timeout::text AS timeout, reason, last_error, error_code, created_at, updated_at`

// Rows runs a query over jobq.jobs or jobq.job_history (table); where may use $1... with args.
func (b *Bundle) Rows(t *testing.T, table, where string, args ...any) []JobRow {
	t.Helper()
	rows, err := b.Admin.Query(b.Ctx, fmt.Sprintf("SELECT %s FROM jobq.%s WHERE %s ORDER BY id", jobColumns, table, where), args...)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[JobRow])
	require.NoError(t, err)
	return out
}

// Live returns the row of job id in jobq.jobs and fails the test when it is not there.
func (b *Bundle) Live(t *testing.T, id int64) JobRow {
	t.Helper()
	got := b.Rows(t, "jobs", "id = $1", id)
	require.Len(t, got, 1, "job %d is not in jobq.jobs (history: %+v)", id, b.Rows(t, "job_history", "id = $1", id))
	return got[0]
}

// Finished returns the row of job id in jobq.job_history and fails the test when it is not there.
func (b *Bundle) Finished(t *testing.T, id int64) JobRow {
	t.Helper()
	got := b.Rows(t, "job_history", "id = $1", id)
	require.Len(t, got, 1, "job %d is not in jobq.job_history (live: %+v)", id, b.Rows(t, "jobs", "id = $1", id))
	return got[0]
}

// Count runs a query that returns one integer, as the superuser.
func (b *Bundle) Count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.Admin.QueryRow(b.Ctx, query, args...).Scan(&n))
	return n
}

// DBNow is the database's clock, the one run_at and leases are measured by.
func (b *Bundle) DBNow(t *testing.T) time.Time {
	t.Helper()
	var now time.Time
	require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT clock_timestamp()`).Scan(&now))
	return now
}

// MakeDue moves the run_at of waiting jobs to now, so a claim through the real clock finds them.
func (b *Bundle) MakeDue(t *testing.T, ids ...int64) {
	t.Helper()
	tag, err := b.Admin.Exec(b.Ctx,
		`UPDATE jobq.jobs SET run_at = now() WHERE id = ANY ($1) AND state IN ('queued', 'retry_pending')`, ids)
	require.NoError(t, err)
	require.Equal(t, int64(len(ids)), tag.RowsAffected(), "MakeDue: not every job is waiting")
}

// Ptr returns a pointer to v, for comparing nullable columns.
func Ptr[T any](v T) *T { return &v }

// LeaseOf is j.Lease() for a Job that is not addressable (a map value).
func LeaseOf(j jobq.Job) jobq.Lease { return j.Lease() }
