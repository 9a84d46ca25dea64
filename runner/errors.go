package runner

import (
	"errors"
	"fmt"
	"time"

	"github.com/jobqdev/jobq"
)

// Error codes of the runner: the jobq sentinels (catalogued in jobq.error_codes), repeated here
// so runner users find them beside Run. errors.Is matches them by Code.
var (
	// ErrUnsafeRole is returned by Run when the runner is connected as a role that could bypass
	// the engine: a superuser, a BYPASSRLS role, or the owner (or a member of the owner) of the
	// jobq schema. Runners connect as worker_runtime; the migrator's URL is never for runtime.
	ErrUnsafeRole = jobq.ErrUnsafeRole
	// ErrNotReady is reported by Ready when the database does not answer, or the runner is not
	// running (starting or shutting down).
	ErrNotReady = jobq.ErrNotReady
	// ErrSchemaMissing is reported by Ready when the jobq schema is not visible or not at the
	// version this binary expects (migrate.CheckVersion).
	ErrSchemaMissing = jobq.ErrSchemaMissing
	// ErrUnknownTask is the error_code of an attempt failed because no handler is registered
	// for its task. The failure is retryable: a runner that knows the task may take it later.
	ErrUnknownTask = jobq.ErrUnknownTask
	// ErrPayloadInvalid is the error_code of an attempt whose payload does not decode into its
	// task's payload type, and the error of a typed enqueue whose payload is unusable. Such an
	// attempt fails without retry.
	ErrPayloadInvalid = jobq.ErrPayloadInvalid
)

// ErrJobTimeout is the cause of a handler context cancelled because the job's timeout passed.
// A handler that returns an error after it is recorded with reason timed_out.
var ErrJobTimeout = errors.New("jobq: job timed out")

// ErrDetached is the cause of a handler context cancelled because the worker was detached
// (jobq.detach_worker) and could not confirm the job's continuation in time: the attempt is
// recorded as failed with reason detached, and the job may run elsewhere.
var ErrDetached = errors.New("jobq: worker detached and the job's continuation was not confirmed")

// ErrLeaseUnconfirmed is the cause of a handler context cancelled by the runner itself because
// no renewal of the job's lease was confirmed by the database in time (it is cut off from the
// database, or was paused): the lease may end soon and the job run elsewhere, so the handler
// stops before it can (self-fencing; docs/go-runner.md). Its result is discarded; the engine
// records the attempt when it rescues the job (reason orphaned).
var ErrLeaseUnconfirmed = errors.New("jobq: lease not renewed in time: the runner stopped the handler before its lease could end")

// ErrCanceled is the cause of a handler context cancelled because the job was canceled
// (jobq.cancel_job) while it ran: the job is in the history as canceled and its result is
// discarded.
var ErrCanceled = errors.New("jobq: job canceled")

// timedOut is the error of a handler that returned after the job's timeout passed: its own
// error, marked so that the attempt is recorded with reason timed_out.
type timedOut struct {
	after time.Duration
	err   error
}

func (e *timedOut) Error() string   { return fmt.Sprintf("timed out after %s: %v", e.after, e.err) }
func (e *timedOut) Unwrap() []error { return []error{e.err, ErrJobTimeout} }

// outputError is an error that carries the tail of what the attempt printed (Exec), kept in the
// attempt's jobq.job_attempts.output.
type outputError struct {
	err    error
	output string
}

func (e *outputError) Error() string { return e.err.Error() }
func (e *outputError) Unwrap() error { return e.err }

// ErrShutdown is the cause of a handler context cancelled because the runner is shutting down
// and the grace period is over (or StopAndCancel was called). Such a job is handed back.
var ErrShutdown = errors.New("jobq: runner shutting down")

// codeError builds a runner error with the code of sentinel and a message.
func codeError(sentinel *jobq.Error, hint, format string, args ...any) *jobq.Error {
	return &jobq.Error{
		Code:    sentinel.Code,
		Message: sentinel.Code + ": " + fmt.Sprintf(format, args...),
		Hint:    hint,
	}
}

// handlerError carries what a handler asked for besides "this attempt failed".
type handlerError struct {
	err       error
	permanent bool
	retryIn   time.Duration
	code      string
	snooze    time.Duration
	isSnooze  bool
}

func (e *handlerError) Error() string {
	if e.isSnooze {
		return fmt.Sprintf("snoozed for %s", e.snooze)
	}
	return e.err.Error()
}

func (e *handlerError) Unwrap() error { return e.err }

func asHandlerError(err error) *handlerError {
	var he *handlerError
	if errors.As(err, &he) {
		return he
	}
	return nil
}

// Permanent marks err as not worth retrying: the job becomes dead at once (reason
// not_retryable), whatever attempts it has left.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	he := derive(err)
	he.permanent = true
	return he
}

// RetryIn fails the attempt with err and asks for the next attempt after d instead of the
// computed backoff (a Retry-After, say). The job still becomes dead when it used max_attempts.
func RetryIn(err error, d time.Duration) error {
	if err == nil {
		return nil
	}
	he := derive(err)
	he.retryIn = d
	return he
}

// WithCode fails the attempt with err and records code as the job's error_code.
func WithCode(err error, code string) error {
	if err == nil {
		return nil
	}
	he := derive(err)
	he.code = code
	return he
}

// derive returns a copy of the handlerError in err, so Permanent, RetryIn and WithCode combine
// in any order, or a new one wrapping err.
func derive(err error) *handlerError {
	if he := asHandlerError(err); he != nil {
		c := *he
		if err != error(he) {
			c.err = err // keep what the caller wrapped around it
		}
		return &c
	}
	return &handlerError{err: err}
}

// Snooze, returned by a handler, puts the job back in the queue to run after d without using
// an attempt (jobq.snooze).
func Snooze(d time.Duration) error {
	return &handlerError{err: errors.New("snoozed"), isSnooze: true, snooze: max(d, 0)}
}
