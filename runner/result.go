package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// ResultHeader is the header with which an HTTP endpoint says that the body of its 2xx answer is
// the job's result: "Jobq-Result: body" (the body must then be one JSON value).
const ResultHeader = "Jobq-Result"

// ResultFileEnv is the variable that names, for a command, the file in which it may leave the
// job's result: one JSON value, read when the command exits 0. The file exists, empty, when
// the command starts; left empty, the job has no result.
const ResultFileEnv = "JOBQ_RESULT_FILE"

// errResultNotJSON is the failure of an attempt whose command or endpoint gave a result that is
// not one JSON value.
var errResultNotJSON = errors.New("the result is not one JSON value")

// attemptResult is the result a running attempt's handler set, written with its completion.
type attemptResult struct {
	mu    sync.Mutex
	value json.RawMessage
}

func (r *attemptResult) set(v json.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.value = v
}

func (r *attemptResult) get() json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.value
}

// SetResult sets the result of the attempt whose handler's context ctx is: v is marshalled to
// JSON, any JSON value (an object, an array, a string, a number, a boolean; nil marshals to
// JSON null). A later call replaces it. The result is written with the job's completion, when
// the handler returns nil (or by CompleteTx, in the handler's transaction), into
// jobq.job_history.result, fenced by the lease token like the completion itself; a handler that
// fails, snoozes or loses its lease writes no result. Read it with jobq.Client.JobResult or
// AwaitResult, or jobq.job_result(id) in SQL. A result larger than the setting
// max_result_bytes (65536 bytes of JSON text as installed) is not written: the attempt fails
// instead, not retryable, with error code JOB.RESULT_TOO_LARGE. Outside a handler run by a
// Runner it returns ErrNoAttempt.
func SetResult(ctx context.Context, v any) error {
	rj, _ := ctx.Value(runningJobKey{}).(*runningJob)
	if rj == nil {
		return ErrNoAttempt
	}
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("runner: marshal the result of job %d: %w", rj.job.ID, err)
	}
	rj.result.set(body)
	return nil
}

// setRawResult sets, for the attempt whose handler's context ctx is, a result a command or an
// endpoint gave as bytes: one JSON value, else errResultNotJSON. Nothing outside a Runner.
func setRawResult(ctx context.Context, b []byte) error {
	if !json.Valid(b) {
		return errResultNotJSON
	}
	if rj, _ := ctx.Value(runningJobKey{}).(*runningJob); rj != nil {
		rj.result.set(json.RawMessage(append([]byte(nil), b...)))
	}
	return nil
}
