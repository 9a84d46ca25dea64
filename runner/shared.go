package runner

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jobqdev/jobq"
)

// What the Runner and its components share: the held lease, the bounds of engine calls, and the
// helpers of their logs. Nothing here refers to the Runner.

const (
	maxClaimBatch    = 1000             // claim_job accepts up to 10,000; a batch is bounded well below
	dbCallTimeout    = 10 * time.Second // bound of one engine call
	errorLogInterval = 10 * time.Second // a repeated error is logged at most this often
)

// runningJob is one held lease: a handler that runs, or whose result is not written yet.
type runningJob struct {
	job     *jobq.Job
	handler Handler
	ctx     context.Context // the handler's context
	cancel  context.CancelCauseFunc
	lease   time.Duration // the lease it was claimed with
	claimed time.Time     // when the claim returned it
	started time.Time     // set when the handler starts
	// guarded by Runner.mu
	running   bool // the handler started
	finishing bool // the handler returned
	lost      bool // a heartbeat did not renew the lease
	fenced    bool // the runner stopped it: its lease was not renewed in time (fence.go)
	// completedInTx: the handler completed the job in its own transaction (CompleteTx).
	completedInTx atomic.Bool
	// fence is where its lease was last confirmed to end, on the runner's monotonic clock
	// (Runner.mono); zero: not known (a job run outside a Runner).
	fence atomic.Int64
	// stopBy is set when the runner fences the job: a command's group must be killed by then.
	stopBy atomic.Pointer[time.Time]
	// canceled: an operator canceled the job (jobq.cancel_job's NOTIFY, checked with the database).
	canceled atomic.Bool
	// fenceEnd and margin are the fence as a time and its margin, for the command reaper (a
	// command's group is stopped at its fence even while the runner is paused).
	fenceEnd atomic.Pointer[time.Time]
	margin   atomic.Int64
	// onFence is called after each confirmed renewal (a command tells the reaper); nil: none.
	onFence atomic.Pointer[func()]
	// notes: what the attempt leaves behind besides its result, and where its progress goes (progress.go).
	notes attemptNotes
	// result: what the handler set with SetResult (or its command or endpoint gave), written
	// with the completion (result.go).
	result attemptResult
}

// jitter returns d scaled by a random factor in [0.5, 1.5).
func jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.5 + rand.Float64()))
}

// jobAttrs are the log attributes every job line carries.
func jobAttrs(job *jobq.Job) []any {
	return []any{"taskName", job.Task, "jobId", job.ID, "storeId", deref(job.StoreID), "attempt", job.Attempt}
}

// deref returns *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

// errorLog logs a repeating failure once, then at most every errorLogInterval, and logs the
// recovery.
type errorLog struct {
	log     *slog.Logger
	msg     string
	mu      sync.Mutex
	failing bool
	last    time.Time
	count   int
}

func newErrorLog(log *slog.Logger, msg string) *errorLog { return &errorLog{log: log, msg: msg} }

func (e *errorLog) failed(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.count++
	if !e.failing || time.Since(e.last) >= errorLogInterval {
		e.log.Warn(e.msg, "error", err.Error(), "failures", e.count)
		e.last = time.Now()
	}
	e.failing = true
}

func (e *errorLog) ok() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.failing {
		e.log.Info(e.msg+": recovered", "failures", e.count)
	}
	e.failing, e.count = false, 0
}
