package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// The jobq binary the worker tests run, built once per test run.
var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// jobqBinary builds cmd/jobq into a temporary folder the first time it is called.
func jobqBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "jobq-worker-test-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "jobq")
		cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", binPath, ".")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			binErr = fmt.Errorf("go build ./cmd/jobq: %w\n%s", err, out.String())
		}
	})
	require.NoError(t, binErr)
	return binPath
}

// workerProc is one `jobq worker` child process.
type workerProc struct {
	t       *testing.T
	cmd     *exec.Cmd
	logs    *lineBuffer // standard output: the JSON log
	stderr  *lineBuffer
	started time.Time
	addr    string // host:port of /healthz, /readyz, /metrics
	done    chan struct{}
	exit    int
}

// startWorker starts `jobq worker` with args (--health-addr 127.0.0.1:0 is added) and extra
// environment, and waits until it serves its probes. It is killed when the test ends.
func startWorker(t *testing.T, env []string, args ...string) *workerProc {
	t.Helper()
	w := &workerProc{t: t, logs: &lineBuffer{}, stderr: &lineBuffer{}, done: make(chan struct{})}
	w.cmd = exec.Command(jobqBinary(t), append([]string{"worker", "--health-addr", "127.0.0.1:0"}, args...)...)
	w.cmd.Env = append(cleanEnv(), env...)
	w.cmd.Stdout, w.cmd.Stderr = w.logs, w.stderr
	w.started = time.Now()
	require.NoError(t, w.cmd.Start())
	go func() {
		_ = w.cmd.Wait()
		w.exit = w.cmd.ProcessState.ExitCode()
		close(w.done)
	}()
	t.Cleanup(func() {
		_ = w.cmd.Process.Signal(syscall.SIGCONT)
		_ = w.cmd.Process.Kill()
		<-w.done
		if t.Failed() {
			t.Logf("worker %d stdout:\n%s\nstderr:\n%s", w.cmd.Process.Pid, w.logs.String(), w.stderr.String())
		}
	})
	waitUntil(t, 10*time.Second, "worker serving its probes", func() bool {
		exited := false
		select {
		case <-w.done: // all its output is in the buffers now
			exited = true
		default:
		}
		for _, l := range w.lines("serving /healthz, /readyz and /metrics") {
			w.addr, _ = l["addr"].(string)
		}
		if w.addr == "" && exited {
			t.Fatalf("worker exited with %d before serving:\n%s\n%s", w.exit, w.logs.String(), w.stderr.String())
		}
		return w.addr != ""
	})
	return w
}

// cleanEnv is the test's environment without the sandbox's URLs, so a worker uses only what a
// test gives it.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "WORKER_") || strings.HasPrefix(name, "DATABASE_URL") || name == "SENTRY_DSN" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func (w *workerProc) lines(msg string) []map[string]any { return w.logs.lines(msg) }

// waitStarted waits until the worker has started its runner: it has declared its built-in tasks
// (ping, and exec when it serves it), so they may be enqueued.
func (w *workerProc) waitStarted() {
	w.t.Helper()
	waitUntil(w.t, 10*time.Second, "runner started", func() bool { return len(w.lines("runner started")) == 1 })
}

// get fetches path from the worker's health server and returns the status and body.
func (w *workerProc) get(path string) (int, string) {
	w.t.Helper()
	client := http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + w.addr + path)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func (w *workerProc) signal(s syscall.Signal) {
	w.t.Helper()
	require.NoError(w.t, w.cmd.Process.Signal(s))
}

// wait waits for the process to exit and returns its exit status.
func (w *workerProc) wait(timeout time.Duration) int {
	w.t.Helper()
	select {
	case <-w.done:
		return w.exit
	case <-time.After(timeout):
		w.t.Fatalf("worker did not exit within %s", timeout)
		return -1
	}
}

// lineBuffer collects a process's output; safe for concurrent use.
type lineBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lineBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lineBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *lineBuffer) lines(msg string) []map[string]any {
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(l.String()))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil && m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// waitUntil polls cond every 20 ms until it holds, failing t after timeout.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
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
