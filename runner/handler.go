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

// DeadJob describes a job that died on this runner: its last attempt failed and the engine did
// not retry it. A job that dies because its worker vanished, or outlived its timeout without
// its worker, is swept by the leader's jobq.maintain, which reports only a count
// (jobq_maintain_rescued_total); it is not reported here.
type DeadJob struct {
	JobID    int64
	Task     string
	StoreID  string
	Queue    string
	Attempt  int
	Error    string
	Reason   string // "exhausted" (no attempt left) or "not_retryable" (Permanent)
	Duration time.Duration
}

// Handler runs one attempt of a job. Returning nil completes the job; an error fails the
// attempt (see Permanent, RetryIn, WithCode and Snooze for the variants). ctx is cancelled when
// the lease is lost (cause jobq.ErrLeaseLost), the job's timeout passes (ErrJobTimeout) or the
// runner shuts down (ErrShutdown); context.Cause tells which.
type Handler interface {
	Work(ctx context.Context, job *jobq.Job) error
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, job *jobq.Job) error

// Work calls f.
func (f HandlerFunc) Work(ctx context.Context, job *jobq.Job) error { return f(ctx, job) }
