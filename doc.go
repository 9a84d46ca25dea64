// Package jobq is the Go client of jobq, a job queue that lives in PostgreSQL. The queue itself
// is the SQL engine in the database's jobq schema (the PL/pgSQL of the folder sql/, installed by
// `jobq migrate up`); this package calls its functions with typed arguments and maps its errors.
// It holds no queue logic: what to claim, whether a lease is still held, when a retry runs and
// whether a job is dead are decided by the database, on the database's clock.
//
// # Client
//
// A Client runs its statements on a DB: a *pgxpool.Pool, a *pgx.Conn or a pgx.Tx. A Client has
// no state of its own and is safe for concurrent use when its DB is. On a transaction, an enqueue
// commits or rolls back with the caller's own writes. The database login decides what a Client
// may do: applications connect as members of jobq_app (enqueue), runners as worker_runtime
// (declare tasks and schedules, claim, heartbeat, complete, fail, snooze, fan out), operators as
// members of jobq_operator (unschedule; their other acts are package
// github.com/jobqdev/jobq/operator's).
//
// # Enqueue
//
// Client.Enqueue adds one job and Client.EnqueueMany adds a batch in one statement, all or
// nothing. The payload is marshalled to a JSON object; nil is {}. The task must be declared first
// (Client.DefineTask, or a runner's typed tasks): a TaskDefinition is system-scoped unless Scope
// says ScopeStore, accepts any payload unless PayloadSchema is set, and may carry defaults for its
// jobs. The zero EnqueueOptions enqueue a job that is due now, with the task's defaults and, where
// the task declares none, the engine's: queue "default", priority 0, and the setting
// default_max_attempts (25 as shipped). A job key (EnqueueOptions.JobKey) makes the enqueue merge
// with a live job of the same key; the mode defaults to JobKeyReplace. A store-scoped job belongs
// to the store of EnqueueOptions.StoreID, or else of the payload's "storeId", and an application
// may enqueue only for the store of its transaction's app.current_store_id.
//
// # Fan-out and schedules
//
// Client.FanOut enqueues a store-scoped task once for every store in one statement; its job key
// defaults to "<task>:{storeId}" and its mode to JobKeyPreserveRunAt, so running it twice adds no
// duplicates. Client.Schedule declares a cron schedule of a system task; a ScheduleDefinition
// states the default of each of its fields (time zone UTC, ConcurrencyAllow, BackfillAll, a
// backfill window of DefaultBackfillWindow, slot key "slotAt"). Declaring again with nothing
// changed changes nothing, so every runner may declare at each start.
//
// # Errors
//
// The engine raises errors with a stable code such as "JOB.LEASE_LOST" (SQLSTATE class JQ).
// Every method returns them as an *Error; compare with errors.Is against the sentinels
// (ErrLeaseLost, ErrUnknownTask, ErrTenantMismatch and the others), which match on the code.
// errors.As reaches the *pgconn.PgError underneath.
//
// # Runner
//
// The methods that claim and finish jobs (Claim, Heartbeat, Complete, Fail, Snooze, SnoozeMany,
// SetProgress) are enough for a worker loop of one's own. Package github.com/jobqdev/jobq/runner
// is the ready one, to embed in a Go service: typed tasks, handlers, leases kept alive, schedules,
// leader election and metrics; its own calls (claims from claim positions, worker registration,
// leadership, maintenance, sweeps) are internal to the module, not part of this package. They
// share the statements of Claim, Heartbeat and Complete, return this package's Job, Lease and
// Outcome, and map errors to the same *Error. `jobq worker` runs it as a process. Most services
// use this package to enqueue and the runner to work.
//
// # Examples
//
// example_test.go shows an application enqueueing in its own transaction (ExampleClient_Enqueue)
// and the error mapping (ExampleError).
package jobq
