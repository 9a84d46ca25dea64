package main

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/proctest"
)

// workerProc is one `jobq worker` child process.
type workerProc = proctest.Proc

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.Cleanup()
	os.Exit(code)
}

// jobqBinary builds cmd/jobq the first time it is called.
func jobqBinary(t *testing.T) string { return proctest.Build(t, ".") }

// startWorker starts `jobq worker` with args (--health-addr 127.0.0.1:0 is added) and extra
// environment, and waits until it serves its probes. It is killed when the test ends.
func startWorker(t *testing.T, env []string, args ...string) *workerProc {
	t.Helper()
	return proctest.StartServing(t, jobqBinary(t), env, append([]string{"worker"}, args...)...)
}

// waitCeiling bounds a wait for an event that must come (waitUntil, a process's exit): it only
// stops a test that would otherwise hang, so it is far longer than any such event takes on a
// loaded machine (issue 29: two cores shared with the rest of make test). A test whose claim is a
// bound on time measures the time and compares it with what it rules out.
const waitCeiling = 60 * time.Second

// waitUntil polls cond every 20 ms until it holds, failing t after timeout.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	proctest.WaitUntil(t, timeout, what, cond)
}

// queryInt runs a query returning one integer.
func queryInt(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// liveOrFinished returns the state and attempt of job id wherever it is.
func liveOrFinished(t *testing.T, pool *pgxpool.Pool, id int64) (state string, attempt int) {
	t.Helper()
	err := pool.QueryRow(context.Background(), `
		SELECT state, attempt FROM jobq.jobs WHERE id = $1
		UNION ALL SELECT state, attempt FROM jobq.job_history WHERE id = $1`, id).Scan(&state, &attempt)
	require.NoError(t, err)
	return state, attempt
}

// queryTexts runs a query returning one text column on pool and collects it.
func queryTexts(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), sql, args...)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return out
}
