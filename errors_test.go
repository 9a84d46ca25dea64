package jobq_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
)

// sentinels are the Go errors of jobq.error_codes, by code.
var sentinels = map[string]*jobq.Error{
	"JOB.INVALID_ARGUMENT":       jobq.ErrInvalidArgument,
	"JOB.TASK_REQUIRED":          jobq.ErrTaskRequired,
	"JOB.PAYLOAD_NOT_OBJECT":     jobq.ErrPayloadNotObject,
	"JOB.UNKNOWN_JOB_KEY_MODE":   jobq.ErrUnknownJobKeyMode,
	"JOB.MAX_ATTEMPTS_INVALID":   jobq.ErrMaxAttemptsInvalid,
	"JOB.LEASE_INVALID":          jobq.ErrLeaseInvalid,
	"JOB.LEASE_LOST":             jobq.ErrLeaseLost,
	"JOB.NOT_FOUND":              jobq.ErrNotFound,
	"JOB.STATE_CONFLICT":         jobq.ErrStateConflict,
	"JOB.UNKNOWN_SETTING":        jobq.ErrUnknownSetting,
	"JOB.BOOTSTRAP_MISSING":      jobq.ErrBootstrapMissing,
	"JOB.INVALID_CRON":           jobq.ErrInvalidCron,
	"JOB.INVALID_TIMEZONE":       jobq.ErrInvalidTimezone,
	"JOB.UNKNOWN_SCHEDULE":       jobq.ErrUnknownSchedule,
	"JOB.SCHEDULE_OVERLAP":       jobq.ErrScheduleOverlap,
	"JOB.UNKNOWN_WORKER":         jobq.ErrUnknownWorker,
	"JOB.BATCH_NOT_FOUND":        jobq.ErrBatchNotFound,
	"JOB.BATCH_SEALED":           jobq.ErrBatchSealed,
	"JOB.BATCH_CALLBACK_INVALID": jobq.ErrBatchCallbackInvalid,
	"JOB.BATCH_STORE_MISMATCH":   jobq.ErrBatchStoreMismatch,
	"WORKER.UNSAFE_ROLE":         jobq.ErrUnsafeRole,
	"WORKER.NOT_READY":           jobq.ErrNotReady,
	"WORKER.SCHEMA_MISSING":      jobq.ErrSchemaMissing,
	"JOB.UNKNOWN_TASK":           jobq.ErrUnknownTask,
	"JOB.PAYLOAD_INVALID":        jobq.ErrPayloadInvalid,
	"JOB.STORE_REQUIRED":         jobq.ErrStoreRequired,
	"JOB.STORE_NOT_ALLOWED":      jobq.ErrStoreNotAllowed,
	"JOB.INVALID_TASK_NAME":      jobq.ErrInvalidTaskName,
	"JOB.TENANT_MISMATCH":        jobq.ErrTenantMismatch,
	"JOB.NOT_ALLOWED":            jobq.ErrNotAllowed,
	"JOB.STORE_NOT_BOUND":        jobq.ErrStoreNotBound,
	"JOB.VALUE_TOO_LONG":         jobq.ErrValueTooLong,
	"JOB.OUT_OF_RANGE":           jobq.ErrOutOfRange,
	"JOB.PAYLOAD_TOO_LARGE":      jobq.ErrPayloadTooLarge,
	"JOB.CLAIM_ISOLATION":        jobq.ErrClaimIsolation,
	"JOB.ALREADY_INSTALLED":      jobq.ErrAlreadyInstalled,
	"JOB.RESULT_TOO_LARGE":       jobq.ErrResultTooLarge,
	"JOB.DEPENDENCY_NOT_FOUND":   jobq.ErrDependencyNotFound,
	"JOB.DEPENDENCY_CYCLE":       jobq.ErrDependencyCycle,
	"JOB.TOO_MANY_DEPENDENCIES":  jobq.ErrTooManyDependencies,
	"JOB.WORKFLOW_KEYED":         jobq.ErrWorkflowKeyed,
	"JOB.UNKNOWN_REF":            jobq.ErrUnknownRef,
}

type catalogued struct {
	Code     string
	SQLState string
	Hint     string
}

func catalogue(t *testing.T, b *testbundle.Bundle) map[string]catalogued {
	t.Helper()
	rows, err := b.Admin.Query(b.Ctx, `SELECT code, sqlstate, hint FROM jobq.error_codes`)
	require.NoError(t, err)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[catalogued])
	require.NoError(t, err)
	out := make(map[string]catalogued, len(list))
	for _, c := range list {
		out[c.Code] = c
	}
	return out
}

// requireJobqError checks that err is the engine's error code, mapped by FromDB: errors.Is matches
// its sentinel and no other, and SQLSTATE, message and hint are those of the catalogue.
func requireJobqError(t *testing.T, cat map[string]catalogued, err error, code string) *jobq.Error {
	t.Helper()
	require.Error(t, err)
	var je *jobq.Error
	require.ErrorAs(t, err, &je, "not mapped to *jobq.Error: %v", err)
	want, ok := cat[code]
	require.True(t, ok, "%s is not in jobq.error_codes", code)
	require.Equal(t, code, je.Code)
	require.Equal(t, want.SQLState, je.SQLState)
	require.True(t, strings.HasPrefix(je.Message, code+": "), "message %q does not start with the code", je.Message)
	require.Greater(t, len(je.Message), len(code)+2, "message %q has no detail", je.Message)
	require.Equal(t, want.Hint, je.Hint)
	require.Contains(t, err.Error(), je.Message)
	for other, sentinel := range sentinels {
		if other == code {
			require.ErrorIs(t, err, sentinel)
		} else {
			require.NotErrorIs(t, err, sentinel)
		}
	}
	var pg *pgconn.PgError
	require.ErrorAs(t, err, &pg, "the *pgconn.PgError is not kept as the cause")
	require.Equal(t, want.SQLState, pg.Code)
	return je
}

func TestErrors(t *testing.T) {
	t.Parallel()

	// Every code of the catalogue, raised by the engine's own _raise, maps to its sentinel.
	t.Run("EveryCatalogueCodeMapsToItsSentinel", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		cat := catalogue(t, b)

		codes := make([]string, 0, len(cat))
		for code := range cat {
			codes = append(codes, code)
		}
		sentinelCodes := make([]string, 0, len(sentinels))
		for code := range sentinels {
			sentinelCodes = append(sentinelCodes, code)
		}
		require.ElementsMatch(t, codes, sentinelCodes, "jobq.error_codes and the Go sentinels differ")

		for code := range cat {
			_, err := b.Admin.Exec(b.Ctx, `SELECT jobq._raise($1, 'raised by the test')`, code)
			mapped := jobq.FromDB(err)
			je := requireJobqError(t, cat, mapped, code)
			require.Equal(t, code+": raised by the test", je.Message)
			require.Equal(t, je.Message, je.Error())
			// FromDB also finds the database error under other wrapping.
			require.ErrorIs(t, jobq.FromDB(fmt.Errorf("doing something: %w", err)), sentinels[code])
		}
	})

	// The client's calls return the engine's errors mapped, and bad input writes nothing.
	t.Run("ClientCalls", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		cat := catalogue(t, b)
		const otherToken = "00000000-0000-4000-8000-000000000000"
		b.Define(t, "errors-payload", "errors-mode", "errors-attempts", "errors-many", "errors-snooze", "errors-system-task")
		b.DefineStore(t, "errors-store-task")
		require.NoError(t, b.Worker.DefineTask(b.Ctx, jobq.TaskDefinition{Name: "errors-contract",
			PayloadSchema: map[string]string{"n": "integer", "note?": "string"}, AppEnqueue: true}))

		cases := []struct {
			name   string
			code   string
			detail string // part of the message after the code
			call   func(t *testing.T) error
			jobs   string // which jobs a refused enqueue must not have written (a WHERE clause)
		}{
			{"EnqueueWithoutTask", "JOB.TASK_REQUIRED", "task is NULL or empty", func(t *testing.T) error {
				_, err := b.App.Enqueue(b.Ctx, "", map[string]int{"n": 1}, jobq.EnqueueOptions{Queue: "errors-no-task"})
				return err
			}, "queue = 'errors-no-task'"},
			{"EnqueueArrayPayload", "JOB.PAYLOAD_NOT_OBJECT", "payload is a JSON array", func(t *testing.T) error {
				_, err := b.App.Enqueue(b.Ctx, "errors-payload", []int{1}, jobq.EnqueueOptions{})
				return err
			}, "task = 'errors-payload'"},
			{"EnqueueUnknownJobKeyMode", "JOB.UNKNOWN_JOB_KEY_MODE", "'upsert'", func(t *testing.T) error {
				_, err := b.App.Enqueue(b.Ctx, "errors-mode", nil, jobq.EnqueueOptions{JobKey: "k", JobKeyMode: "upsert"})
				return err
			}, "task = 'errors-mode'"},
			{"EnqueueNegativeMaxAttempts", "JOB.MAX_ATTEMPTS_INVALID", "max_attempts is -1", func(t *testing.T) error {
				_, err := b.App.Enqueue(b.Ctx, "errors-attempts", nil, jobq.EnqueueOptions{MaxAttempts: -1})
				return err
			}, "task = 'errors-attempts'"},
			{"EnqueueManyNamesThePosition", "JOB.MAX_ATTEMPTS_INVALID", "job 2: max_attempts is -1", func(t *testing.T) error {
				_, err := b.App.EnqueueMany(b.Ctx, []jobq.JobSpec{
					{Task: "errors-many"},
					{Task: "errors-many", EnqueueOptions: jobq.EnqueueOptions{MaxAttempts: -1}},
				})
				return err
			}, "task = 'errors-many'"},
			{"EnqueueUndeclaredTask", "JOB.UNKNOWN_TASK", "task 'errors-undeclared' is not declared", func(t *testing.T) error {
				_, err := b.App.Enqueue(b.Ctx, "errors-undeclared", nil, jobq.EnqueueOptions{})
				return err
			}, "task = 'errors-undeclared'"},
			{"EnqueuePayloadBreaksTheContract", "JOB.PAYLOAD_INVALID", `task errors-contract: key n must be an integer, not "one"`, func(t *testing.T) error {
				_, err := b.App.Enqueue(b.Ctx, "errors-contract", map[string]any{"n": "one"}, jobq.EnqueueOptions{})
				return err
			}, "task = 'errors-contract'"},
			{"EnqueuePayloadLacksARequiredKey", "JOB.PAYLOAD_INVALID", "task errors-contract: required key n is missing", func(t *testing.T) error {
				_, err := b.App.Enqueue(b.Ctx, "errors-contract", map[string]any{"note": "no n"}, jobq.EnqueueOptions{})
				return err
			}, "task = 'errors-contract'"},
			{"EnqueueStoreTaskWithoutAStore", "JOB.STORE_REQUIRED", "task errors-store-task is store-scoped", func(t *testing.T) error {
				_, err := b.App.Enqueue(b.Ctx, "errors-store-task", nil, jobq.EnqueueOptions{})
				return err
			}, "task = 'errors-store-task'"},
			{"EnqueueSystemTaskWithAStore", "JOB.STORE_NOT_ALLOWED", "task errors-system-task is a system task; it got store " + testbundle.StoreID, func(t *testing.T) error {
				_, err := b.App.Enqueue(b.Ctx, "errors-system-task", nil, jobq.EnqueueOptions{StoreID: testbundle.StoreID})
				return err
			}, "task = 'errors-system-task'"},
			{"EnqueueAnotherStoresJob", "JOB.TENANT_MISMATCH", "store " + testbundle.StoreID + " is not this session's store (app.current_store_id = unset)", func(t *testing.T) error {
				_, err := b.App.Enqueue(b.Ctx, "errors-store-task", map[string]string{"storeId": testbundle.StoreID}, jobq.EnqueueOptions{Queue: "errors-tenant"})
				return err
			}, "queue = 'errors-tenant'"},
			{"DefineTaskNotKebabCase", "JOB.INVALID_TASK_NAME", "'Errors_Task' is not a kebab-case task name", func(t *testing.T) error {
				err := b.Worker.DefineTask(b.Ctx, jobq.TaskDefinition{Name: "Errors_Task"})
				require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.tasks WHERE lower(name) = 'errors_task'`), "a refused declaration wrote a task")
				return err
			}, ""},
			{"ClaimZeroLease", "JOB.LEASE_INVALID", "lease NULL is not positive", func(t *testing.T) error {
				_, err := b.Worker.Claim(b.Ctx, "worker", []string{"errors-claim"}, 1, 0)
				return err
			}, ""},
			{"ClaimZeroJobs", "JOB.INVALID_ARGUMENT", "max_jobs 0", func(t *testing.T) error {
				_, err := b.Worker.Claim(b.Ctx, "worker", []string{"errors-claim"}, 0, time.Minute)
				return err
			}, ""},
			{"HeartbeatZeroLease", "JOB.LEASE_INVALID", "lease NULL is not positive", func(t *testing.T) error {
				_, err := b.Worker.Heartbeat(b.Ctx, "worker", nil, 0)
				return err
			}, ""},
			{"SnoozeWrongToken", "JOB.LEASE_LOST", "is not running under this lease token", func(t *testing.T) error {
				b.Enqueue(t, testbundle.EnqueueArgs{Task: "errors-snooze", EnqueueOptions: jobq.EnqueueOptions{Queue: "errors-wrong-token"}})
				job := b.ClaimOne(t, testbundle.ClaimArgs{Queues: []string{"errors-wrong-token"}})
				_, err := b.Worker.Snooze(b.Ctx, jobq.Lease{JobID: job.ID, Token: otherToken}, time.Minute)
				row := b.Live(t, job.ID)
				require.Equal(t, "running", row.State, "a snooze with a wrong token changed the job")
				require.Equal(t, testbundle.Ptr(job.LeaseToken), row.LeaseToken)
				return err
			}, ""},
			{"SnoozeNegativeDelay", "JOB.LEASE_INVALID", "delay", func(t *testing.T) error {
				b.Enqueue(t, testbundle.EnqueueArgs{Task: "errors-snooze", EnqueueOptions: jobq.EnqueueOptions{Queue: "errors-negative-delay"}})
				job := b.ClaimOne(t, testbundle.ClaimArgs{Queues: []string{"errors-negative-delay"}})
				_, err := b.Worker.Snooze(b.Ctx, job.Lease(), -time.Second)
				row := b.Live(t, job.ID)
				require.Equal(t, "running", row.State, "a refused snooze changed the job")
				require.Equal(t, 1, row.Attempt)
				return err
			}, ""},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				err := tc.call(t)
				je := requireJobqError(t, cat, err, tc.code)
				require.Contains(t, je.Message, tc.detail)
				if tc.jobs != "" {
					require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE `+tc.jobs), "a refused enqueue wrote jobs")
				}
			})
		}
	})

	// Errors that are not the engine's come back as they are.
	t.Run("OtherErrorsPassThrough", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)

		_, syntaxErr := b.Admin.Exec(b.Ctx, `SELEC 1`)
		require.Error(t, syntaxErr)
		require.True(t, jobq.FromDB(syntaxErr) == syntaxErr, "FromDB changed a syntax error: %v", jobq.FromDB(syntaxErr))

		for _, err := range []error{context.Canceled, pgx.ErrNoRows, errors.New("plain")} {
			require.True(t, jobq.FromDB(err) == err, "FromDB changed %v", err)
		}
		require.NoError(t, jobq.FromDB(nil))

		// jobq_app may not claim: PostgreSQL's own error reaches the caller, not a *jobq.Error.
		_, err := b.App.Claim(b.Ctx, "app", []string{"default"}, 1, time.Minute)
		require.Error(t, err)
		var je *jobq.Error
		require.False(t, errors.As(err, &je), "a permission error became %#v", je)
		var pg *pgconn.PgError
		require.ErrorAs(t, err, &pg)
		require.Equal(t, "42501", pg.Code)
		for _, sentinel := range sentinels {
			require.NotErrorIs(t, err, sentinel)
		}
	})
}
