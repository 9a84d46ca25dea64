package jobq_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
)

// bundle is one test's database and the clients on it. Workers (claim, heartbeat, complete, fail,
// snooze, rescue, task declarations, fan-out) use worker_runtime, applications (enqueue)
// jobq_app, and only inspection and time travel use the superuser.
type bundle struct {
	ctx        context.Context
	db         *dbtest.DB
	admin      *pgxpool.Pool // postgres: inspection and time travel only
	appPool    *pgxpool.Pool // jobq_app
	workerPool *pgxpool.Pool // worker_runtime
	app        *jobq.Client
	worker     *jobq.Client
}

type setupOptions struct {
	AppConns    int32 // MaxConns of the jobq_app pool; 0 = pgxpool's default
	WorkerConns int32 // MaxConns of the worker_runtime pool; 0 = pgxpool's default
}

func setup(t *testing.T) *bundle { return setupWith(t, setupOptions{}) }

func setupWith(t *testing.T, opts setupOptions) *bundle {
	t.Helper()
	db := dbtest.New(t)
	b := &bundle{
		ctx:        t.Context(),
		db:         db,
		admin:      db.Pool(t, "postgres", 4),
		appPool:    db.Pool(t, "jobq_app", opts.AppConns),
		workerPool: db.Pool(t, "worker_runtime", opts.WorkerConns),
	}
	b.app = jobq.NewClient(b.appPool)
	b.worker = jobq.NewClient(b.workerPool)
	return b
}

// define declares system tasks without a payload contract, as a runner does at start-up
// (worker_runtime); enqueue refuses a task that is not declared. The application client enqueues
// them in these tests, so they are declared AppEnqueue.
func (b *bundle) define(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		require.NoError(t, b.worker.DefineTask(b.ctx, jobq.TaskDefinition{Name: name, Scope: jobq.ScopeSystem, AppEnqueue: true}))
	}
}

// defineStore declares store-scoped tasks without a payload contract: each job needs a store.
func (b *bundle) defineStore(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		require.NoError(t, b.worker.DefineTask(b.ctx, jobq.TaskDefinition{Name: name, Scope: jobq.ScopeStore}))
	}
}

// inStore runs fn with a client on a transaction of pool whose app.current_store_id is store, as
// an application enqueues a store's jobs; store "" runs fn on the pool itself (system jobs). The
// transaction commits when fn returns nil.
func (b *bundle) inStore(pool *pgxpool.Pool, store string, fn func(c *jobq.Client) error) error {
	if store == "" {
		return fn(jobq.NewClient(pool))
	}
	return pgx.BeginFunc(b.ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(b.ctx, `SELECT pg_catalog.set_config('app.current_store_id', $1, true)`, store); err != nil {
			return err
		}
		return fn(jobq.NewClient(tx))
	})
}

// conns acquires n connections of pool up front, so that goroutines released together each run
// on their own backend instead of queueing for a connection. They are released when t ends.
func conns(t *testing.T, pool *pgxpool.Pool, n int) []*pgxpool.Conn {
	t.Helper()
	out := make([]*pgxpool.Conn, n)
	for i := range out {
		c, err := pool.Acquire(t.Context())
		require.NoError(t, err, "acquire connection %d of %d", i+1, n)
		out[i] = c
		t.Cleanup(c.Release)
	}
	return out
}

// together runs fn(i) for i in [0, n) on n goroutines that are all started and waiting before any
// of them is released, and waits for all of them. Errors come back by index, for the test goroutine
// to check (require must not be called off it).
func together(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			errs[i] = fn(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
	return errs
}

func requireNoErrors(t *testing.T, errs []error, what string) {
	t.Helper()
	for i, err := range errs {
		require.NoError(t, err, "%s: goroutine %d", what, i)
	}
}

// --- factories -------------------------------------------------------------------------------

type payload struct {
	N int `json:"n"`
}

type enqueueOptions struct {
	Task    string // default "task"
	Payload any    // default {}
	jobq.EnqueueOptions
}

// enqueue adds one job through the application client and returns its id; a job of a store is
// enqueued in a transaction of that store (inStore). The task must be declared (define).
func (b *bundle) enqueue(t *testing.T, opts enqueueOptions) int64 {
	t.Helper()
	if opts.Task == "" {
		opts.Task = "task"
	}
	// Applications may not key system jobs (JOB.NOT_ALLOWED): keyed system jobs are enqueued as
	// runners and their handlers do, as worker_runtime.
	pool := b.appPool
	if opts.StoreID == "" && opts.JobKey != "" {
		pool = b.workerPool
	}
	var id int64
	err := b.inStore(pool, opts.StoreID, func(c *jobq.Client) error {
		var err error
		id, err = c.Enqueue(b.ctx, opts.Task, opts.Payload, opts.EnqueueOptions)
		return err
	})
	require.NoError(t, err)
	require.NotZero(t, id)
	return id
}

type manyOptions struct {
	Count int // jobs to enqueue
	Chunk int // jobs per EnqueueMany call; default 1000
	Spec  jobq.JobSpec
}

// enqueueMany adds Count copies of Spec (payload {"n": i}) in chunks and returns the ids in order.
// Spec is a system job of a declared task.
func (b *bundle) enqueueMany(t *testing.T, opts manyOptions) []int64 {
	t.Helper()
	if opts.Chunk == 0 {
		opts.Chunk = 1000
	}
	if opts.Spec.Task == "" {
		opts.Spec.Task = "task"
	}
	ids := make([]int64, 0, opts.Count)
	for start := 0; start < opts.Count; start += opts.Chunk {
		specs := make([]jobq.JobSpec, 0, opts.Chunk)
		for i := start; i < min(start+opts.Chunk, opts.Count); i++ {
			spec := opts.Spec
			spec.Payload = payload{N: i}
			specs = append(specs, spec)
		}
		client := b.app
		if opts.Spec.JobKey != "" && opts.Spec.StoreID == "" {
			client = b.worker // applications may not key system jobs
		}
		got, err := client.EnqueueMany(b.ctx, specs)
		require.NoError(t, err)
		require.Len(t, got, len(specs))
		ids = append(ids, got...)
	}
	return ids
}

type claimOptions struct {
	Worker string        // default "worker"
	Queues []string      // default ["default"]
	Max    int           // default 1
	Lease  time.Duration // default 30s
	Client *jobq.Client  // default the worker_runtime pool
}

func (b *bundle) claim(t *testing.T, opts claimOptions) []jobq.Job {
	t.Helper()
	if opts.Worker == "" {
		opts.Worker = "worker"
	}
	if opts.Queues == nil {
		opts.Queues = []string{"default"}
	}
	if opts.Max == 0 {
		opts.Max = 1
	}
	if opts.Lease == 0 {
		opts.Lease = 30 * time.Second
	}
	if opts.Client == nil {
		opts.Client = b.worker
	}
	jobs, err := opts.Client.Claim(b.ctx, opts.Worker, opts.Queues, opts.Max, opts.Lease)
	require.NoError(t, err)
	require.LessOrEqual(t, len(jobs), opts.Max)
	return jobs
}

// claimOne claims exactly one job and fails the test when none is due.
func (b *bundle) claimOne(t *testing.T, opts claimOptions) jobq.Job {
	t.Helper()
	opts.Max = 1
	jobs := b.claim(t, opts)
	require.Len(t, jobs, 1, "claim by %s found no due job", opts.Worker)
	return jobs[0]
}

// --- inspection and time travel (superuser) --------------------------------------------------

// jobRow is a row of jobq.jobs or jobq.job_history as the tests read it.
type jobRow struct {
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

func (r jobRow) payloadN(t *testing.T) int {
	t.Helper()
	var p payload
	require.NoError(t, json.Unmarshal(r.Payload, &p), "payload %s", r.Payload)
	return p.N
}

const jobColumns = `id, task, queue, payload, store_id::text AS store_id, priority, run_at, state,
	attempt, max_attempts, job_key, locked_by, lease_token::text AS lease_token, lease_expires_at,
	timeout::text AS timeout, reason, last_error, error_code, created_at, updated_at`

// rows runs a query over jobq.jobs or jobq.job_history; where may use $1... with args.
func (b *bundle) rows(t *testing.T, table, where string, args ...any) []jobRow {
	t.Helper()
	rows, err := b.admin.Query(b.ctx, fmt.Sprintf("SELECT %s FROM jobq.%s WHERE %s ORDER BY id", jobColumns, table, where), args...)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowToStructByName[jobRow])
	require.NoError(t, err)
	return out
}

// live returns the row of job id in jobq.jobs and fails the test when it is not there.
func (b *bundle) live(t *testing.T, id int64) jobRow {
	t.Helper()
	got := b.rows(t, "jobs", "id = $1", id)
	require.Len(t, got, 1, "job %d is not in jobq.jobs (history: %+v)", id, b.rows(t, "job_history", "id = $1", id))
	return got[0]
}

// finished returns the row of job id in jobq.job_history and fails the test when it is not there.
func (b *bundle) finished(t *testing.T, id int64) jobRow {
	t.Helper()
	got := b.rows(t, "job_history", "id = $1", id)
	require.Len(t, got, 1, "job %d is not in jobq.job_history (live: %+v)", id, b.rows(t, "jobs", "id = $1", id))
	return got[0]
}

func (b *bundle) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.admin.QueryRow(b.ctx, query, args...).Scan(&n))
	return n
}

// dbNow is the database's clock, the one run_at and leases are measured by.
func (b *bundle) dbNow(t *testing.T) time.Time {
	t.Helper()
	var now time.Time
	require.NoError(t, b.admin.QueryRow(b.ctx, `SELECT clock_timestamp()`).Scan(&now))
	return now
}

type rescued struct {
	JobID   int64
	Outcome string
	Reason  string
}

// rescueAt runs the sweeper as if the clock read now() + ahead (a PostgreSQL interval).
func (b *bundle) rescueAt(t *testing.T, batch int, ahead string) []rescued {
	t.Helper()
	rows, err := b.admin.Query(b.ctx, `SELECT job_id, outcome, reason FROM jobq._rescue($1, now() + $2::interval)`, batch, ahead)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[rescued])
	require.NoError(t, err)
	return out
}

// makeDue moves the run_at of waiting jobs to now, so a claim through the real clock finds them.
func (b *bundle) makeDue(t *testing.T, ids ...int64) {
	t.Helper()
	tag, err := b.admin.Exec(b.ctx,
		`UPDATE jobq.jobs SET run_at = now() WHERE id = ANY ($1) AND state IN ('queued', 'retry_pending')`, ids)
	require.NoError(t, err)
	require.Equal(t, int64(len(ids)), tag.RowsAffected(), "makeDue: not every job is waiting")
}

func leasesOf(jobs []jobq.Job) []jobq.Lease {
	out := make([]jobq.Lease, len(jobs))
	for i := range jobs {
		out[i] = jobs[i].Lease()
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// leaseOf is j.Lease() for a Job that is not addressable (a map value).
func leaseOf(j jobq.Job) jobq.Lease { return j.Lease() }
