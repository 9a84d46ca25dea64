package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/runner"
)

// testBundle is one test's database and connections.
type testBundle struct {
	db     *dbtest.DB
	pool   *pgxpool.Pool // worker_runtime: what runners use
	admin  *pgxpool.Pool // postgres: for looking at and arranging state
	client *jobq.Client  // on pool
	logs   *logBuffer
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	db := dbtest.New(t)
	pool := db.Pool(t, "worker_runtime", 20)
	b := &testBundle{db: db, pool: pool, admin: db.Pool(t, "postgres", 4), client: jobq.NewClient(pool), logs: &logBuffer{}}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("runner logs:\n%s", b.logs.String())
		}
	})
	return b
}

// config returns a runner config on the bundle's pool that logs into the bundle's buffer.
func (b *testBundle) config() runner.Config {
	return runner.Config{
		Pool:   b.pool,
		Logger: slog.New(slog.NewJSONHandler(b.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
}

// start runs r until the test ends (or stop is called) and returns stop, which ends Run and
// returns its error.
func start(t *testing.T, r *runner.Runner) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var once sync.Once
	var runErr error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(60 * time.Second):
				runErr = errors.New("Run did not return within 60s of its context ending")
			}
		})
		return runErr
	}
	t.Cleanup(func() { _ = stop() })
	waitFor(t, waitCeiling, "runner ready", func() bool { return r.Ready(context.Background()) == nil })
	return stop
}

// waitCeiling bounds a wait for an event that must come (waitFor, a select on a handler's
// channel): it only stops a test that would otherwise hang, so it is far longer than any such
// event takes on a loaded machine (issue 29: two cores shared with the rest of make test). A test
// whose claim is a bound on time measures the time and compares it with what it rules out.
const waitCeiling = 60 * time.Second

// waitFor polls cond every 10 ms until it holds, failing t after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// jobRow is a job as the tables show it, live or finished.
type jobRow struct {
	State     string
	Attempt   int
	LastError string
	ErrorCode string
	Reason    string
	LockedBy  string
	RunAtIn   time.Duration // run_at - now()
}

func (b *testBundle) job(t *testing.T, id int64) jobRow {
	t.Helper()
	var r jobRow
	var runAtIn float64
	err := b.admin.QueryRow(context.Background(), `
		SELECT state, attempt, coalesce(last_error, ''), coalesce(error_code, ''), coalesce(reason, ''),
		       coalesce(locked_by, ''), extract(epoch FROM run_at - now())::float8
		FROM (SELECT state, attempt, last_error, error_code, reason, locked_by, run_at FROM jobq.jobs WHERE id = $1
		      UNION ALL
		      SELECT state, attempt, last_error, error_code, reason, locked_by, run_at FROM jobq.job_history WHERE id = $1) j`,
		id).Scan(&r.State, &r.Attempt, &r.LastError, &r.ErrorCode, &r.Reason, &r.LockedBy, &runAtIn)
	require.NoError(t, err)
	r.RunAtIn = time.Duration(runAtIn * float64(time.Second))
	return r
}

func (b *testBundle) waitState(t *testing.T, id int64, state string) jobRow {
	t.Helper()
	var r jobRow
	waitFor(t, waitCeiling, "job state "+state, func() bool {
		r = b.job(t, id)
		return r.State == state
	})
	return r
}

// define declares system tasks without a payload contract (as jobq.define_task from SQL does),
// for tests whose handlers are untyped: Runner.Handle declares nothing. It runs as the superuser,
// so tests that count worker_runtime sessions see none of it.
func (b *testBundle) define(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		require.NoError(t, jobq.NewClient(b.admin).DefineTask(context.Background(), jobq.TaskDefinition{Name: name}))
	}
}

// defineStore declares store-scoped tasks without a payload contract.
func (b *testBundle) defineStore(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		require.NoError(t, jobq.NewClient(b.admin).DefineTask(context.Background(),
			jobq.TaskDefinition{Name: name, Scope: jobq.ScopeStore}))
	}
}

func (b *testBundle) enqueue(t *testing.T, task string, payload any, opts jobq.EnqueueOptions) int64 {
	t.Helper()
	id, err := b.client.Enqueue(context.Background(), task, payload, opts)
	require.NoError(t, err)
	return id
}

func (b *testBundle) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.admin.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// logBuffer collects JSON log lines; safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// lines returns the decoded log lines whose msg is msg.
func (l *logBuffer) lines(msg string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(l.String(), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// dbNow returns the database's clock_timestamp().
func dbNow(t *testing.T, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) time.Time {
	t.Helper()
	var ts time.Time
	require.NoError(t, q.QueryRow(context.Background(), "SELECT clock_timestamp()").Scan(&ts))
	return ts
}
