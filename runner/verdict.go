package runner

import (
	"errors"
	"time"

	"github.com/jobqdev/jobq"
)

// VerdictKind is what a runner writes for one handler's return.
type VerdictKind string

// The verdicts: a nil error completes the job, Snooze snoozes it, any other error fails the attempt.
const (
	VerdictComplete VerdictKind = "complete"
	VerdictSnooze   VerdictKind = "snooze"
	VerdictFail     VerdictKind = "fail"
)

// Verdict is what a runner writes for a handler's returned error: Delay for a snooze, Failure
// (with Permanent, RetryIn and WithCode applied) for a failed attempt.
type Verdict struct {
	Kind    VerdictKind
	Delay   time.Duration
	Failure jobq.Failure
}

// VerdictOf is the write a runner makes when a handler of job returns err (a lease still held,
// the runner not shutting down). Test helpers such as package jobqtest use it to finish a job
// exactly as a runner would.
func VerdictOf(job *jobq.Job, err error) Verdict {
	if err == nil {
		return Verdict{Kind: VerdictComplete}
	}
	he := asHandlerError(err)
	if he != nil && he.isSnooze {
		return Verdict{Kind: VerdictSnooze, Delay: he.snooze}
	}
	f := jobq.Failure{Lease: job.Lease(), Error: err.Error()}
	if errors.Is(err, ErrJobTimeout) {
		f.Reason = "timed_out"
	}
	var oe *outputError
	if errors.As(err, &oe) {
		f.Output = oe.output
	}
	if he != nil {
		f.Fatal = he.permanent
		f.RetryIn = he.retryIn
		f.ErrorCode = he.code
	}
	return Verdict{Kind: VerdictFail, Failure: f}
}
