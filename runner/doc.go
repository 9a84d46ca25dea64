// Package runner runs jobq jobs inside any Go service: it waits for work, claims jobs, runs their
// handlers concurrently, keeps their leases alive and reports how each attempt ended. `jobq worker`
// is this package run as a process.
//
// The runner holds no queue logic of its own. Every state change is a call to the SQL engine
// through jobq.Client: claim_job to take jobs, heartbeat_jobs to renew leases, complete_jobs and
// fail_jobs to end attempts, snooze to hand a job back, rescue_expired to sweep jobs whose worker
// vanished. Whether a lease is still held, when a retry runs and whether a job is dead are decided
// by the database; Go timers only pace the calls.
//
// # Tasks
//
// The engine refuses to enqueue a task that jobq.tasks does not declare. A typed task (NewTask,
// NewStoreTask) carries its declaration: its scope, the payload contract derived from its payload
// type (PayloadSchemaOf) and its defaults. Handle and HandleStore register it, and Run declares
// every registered declaration, and those of Config.Tasks, before it claims; declaring is
// idempotent, so every runner of a service declares at each start. A task handled with
// Runner.Handle declares nothing and keeps the declaration made elsewhere (in SQL, with
// jobq.define_task, or in Config.Tasks).
//
// # The loop
//
// A dedicated connection LISTENs on channel "jobq" (payload: the queue name). A notification is
// only a hint: the runner also polls every PollInterval, and after any reconnect of the listener
// it LISTENs again and polls at once, so a lost notification never strands a job.
//
// Each claim asks for as many jobs as there are free handler slots (Concurrency minus running
// handlers). Every handler runs in its own goroutine with a context that is cancelled when the
// job's lease is lost (the heartbeat no longer renews it: the job was rescued, cancelled or
// deleted), when the job's timeout passes, or when a shutdown runs out of grace. A panicking
// handler fails its attempt with the stack in last_error; the process goes on.
//
// Results are written by one finisher goroutine: it writes at once when it is idle, and while a
// write is in flight it gathers the results that arrive, so a busy runner completes and fails
// jobs in batches (one complete_jobs and one fail_jobs call per batch).
//
// # Shutdown
//
// When the context given to Run ends, the runner stops claiming at once and lets running
// handlers finish for up to ShutdownGrace. Then it cancels the rest and hands their leases back
// with jobq.snooze(delay 0): they run again at once, elsewhere, without using an attempt.
// StopAndCancel skips the grace period.
//
// # Logs
//
// One log/slog line per claim, success, failure, retry, death, lost lease and hand-back, each
// with taskName, jobId, storeId (empty for system jobs) and attempt; lines about a finished
// handler add duration, in milliseconds.
package runner
