// Package runner runs jobq jobs inside any Go service: it waits for work, claims jobs, runs their
// handlers concurrently, keeps their leases alive and reports how each attempt ended. `jobq worker`
// is this package run as a process.
//
// The runner holds no queue logic of its own. Every state change is a call to the SQL engine
// through jobq.Client, and for the calls only a runner makes through the module's internal/engine
// (an Engine is a jobq.Client with those calls added): claim_job to take jobs, heartbeat_jobs to
// renew leases, complete_jobs and fail_jobs to end attempts, snooze to hand a job back;
// register_worker and worker_heartbeat to say it is alive and learn what it must do;
// acquire_leadership and maintain, on one runner at a time, for everything periodic. Whether a
// lease is still held, when a retry runs, whether a job is dead, who leads, whether a leader may
// still act and whether a worker may claim are decided by the database; Go timers only pace the
// calls, and the runner obeys the answers. Time always comes from the database.
//
// # Tasks
//
// The engine refuses to enqueue a task that jobq.tasks does not declare. A typed task (NewTask,
// NewStoreTask) carries its declaration: its scope, the payload contract derived from its payload
// type (PayloadSchemaOf) and its defaults. Handle and HandleStore register it, and Run declares
// every registered declaration, and those of Config.Tasks, before it claims; declaring is
// idempotent, so every runner of a service declares at each start. A task handled with
// Runner.Handle declares nothing and keeps the declaration made elsewhere (in SQL, with
// jobq.define_task, or in Config.Tasks). A runner's declaration keeps what an operator set: the
// handler name (jobq.set_task_handler) and app_enqueue as an operator declared it.
//
// The runner claims only the tasks it has handlers for: it registers them (register_worker's
// tasks) and passes them, as one array, to every claim_job and claim_passed_over, so a job of
// another task stays queued for a worker that serves it, whatever its queue, and a runner without
// any handler claims nothing. A waiting job whose task no live worker of its queue serves shows
// as not served (jobq.stats, jobq queues list, the dashboard, jobq_jobs_not_served).
//
// # Schedules
//
// Config.Schedules declares cron schedules (jobq.schedule) when Run starts, after the tasks, so
// a schedule may name a typed task of the same runner (Task.Schedule builds the declaration).
// Declaring is idempotent: a schedule that differs in nothing is left exactly as it was, so every
// runner of a service declares at each start. A schedule removed from the code stays until
// jobq.unschedule removes it. Schedules fire only through the leader's maintain (or pg_cron's):
// the slot (schedule, instant) is a primary key, so a slot gets one job however many callers
// tick at once.
//
// # Workers
//
// At start the runner registers in jobq.workers (register_worker: worker id, host name, pid,
// queues, concurrency, Config.Version, the tasks it has handlers for) and then heartbeats its row every
// worker_heartbeat_interval (5 seconds as shipped) with the number of running handlers. Each
// answer carries the state the engine holds for the worker and the current settings, and the
// runner obeys within that heartbeat:
//
//   - active: it claims.
//   - draining (jobq.drain_worker): it claims nothing new and finishes the jobs it holds; /readyz
//     answers 503 with WORKER.NOT_READY ("draining"), so a load balancer stops sending it work,
//     while /healthz stays 200. jobq.resume_worker makes it active again: it claims at once.
//   - detached (jobq.detach_worker): it stops claiming under its id for good, even if resumed
//     later; once it holds no lease any more it rejoins under a new id (Config.WorkerID with
//     "-r1" added, "-r2" at the next detach) without a restart (rejoin.go). Its running jobs are
//     CONFIRMING (seed 002 section 7.3): told
//     at once by NOTIFY on ControlChannel, it confirms each with jobq.confirm_continuation, up to
//     continuation_retry_count times continuation_retry_interval apart, and finishes the
//     confirmed ones; a job it cannot confirm in time has its handler cancelled (cause
//     ErrDetached) and its result discarded, and the engine records the attempt as failed with
//     reason detached and runs the job elsewhere.
//
// Until that heartbeat answers, the runner may still claim: the engine's claim_job does not
// look at the worker's state.
//
// Settings apply without a restart: poll_interval (unless Config.PollInterval is set),
// default_lease (unless Config.Lease is set; the lease heartbeat follows it),
// worker_heartbeat_interval, leader_ttl and maintain_interval are read again at every worker
// heartbeat; each change is logged ("settings applied") and re-arms the timers that use it.
// When Run returns, the runner deregisters (deregister_worker: state stopped), which also hands
// its leadership over at once. A runner that dies without deregistering is marked lost by the
// leader's maintain after worker_timeout, and its leases are rescued then.
//
// # Leadership
//
// Every runner (unless Config.NoLeader) calls acquire_leadership every leader_ttl / 3 (15
// seconds / 3 as shipped). The engine gives the leadership to one worker at a time, with a lease
// of leader_ttl and a fencing epoch that grows whenever the leader changes. The runner that
// holds it calls maintain(worker id, epoch) every maintain_interval (1 second as shipped):
// maintain enqueues due cron slots, marks workers lost and rescues their leases, sweeps expired
// leases and timed-out jobs, and prunes history. It logs what each call did (at info level when
// it did anything, at debug otherwise). maintain acts only while that worker holds that epoch,
// and holds the leadership row until it commits, so a leader that was paused (GC, SIGSTOP, a
// network partition) past its lease and wakes up gets "fenced" and changes nothing: the runner
// then stops acting as leader at once and goes on as a follower. A leader that dies is replaced
// when its lease lapses (within leader_ttl plus one renewal period); one that stops cleanly is
// replaced at the next renewal of another runner. A leader that an operator demotes
// (jobq.demote_leader) is fenced at once and held off for leader_ttl: another runner takes over
// at its next renewal, and the demoted one leads again only after that. Leadership changes are
// logged ("leadership acquired", "leadership lost", "maintain fenced", "leadership given up").
//
// Rescuing jobs whose worker vanished is maintain's work: only the leader sweeps. At least one
// runner per database must be able to lead, or pg_cron must call jobq.maintain(), or expired
// leases are never rescued and schedules never fire.
//
// # The loop
//
// A dedicated connection LISTENs on channel "jobq" (payload: the queue name). A notification is
// only a hint: the runner also polls every PollInterval, and after any reconnect of the listener
// it LISTENs again and polls at once, so a lost notification never strands a job.
//
// Under the database's setting doorbell (true as installed) enqueue NOTIFYs only while a runner
// of the queue waits, so a runner rings for itself: when a claim comes back short it holds its
// queues' doorbells on the LISTEN connection (jobq.hold_doorbell), checks that no enqueue that
// could have missed them is in flight (jobq.doorbell_quiet; if one is, it claims again after 1 ms,
// doubling up to 100 ms), claims once more and waits. It lets go (jobq.release_doorbell) when a
// claim comes back full or a notification wakes it. See doorbell.go.
//
// # Wake-up modes
//
// Config.Wakeup chooses how the runner learns of new jobs between polls. WakeupNotify (the
// default) is the LISTEN connection above. WakeupWAL reads logical messages instead: the runner
// connects as jobq_waker (Config.WakeupURL) with a replication connection, creates a temporary
// pgoutput slot and streams the messages with prefix "jobq" (content: the queue name) that the
// engine emits with pg_logical_emit_message when a job becomes due, so enqueuers take no NOTIFY
// lock at commit. The database's setting wakeup decides what the engine sends (notify, wal or
// both), in enqueue and in retry_job, requeue_dead and snooze_jobs alike; runners in WAL mode need
// wal or both. The server drops a temporary slot when its connection ends, however it ends, so an
// abandoned runner never holds WAL back; the runner confirms what it read every second, and
// jobq_wakeup_slot_lag_bytes shows how far its slot trails. When no slot can be had (wal_level is
// not logical, no REPLICATION, no free slot or WAL sender, PostgreSQL before 14, the connection
// refused or lost) the runner polls, logs why with a hint, sets jobq_wakeup_fallback to 1, counts
// jobq_wakeup_fallbacks_total{reason} and tries again with backoff. Polling always goes on, so a
// lost wake-up never strands a job.
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
// handler add duration, in milliseconds. Besides: leadership changes, each maintain that did
// something, worker state changes (draining, active, detached) and setting changes.
package runner
