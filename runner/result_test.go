package runner_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// keptResult is a finished job's state, result (as JSON text, "" for none), error code and reason.
type keptResult struct {
	State, Result, ErrorCode, Reason string
}

func (b *testBundle) result(t *testing.T, id int64) keptResult {
	t.Helper()
	var k keptResult
	require.NoError(t, b.admin.QueryRow(context.Background(), `SELECT state, coalesce(result::text, ''), coalesce(error_code, ''),
		coalesce(reason, '') FROM jobq.job_history WHERE id = $1`, id).Scan(&k.State, &k.Result, &k.ErrorCode, &k.Reason))
	return k
}

// Every kind of handler can give its job a result, kept with the succeeded attempt: a Go handler
// through runner.SetResult (also inside its own transaction, CompleteTx), a command through the
// file $JOBQ_RESULT_FILE, an HTTP endpoint through a 2xx answer with "Jobq-Result: body". A
// handler that fails writes no result; a result that is not JSON fails the attempt for good; a
// result above max_result_bytes makes the job dead (JOB.RESULT_TOO_LARGE) instead of succeeded.
func TestResultOfEveryKindOfHandler(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "go-result", "go-result-fails", "go-result-big", "go-result-tx", "cmd-result", "cmd-result-bad", "cmd-no-result",
		"http-result", "http-no-header")
	dir := t.TempDir()
	r, err := runner.New(b.config())
	require.NoError(t, err)

	r.Handle("go-result", runner.HandlerFunc(func(ctx context.Context, job *jobq.Job) error {
		if err := runner.SetResult(ctx, map[string]any{"first": true}); err != nil {
			return err
		}
		return runner.SetResult(ctx, map[string]any{"sum": 3, "job": job.ID}) // the last one is kept
	}))
	r.Handle("go-result-fails", runner.HandlerFunc(func(ctx context.Context, _ *jobq.Job) error {
		if err := runner.SetResult(ctx, "never kept"); err != nil {
			return err
		}
		return errors.New("failed after setting a result")
	}))
	r.Handle("go-result-big", runner.HandlerFunc(func(ctx context.Context, _ *jobq.Job) error {
		return runner.SetResult(ctx, strings.Repeat("x", 70000))
	}))
	r.Handle("go-result-tx", runner.HandlerFunc(func(ctx context.Context, job *jobq.Job) error {
		if err := runner.SetResult(ctx, []int{1, 2, 3}); err != nil {
			return err
		}
		return pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error { return runner.CompleteTx(ctx, tx, job) })
	}))
	r.Handle("cmd-result", script(t, dir, `echo '{"rows": 7}' > "$JOBQ_RESULT_FILE"; echo "printed, not the result"`))
	r.Handle("cmd-result-bad", script(t, dir, `echo 'not json' > "$JOBQ_RESULT_FILE"`))
	r.Handle("cmd-no-result", script(t, dir, `echo '{"printed": 1}'`))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/result" {
			w.Header().Set(runner.ResultHeader, "body")
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"charged": 1250}`))
	}))
	t.Cleanup(srv.Close)
	for task, path := range map[string]string{"http-result": "/result", "http-no-header": "/plain"} {
		h, err := runner.HTTPEndpoint(runner.HTTPConfig{URL: srv.URL + path, Secret: testSecret})
		require.NoError(t, err)
		r.Handle(task, h)
	}
	start(t, r)

	ids := map[string]int64{}
	for _, task := range []string{"go-result", "go-result-fails", "go-result-big", "go-result-tx", "cmd-result", "cmd-result-bad",
		"cmd-no-result", "http-result", "http-no-header"} {
		ids[task] = b.enqueue(t, task, nil, jobq.EnqueueOptions{MaxAttempts: 1})
	}
	want := map[string]keptResult{
		"go-result":       {State: "succeeded", Result: `{"job": ` + itoa(ids["go-result"]) + `, "sum": 3}`},
		"go-result-fails": {State: "dead", Reason: "exhausted"},
		"go-result-big":   {State: "dead", ErrorCode: "JOB.RESULT_TOO_LARGE", Reason: "not_retryable"},
		"go-result-tx":    {State: "succeeded", Result: `[1, 2, 3]`},
		"cmd-result":      {State: "succeeded", Result: `{"rows": 7}`},
		"cmd-result-bad":  {State: "dead", Reason: "not_retryable"},
		"cmd-no-result":   {State: "succeeded"},
		"http-result":     {State: "succeeded", Result: `{"charged": 1250}`},
		"http-no-header":  {State: "succeeded"},
	}
	for task, w := range want {
		b.waitState(t, ids[task], w.State)
		got := b.result(t, ids[task])
		require.Equal(t, w, got, task)
	}

	require.ErrorIs(t, runner.SetResult(context.Background(), 1), runner.ErrNoAttempt, "outside a handler")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
