package docs_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/proctest"
	"github.com/jobqdev/jobq/runner"
)

// quickstartCeiling bounds each wait for an outcome that must come (a job finishing after a
// retry's backoff or a snooze of a couple of seconds): a ceiling for a loaded machine, not a
// measure.
const quickstartCeiling = 2 * time.Minute

// historyRow is a finished job as jobq.job_history keeps it.
type historyRow struct {
	state, reason string
	attempt       int
	snoozedFor    time.Duration // run_at - created_at: how long the job was put off
	failures      int           // its failed attempts in jobq.job_attempts
}

// finished waits until every job of ids is in jobq.job_history and returns them by id.
func finished(t *testing.T, pool *pgxpool.Pool, ids map[string]int64) map[string]historyRow {
	t.Helper()
	got := map[string]historyRow{}
	proctest.WaitUntil(t, quickstartCeiling, "every job in jobq.job_history", func() bool {
		for name, id := range ids {
			var r historyRow
			var reason *string
			var snoozed float64
			err := pool.QueryRow(context.Background(), `
				SELECT h.state, h.reason, h.attempt, extract(epoch FROM h.run_at - h.created_at)::float8,
				       (SELECT count(*) FROM jobq.job_attempts a WHERE a.job_id = h.id)::int
				FROM jobq.job_history h WHERE h.id = $1`, id).Scan(&r.state, &reason, &r.attempt, &snoozed, &r.failures)
			if err != nil {
				return false
			}
			if reason != nil {
				r.reason = *reason
			}
			r.snoozedFor = time.Duration(snoozed * float64(time.Second))
			got[name] = r
		}
		return true
	})
	return got
}

// requireOutcomes checks the four outcomes of the exit-code and status contracts in
// jobq.job_history: a success at the first attempt, a retry (a failed attempt, then a success
// at the second), a permanent failure (dead at the first attempt, reason not_retryable) and a
// snooze (a success at the first attempt, run at least a second after it was enqueued: the
// snooze used no attempt).
func requireOutcomes(t *testing.T, got map[string]historyRow) {
	t.Helper()
	require.Equal(t, "succeeded", got["success"].state)
	require.Equal(t, 1, got["success"].attempt)
	require.Zero(t, got["success"].failures)

	require.Equal(t, "succeeded", got["retry"].state)
	require.Equal(t, 2, got["retry"].attempt, "retried once")
	require.Equal(t, 1, got["retry"].failures, "its first attempt failed")

	require.Equal(t, "dead", got["permanent"].state)
	require.Equal(t, "not_retryable", got["permanent"].reason)
	require.Equal(t, 1, got["permanent"].attempt, "no retry of a permanent failure")

	require.Equal(t, "succeeded", got["snooze"].state)
	require.Equal(t, 1, got["snooze"].attempt, "a snooze uses no attempt")
	require.Zero(t, got["snooze"].failures)
	require.GreaterOrEqual(t, got["snooze"].snoozedFor, time.Second, "it ran after the delay it asked for")
}

// lookPath finds a program the quickstarts need: its absence fails the test (never a skip).
func lookPath(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	require.NoError(t, err, "the quickstarts need %s on PATH", name)
	return path
}

// The Python quickstart (examples/python-command): `jobq worker --config` with the example's own
// file runs handler.py with real python3 for each job of send-welcome-email, and jobq.job_history
// shows a success, a retry (a dropped connection at the first attempt), a permanent failure (no
// email address) and a snooze (a greylisted first message).
func TestQuickstartPythonCommand(t *testing.T) {
	t.Parallel()
	lookPath(t, "python3")
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	ctx := dbtest.Ctx(t)
	require.NoError(t, jobq.NewClient(admin).DefineTask(ctx, jobq.TaskDefinition{
		Name: "send-welcome-email", BackoffBase: time.Second, BackoffMax: time.Second, MaxAttempts: 3,
	}))
	outbox := t.TempDir()
	config, err := filepath.Abs("../examples/python-command/worker.toml")
	require.NoError(t, err)

	bin := filepath.Join(buildJobq(t), "jobq")
	w := proctest.StartServing(t, bin, []string{"WORKER_DATABASE_URL=" + db.URL("worker_runtime"), "OUTBOX=" + outbox, "GREYLIST=greylist.example", "FLAKY=flaky.example"},
		"worker", "--config", config)
	proctest.WaitUntil(t, quickstartCeiling, "runner started", func() bool { return len(w.Lines("runner started")) == 1 })

	c := jobq.NewClient(admin)
	enqueue := func(payload map[string]any) int64 {
		id, err := c.Enqueue(ctx, "send-welcome-email", payload, jobq.EnqueueOptions{})
		require.NoError(t, err)
		return id
	}
	ids := map[string]int64{
		"success":   enqueue(map[string]any{"email": "ada@example.com", "name": "Ada"}),
		"retry":     enqueue(map[string]any{"email": "bob@flaky.example"}),
		"permanent": enqueue(map[string]any{"email": "not-an-address"}),
		"snooze":    enqueue(map[string]any{"email": "cy@greylist.example"}),
	}
	requireOutcomes(t, finished(t, admin, ids))
	for _, name := range []string{"success", "retry", "snooze"} {
		_, err := os.Stat(filepath.Join(outbox, fmt.Sprint(ids[name])+".eml"))
		require.NoError(t, err, "the %s job's email is in the outbox", name)
	}
	var lastError string
	require.NoError(t, admin.QueryRow(ctx, `SELECT last_error FROM jobq.job_history WHERE id = $1`, ids["permanent"]).Scan(&lastError))
	require.Contains(t, lastError, "'not-an-address' is not an email address", "the handler's output is kept")
}

// The Node quickstart (examples/node-http): real node serves server.mjs; `jobq worker --config`
// with the example's file (its URL pointed at the server's port) POSTs each job of
// sync-crm-contact, signed, and jobq.job_history shows a success, a retry (a 502 from the CRM),
// a permanent failure (422) and a snooze (429 with Retry-After: 2). The server refuses a request
// whose signature is wrong or stale with 401.
func TestQuickstartNodeHTTP(t *testing.T) {
	t.Parallel()
	node := lookPath(t, "node")
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	ctx := dbtest.Ctx(t)
	require.NoError(t, jobq.NewClient(admin).DefineTask(ctx, jobq.TaskDefinition{
		Name: "sync-crm-contact", BackoffBase: time.Second, BackoffMax: time.Second, MaxAttempts: 3,
	}))
	const secret = "quickstart-secret-0123456789"
	outbox := t.TempDir()

	server := exec.Command(node, "../examples/node-http/server.mjs")
	server.Env = append(os.Environ(), "PORT=0", "JOBQ_SECRET="+secret, "CRM_OUTBOX="+outbox, "CRM_FLAKY=c-flaky", "CRM_THROTTLED=c-busy")
	stdout, err := server.StdoutPipe()
	require.NoError(t, err)
	server.Stderr = os.Stderr
	require.NoError(t, server.Start())
	logged := make(chan struct{})
	t.Cleanup(func() {
		_ = server.Process.Kill()
		<-logged // its output read to the end before Wait closes the pipe, and before t ends
		_ = server.Wait()
	})
	lines := bufio.NewScanner(stdout)
	scanned := lines.Scan()
	listening := lines.Text()
	go func() { // keep reading its log, so that it never blocks on a full pipe
		defer close(logged)
		for lines.Scan() {
			t.Log("server.mjs: " + lines.Text())
		}
	}()
	require.True(t, scanned, "server.mjs printed nothing")
	m := regexp.MustCompile(`^listening on (http://127\.0\.0\.1:\d+/jobs)$`).FindStringSubmatch(listening)
	require.NotNil(t, m, "server.mjs said %q", listening)
	url := m[1]

	// The signature is checked: a wrong secret, or a right one too old, is refused with 401.
	body := []byte(`{"id":1,"task":"sync-crm-contact","attempt":1,"payload":{"contactId":"c-9","email":"e@x.com"}}`)
	for name, header := range map[string]string{
		"wrong secret": runner.Sign([]byte("another-secret-0123456789"), time.Now(), body),
		"stale":        runner.Sign([]byte(secret), time.Now().Add(-10*time.Minute), body),
		"missing":      "",
	} {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
		require.NoError(t, err)
		if header != "" {
			req.Header.Set(runner.SignatureHeader, header)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, name)
	}

	// The example's file, its URL pointed at the port the server got.
	text, err := os.ReadFile("../examples/node-http/worker.toml")
	require.NoError(t, err)
	require.Contains(t, string(text), `"http://127.0.0.1:8787/jobs"`)
	config := filepath.Join(t.TempDir(), "worker.toml")
	require.NoError(t, os.WriteFile(config, []byte(strings.Replace(string(text), "http://127.0.0.1:8787/jobs", url, 1)), 0o600))

	bin := filepath.Join(buildJobq(t), "jobq")
	w := proctest.StartServing(t, bin, []string{"WORKER_DATABASE_URL=" + db.URL("worker_runtime"), "CRM_HANDLER_SECRET=" + secret},
		"worker", "--config", config)
	proctest.WaitUntil(t, quickstartCeiling, "runner started", func() bool { return len(w.Lines("runner started")) == 1 })

	c := jobq.NewClient(admin)
	enqueue := func(payload map[string]any) int64 {
		id, err := c.Enqueue(ctx, "sync-crm-contact", payload, jobq.EnqueueOptions{})
		require.NoError(t, err)
		return id
	}
	ids := map[string]int64{
		"success":   enqueue(map[string]any{"contactId": "c-1", "email": "a@example.com"}),
		"retry":     enqueue(map[string]any{"contactId": "c-flaky", "email": "f@example.com"}),
		"permanent": enqueue(map[string]any{"contactId": "c-2", "email": "no address"}),
		"snooze":    enqueue(map[string]any{"contactId": "c-busy", "email": "b@example.com"}),
	}
	got := finished(t, admin, ids)
	requireOutcomes(t, got)
	for _, name := range []string{"success", "retry", "snooze"} {
		_, err := os.Stat(filepath.Join(outbox, fmt.Sprint(ids[name])+".json"))
		require.NoError(t, err, "the %s job's contact reached the CRM", name)
	}
	var lastError string
	require.NoError(t, admin.QueryRow(ctx, `SELECT last_error FROM jobq.job_history WHERE id = $1`, ids["permanent"]).Scan(&lastError))
	require.Contains(t, lastError, "422")
}
