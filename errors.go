package jobq

import "github.com/jobqdev/jobq/internal/jobsql"

// Error is an error raised by the jobq SQL engine: a stable Code such as "JOB.LEASE_LOST", the
// SQLSTATE it was raised with (class JQ), the message and the hint. Compare with errors.Is
// against the sentinels below; they match on Code.
type Error = jobsql.Error

// Sentinels for the errors of jobq.error_codes. See the error table of docs/limits.md.
var (
	ErrInvalidArgument    = &Error{Code: "JOB.INVALID_ARGUMENT"}
	ErrTaskRequired       = &Error{Code: "JOB.TASK_REQUIRED"}
	ErrPayloadNotObject   = &Error{Code: "JOB.PAYLOAD_NOT_OBJECT"}
	ErrUnknownJobKeyMode  = &Error{Code: "JOB.UNKNOWN_JOB_KEY_MODE"}
	ErrMaxAttemptsInvalid = &Error{Code: "JOB.MAX_ATTEMPTS_INVALID"}
	ErrLeaseInvalid       = &Error{Code: "JOB.LEASE_INVALID"}
	ErrLeaseLost          = &Error{Code: "JOB.LEASE_LOST"}
	ErrNotFound           = &Error{Code: "JOB.NOT_FOUND"}
	ErrStateConflict      = &Error{Code: "JOB.STATE_CONFLICT"}
	ErrUnknownSetting     = &Error{Code: "JOB.UNKNOWN_SETTING"}
	ErrBootstrapMissing   = &Error{Code: "JOB.BOOTSTRAP_MISSING"}
	// ErrUnsafeRole: a runner connected as a superuser, a BYPASSRLS role, or the owner (or a
	// member of the owner) of the jobq schema. Runners connect as worker_runtime.
	ErrUnsafeRole = &Error{Code: "WORKER.UNSAFE_ROLE"}
	// ErrNotReady: the runner cannot reach the database, or is starting or stopping.
	ErrNotReady = &Error{Code: "WORKER.NOT_READY"}
	// ErrSchemaMissing: the jobq schema is not visible, or not at the version the runner expects.
	ErrSchemaMissing = &Error{Code: "WORKER.SCHEMA_MISSING"}
	// ErrUnknownTask: no task of this name is declared (enqueue), or no handler serves it (runner).
	ErrUnknownTask = &Error{Code: "JOB.UNKNOWN_TASK"}
	// ErrPayloadInvalid: the payload breaks its task's contract or does not decode into its type.
	ErrPayloadInvalid = &Error{Code: "JOB.PAYLOAD_INVALID"}
	// ErrStoreRequired: a store-scoped task was enqueued without a store id.
	ErrStoreRequired = &Error{Code: "JOB.STORE_REQUIRED"}
	// ErrStoreNotAllowed: a system task was enqueued with a store id.
	ErrStoreNotAllowed = &Error{Code: "JOB.STORE_NOT_ALLOWED"}
	// ErrInvalidTaskName: a task name that is not kebab-case.
	ErrInvalidTaskName = &Error{Code: "JOB.INVALID_TASK_NAME"}
	// ErrTenantMismatch: the job's store is not the session's app.current_store_id.
	ErrTenantMismatch = &Error{Code: "JOB.TENANT_MISMATCH"}
	// ErrNotAllowed: an application enqueued a system task not declared AppEnqueue, or gave a
	// system job a job key; or a caller other than the engine and operators wrote a cron slot's
	// key (schedule:...).
	ErrNotAllowed = &Error{Code: "JOB.NOT_ALLOWED"}
	// ErrStoreNotBound: the login is bound to stores (jobq.store_bindings) and the session names
	// another one.
	ErrStoreNotBound = &Error{Code: "JOB.STORE_NOT_BOUND"}
	// ErrInvalidCron: a cron expression that does not parse or never fires.
	ErrInvalidCron = &Error{Code: "JOB.INVALID_CRON"}
	// ErrInvalidTimezone: a time zone PostgreSQL does not know.
	ErrInvalidTimezone = &Error{Code: "JOB.INVALID_TIMEZONE"}
	// ErrResultTooLarge: a job's result is larger than the setting max_result_bytes (bytes of its
	// JSON text); nothing was written and the job still runs under its lease.
	ErrResultTooLarge = &Error{Code: "JOB.RESULT_TOO_LARGE"}
	// ErrUnknownSchedule: no schedule has this name.
	ErrUnknownSchedule = &Error{Code: "JOB.UNKNOWN_SCHEDULE"}
	// ErrScheduleOverlap: a run now of a schedule whose concurrency policy is forbid, while a run
	// of it is still live (Client.RunScheduleNow); nothing was enqueued.
	ErrScheduleOverlap = &Error{Code: "JOB.SCHEDULE_OVERLAP"}
	// ErrDependencyNotFound: a dependency (depends_on) names no job of the new job's store, live
	// or finished: unknown, pruned, another store's, or a system job for a store's job.
	ErrDependencyNotFound = &Error{Code: "JOB.DEPENDENCY_NOT_FOUND"}
	// ErrDependencyCycle: a job would depend on itself or on a job enqueued after it by the same
	// call.
	ErrDependencyCycle = &Error{Code: "JOB.DEPENDENCY_CYCLE"}
	// ErrTooManyDependencies: a job with more than 10000 dependencies.
	ErrTooManyDependencies = &Error{Code: "JOB.TOO_MANY_DEPENDENCIES"}
	// ErrWorkflowKeyed: a job with a job_key and dependencies or a sequence key.
	ErrWorkflowKeyed = &Error{Code: "JOB.WORKFLOW_KEYED"}
	// ErrUnknownRef: an enqueue_many element's depends_on_refs names no earlier element, or two
	// elements share a ref.
	ErrUnknownRef = &Error{Code: "JOB.UNKNOWN_REF"}
	// ErrBatchNotFound: no batch has this id that the caller may use (another store's batch is
	// not found either).
	ErrBatchNotFound = &Error{Code: "JOB.BATCH_NOT_FOUND"}
	// ErrBatchSealed: jobs were added to a sealed batch; nothing was enqueued.
	ErrBatchSealed = &Error{Code: "JOB.BATCH_SEALED"}
	// ErrBatchCallbackInvalid: a batch callback could not be enqueued in the batch's store (its
	// message carries the enqueue's reason); no batch was created.
	ErrBatchCallbackInvalid = &Error{Code: "JOB.BATCH_CALLBACK_INVALID"}
	// ErrBatchStoreMismatch: a job added to a batch belongs to another store than the batch.
	ErrBatchStoreMismatch = &Error{Code: "JOB.BATCH_STORE_MISMATCH"}
	// ErrUnknownWorker: no worker has this id.
	ErrUnknownWorker = &Error{Code: "JOB.UNKNOWN_WORKER"}
	// ErrValueTooLong: a text argument is longer than its limit (docs/limits.md).
	ErrValueTooLong = &Error{Code: "JOB.VALUE_TOO_LONG"}
	// ErrOutOfRange: a number, interval, timestamp or array length is outside its range (docs/limits.md).
	ErrOutOfRange = &Error{Code: "JOB.OUT_OF_RANGE"}
	// ErrPayloadTooLarge: the payload is larger than the setting max_payload_bytes.
	ErrPayloadTooLarge = &Error{Code: "JOB.PAYLOAD_TOO_LARGE"}
	// ErrClaimIsolation: a claim ran under REPEATABLE READ or SERIALIZABLE, whose snapshot cannot
	// see a pause or the claims of other transactions; claims run under READ COMMITTED.
	ErrClaimIsolation = &Error{Code: "JOB.CLAIM_ISOLATION"}
	// ErrAlreadyInstalled: the SQL install (jobq migrate script) met a database that has jobq
	// already; upgrade it with jobq migrate up.
	ErrAlreadyInstalled = &Error{Code: "JOB.ALREADY_INSTALLED"}
)

// FromDB maps an error returned by the database to an *Error when PostgreSQL raised it with a
// jobq SQLSTATE (class JQ), wrapping the original; any other error is returned as it is. It is
// the one place where SQLSTATEs become Go errors.
func FromDB(err error) error { return jobsql.FromDB(err) }
