package runner

import (
	"context"
	"time"

	"github.com/jobqdev/jobq"
)

// Reporter is told about final failures. ReportDead must not block for long: it runs on the
// goroutine that writes results.
type Reporter interface {
	ReportDead(ctx context.Context, d DeadJob)
}

// DeadJob describes a job that died: its last attempt failed and the engine did not retry it.
// A job whose handler failed is reported by the runner that ran it; a job that died in a sweep
// (its worker vanished, it outlived its timeout without its worker, or its detached worker did
// not confirm it) is reported by the runner whose sweep killed it (the leader's jobq.maintain or
// another runner's jobq.rescue_expired): the sweep and its answer commit together and a job dies
// in one sweep, so each dead job is reported by exactly one runner.
type DeadJob struct {
	JobID    int64
	Task     string
	StoreID  string
	Queue    string
	Attempt  int
	Error    string
	Reason   string // "exhausted" (no attempt left), "not_retryable" (Permanent), "timed_out", "orphaned" or "detached"
	Worker   string // the worker that ran the last attempt
	Duration time.Duration
}

// Handler runs one attempt of a job. Returning nil completes the job; an error fails the
// attempt (see Permanent, RetryIn, WithCode and Snooze for the variants). ctx is cancelled when
// the lease is lost (cause jobq.ErrLeaseLost), the job is canceled (ErrCanceled, at once through
// jobq.cancel_job's NOTIFY), the runner could not have the lease renewed in time and stops the
// handler before the lease can end (ErrLeaseUnconfirmed, self-fencing: fence.go), the job's
// timeout passes (ErrJobTimeout) or the runner shuts down (ErrShutdown); context.Cause tells
// which.
type Handler interface {
	Work(ctx context.Context, job *jobq.Job) error
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, job *jobq.Job) error

// Work calls f.
func (f HandlerFunc) Work(ctx context.Context, job *jobq.Job) error { return f(ctx, job) }
