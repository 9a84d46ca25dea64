package runner_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// attemptKept is what the history row of a finished job keeps of its last attempt.
type attemptKept struct {
	State       string
	Progress    string // as JSON text, "" for none
	Output      string
	ExitCode    *int
	LogRef      string
	LeaderEpoch *int64
}

func (b *testBundle) kept(t *testing.T, id int64) attemptKept {
	t.Helper()
	var k attemptKept
	require.NoError(t, b.admin.QueryRow(context.Background(), `SELECT state, coalesce(progress::text, ''), coalesce(output, ''),
		exit_code, coalesce(log_ref, ''), leader_epoch FROM jobq.job_list(id => $1)`, id).
		Scan(&k.State, &k.Progress, &k.Output, &k.ExitCode, &k.LogRef, &k.LeaderEpoch))
	return k
}

// liveProgress is the running job's progress, as JSON text ("" for none).
func (b *testBundle) liveProgress(t *testing.T, id int64) string {
	t.Helper()
	var p string
	require.NoError(t, b.admin.QueryRow(context.Background(),
		`SELECT coalesce(progress::text, '') FROM jobq.jobs WHERE id = $1`, id).Scan(&p))
	return p
}

// Every kind of handler reports progress while it runs, and every attempt, a succeeded one too,
// keeps its progress, its output's tail, its exit code (commands) and the leader epoch: a Go
// handler through runner.SetProgress (with a job timeout too, whose context once lost the
// attempt), a command through JSON lines on $JOBQ_PROGRESS_FD, an HTTP endpoint through the
// Jobq-Progress header of 1xx answers and of its final answer.
func TestProgressOfEveryKindOfHandler(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "go-progress", "cmd-progress", "cmd-progress-fail", "http-progress", "cmd-live", "http-live")
	dir := t.TempDir()
	r, err := runner.New(b.config())
	require.NoError(t, err)

	reported, release := make(chan int64, 1), make(chan struct{})
	r.Handle("go-progress", runner.HandlerFunc(func(ctx context.Context, job *jobq.Job) error {
		if err := runner.SetProgress(ctx, map[string]any{"done": 1, "of": 2}); err != nil {
			return err
		}
		reported <- job.ID
		<-release
		return runner.SetProgress(ctx, map[string]any{"done": 2, "of": 2})
	}))
	r.Handle("cmd-progress", script(t, dir, `echo '{"step": "one"}' >&3; echo 'not json' >&"$JOBQ_PROGRESS_FD"; `+
		`echo '[1]' >&3; echo '{"step": "two"}' >&"$JOBQ_PROGRESS_FD"; echo "all done"; exit 0`))
	r.Handle("cmd-progress-fail", script(t, dir, `echo '{"step": "half"}' >&3; echo "broke" >&2; exit 3`))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set(runner.ProgressHeader, `{"phase": "early"}`)
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Set(runner.ProgressHeader, `{"phase": "final"}`)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("answered"))
	}))
	t.Cleanup(srv.Close)
	h, err := runner.HTTPEndpoint(runner.HTTPConfig{URL: srv.URL, Secret: testSecret})
	require.NoError(t, err)
	r.Handle("http-progress", h)
	// Live: each reports, then waits until the test has seen the report in jobq.jobs.
	r.Handle("cmd-live", script(t, dir, `echo '{"live": "cmd"}' >&3; while [ ! -e "$OUT/go" ]; do sleep 0.05; done`))
	httpGo := make(chan struct{})
	live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(runner.ProgressHeader, `{"live": "http"}`)
		w.WriteHeader(http.StatusEarlyHints)
		select {
		case <-httpGo:
		case <-r.Context().Done():
		}
		w.Header().Del(runner.ProgressHeader)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(live.Close)
	h, err = runner.HTTPEndpoint(runner.HTTPConfig{URL: live.URL, Secret: testSecret})
	require.NoError(t, err)
	r.Handle("http-live", h)
	start(t, r)

	cmdLive := b.enqueue(t, "cmd-live", nil, jobq.EnqueueOptions{})
	httpLive := b.enqueue(t, "http-live", nil, jobq.EnqueueOptions{})
	waitFor(t, waitCeiling, "the command's progress while it runs", func() bool { return b.liveProgress(t, cmdLive) != "" })
	require.JSONEq(t, `{"live": "cmd"}`, b.liveProgress(t, cmdLive))
	waitFor(t, waitCeiling, "the endpoint's 103 progress while it works", func() bool { return b.liveProgress(t, httpLive) != "" })
	require.JSONEq(t, `{"live": "http"}`, b.liveProgress(t, httpLive))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go"), nil, 0o600))
	close(httpGo)
	b.waitState(t, cmdLive, "succeeded")
	b.waitState(t, httpLive, "succeeded")
	require.JSONEq(t, `{"live": "http"}`, b.kept(t, httpLive).Progress, "the last report is kept")

	goJob := b.enqueue(t, "go-progress", nil, jobq.EnqueueOptions{Timeout: time.Hour})
	select {
	case id := <-reported:
		require.Equal(t, goJob, id)
	case <-time.After(waitCeiling):
		t.Fatal("the Go handler never reported its progress")
	}
	require.JSONEq(t, `{"done": 1, "of": 2}`, b.liveProgress(t, goJob), "the progress is in jobq.jobs while the attempt runs")
	close(release)
	b.waitState(t, goJob, "succeeded")
	k := b.kept(t, goJob)
	require.JSONEq(t, `{"done": 2, "of": 2}`, k.Progress)
	require.Nil(t, k.ExitCode)
	require.NotNil(t, k.LeaderEpoch)
	require.Contains(t, k.LogRef, "attempt=1")

	cmdJob := b.enqueue(t, "cmd-progress", nil, jobq.EnqueueOptions{})
	b.waitState(t, cmdJob, "succeeded")
	k = b.kept(t, cmdJob)
	require.JSONEq(t, `{"step": "two"}`, k.Progress, "the last line that is a JSON object")
	require.Equal(t, "all done\n", k.Output, "a succeeded command keeps its output's tail")
	require.NotNil(t, k.ExitCode)
	require.Equal(t, 0, *k.ExitCode)

	failJob := b.enqueue(t, "cmd-progress-fail", nil, jobq.EnqueueOptions{MaxAttempts: 1})
	b.waitState(t, failJob, "dead")
	var progress, output string
	var code *int
	require.NoError(t, b.admin.QueryRow(context.Background(), `SELECT progress::text, output, exit_code
		FROM jobq.job_attempts WHERE job_id = $1 AND attempt = 1`, failJob).Scan(&progress, &output, &code))
	require.JSONEq(t, `{"step": "half"}`, progress)
	require.Equal(t, "broke\n", output)
	require.NotNil(t, code)
	require.Equal(t, 3, *code, "the failed attempt's exit code")
	k = b.kept(t, failJob)
	require.Equal(t, 3, *k.ExitCode, "and the dead job's history row's")

	httpJob := b.enqueue(t, "http-progress", nil, jobq.EnqueueOptions{})
	b.waitState(t, httpJob, "succeeded")
	k = b.kept(t, httpJob)
	require.JSONEq(t, `{"phase": "final"}`, k.Progress)
	require.Equal(t, "answered", k.Output, "a succeeded endpoint keeps its answer's tail")
	require.Nil(t, k.ExitCode)
}

// A handler whose job was canceled under it cannot write progress any more (the engine refuses
// the stale lease token: jobq.ErrLeaseLost), and SetProgress outside a runner's handler says so.
func TestProgressAfterTheLeaseIsGoneIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "zombie-progress")
	r, err := runner.New(b.config())
	require.NoError(t, err)
	running, got := make(chan int64, 1), make(chan error, 1)
	r.Handle("zombie-progress", runner.HandlerFunc(func(ctx context.Context, job *jobq.Job) error {
		running <- job.ID
		<-ctx.Done() // the cancel reaches the handler
		// A zombie that goes on regardless: its write is fenced by the token, not by ctx.
		got <- runner.SetProgress(context.WithoutCancel(ctx), map[string]int{"late": 1})
		return ctx.Err()
	}))
	start(t, r)
	id := b.enqueue(t, "zombie-progress", nil, jobq.EnqueueOptions{})
	select {
	case <-running:
	case <-time.After(waitCeiling):
		t.Fatal("the handler never started")
	}
	_, err = b.admin.Exec(context.Background(), `SELECT jobq.cancel_job($1)`, id)
	require.NoError(t, err)
	select {
	case err := <-got:
		require.True(t, errors.Is(err, jobq.ErrLeaseLost), "got %v", err)
	case <-time.After(waitCeiling):
		t.Fatal("the handler never learned of the cancel")
	}
	k := b.kept(t, id)
	require.Equal(t, "canceled", k.State)
	require.Empty(t, k.Progress, "nothing was written")

	require.ErrorIs(t, runner.SetProgress(context.Background(), json.RawMessage(`{}`)), runner.ErrNoAttempt)
}
