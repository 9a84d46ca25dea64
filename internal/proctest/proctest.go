// Package proctest runs worker binaries as child processes for tests: it builds a command once
// per test binary, starts it with a clean environment, reads its JSON log, probes its health
// server, signals it and waits for its exit. It also has a fake Sentry server (sentry.go).
package proctest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	buildMu  sync.Mutex
	built    = map[string]string{}
	buildDir string
)

// Build compiles the main package in dir (a path such as "." or "./cmd/salon", relative to the
// test's package) the first time it is asked for, and returns the binary's path. Call Cleanup
// from TestMain to remove the binaries.
func Build(t testing.TB, dir string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if bin, ok := built[dir]; ok {
		return bin
	}
	if buildDir == "" {
		d, err := os.MkdirTemp("", "jobq-proctest-")
		require.NoError(t, err)
		buildDir = d
	}
	bin := filepath.Join(buildDir, fmt.Sprintf("bin%d", len(built)))
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Run(), "go build %s:\n%s", dir, out.String())
	built[dir] = bin
	return bin
}

// Cleanup removes the binaries Build made.
func Cleanup() {
	buildMu.Lock()
	defer buildMu.Unlock()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
}

// Proc is one worker child process.
type Proc struct {
	T       testing.TB
	Cmd     *exec.Cmd
	Logs    *LineBuffer // standard output: the JSON log
	Stderr  *LineBuffer
	Started time.Time
	Addr    string // host:port of /healthz, /readyz, /metrics
	Done    chan struct{}
	exit    int
}

// Start starts bin with args and the extra environment env (over CleanEnv). It does not wait for
// anything; the process is killed when the test ends, and its output is logged if the test failed.
func Start(t testing.TB, bin string, env []string, args ...string) *Proc {
	t.Helper()
	w := &Proc{T: t, Logs: &LineBuffer{}, Stderr: &LineBuffer{}, Done: make(chan struct{})}
	w.Cmd = exec.Command(bin, args...)
	w.Cmd.Env = append(CleanEnv(), env...)
	w.Cmd.Stdout, w.Cmd.Stderr = w.Logs, w.Stderr
	w.Started = time.Now()
	require.NoError(t, w.Cmd.Start())
	go func() {
		_ = w.Cmd.Wait()
		w.exit = w.Cmd.ProcessState.ExitCode()
		close(w.Done)
	}()
	t.Cleanup(func() {
		_ = w.Cmd.Process.Signal(syscall.SIGCONT)
		_ = w.Cmd.Process.Kill()
		<-w.Done
		if t.Failed() {
			t.Logf("process %d stdout:\n%s\nstderr:\n%s", w.Cmd.Process.Pid, w.Logs.String(), w.Stderr.String())
		}
	})
	return w
}

// StartServing starts bin like Start, with "--health-addr 127.0.0.1:0" appended to args, and
// waits until the process logs the address of its probes.
func StartServing(t testing.TB, bin string, env []string, args ...string) *Proc {
	t.Helper()
	w := Start(t, bin, env, append(args, "--health-addr", "127.0.0.1:0")...)
	// A minute: a ceiling for a loaded machine (issue 29), not a measure of the start-up.
	WaitUntil(t, time.Minute, "worker serving its probes", func() bool {
		exited := false
		select {
		case <-w.Done: // all its output is in the buffers now
			exited = true
		default:
		}
		for _, l := range w.Lines("serving /healthz, /readyz and /metrics") {
			w.Addr, _ = l["addr"].(string)
		}
		if w.Addr == "" && exited {
			t.Fatalf("worker exited with %d before serving:\n%s\n%s", w.exit, w.Logs.String(), w.Stderr.String())
		}
		return w.Addr != ""
	})
	return w
}

// CleanEnv is the test's environment without the sandbox's URLs, so a worker uses only what a
// test gives it.
func CleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		name = strings.TrimPrefix(name, "JOBQ_") // the JOBQ_ equivalents too (worker.EnvPrefix)
		if strings.HasPrefix(name, "WORKER_") || strings.HasPrefix(name, "DATABASE_URL") || (strings.HasSuffix(name, "_DATABASE_URL") && name != "TEST_DATABASE_URL") || name == "SENTRY_DSN" || name == "SMTP_ADDR" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// Lines returns the JSON log lines whose msg is msg.
func (w *Proc) Lines(msg string) []map[string]any { return w.Logs.Lines(msg) }

// startCeiling is how long WaitStarted waits: a ceiling that only a worker that never starts
// reaches (a process start, a connection and its declarations take well under a second on a
// quiet machine, and 19 workers at once missed 10 s at a load average of 13).
const startCeiling = time.Minute

// WaitStarted waits until the worker has started its runner (its tasks are declared).
func (w *Proc) WaitStarted() {
	w.T.Helper()
	WaitUntil(w.T, startCeiling, "runner started", func() bool { return len(w.Lines("runner started")) == 1 })
}

// Get fetches path from the worker's health server and returns the status and body.
func (w *Proc) Get(path string) (int, string) {
	w.T.Helper()
	client := http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get("http://" + w.Addr + path)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// Metric returns the value of the metric line that starts with name (labels included) on
// /metrics, or -1.
func (w *Proc) Metric(name string) float64 {
	w.T.Helper()
	_, body := w.Get("/metrics")
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return -1
	}
	v, err := strconv.ParseFloat(m[1], 64)
	require.NoError(w.T, err)
	return v
}

// Signal sends s to the process.
func (w *Proc) Signal(s syscall.Signal) {
	w.T.Helper()
	require.NoError(w.T, w.Cmd.Process.Signal(s))
}

// Wait waits for the process to exit and returns its exit status.
func (w *Proc) Wait(timeout time.Duration) int {
	w.T.Helper()
	select {
	case <-w.Done:
		return w.exit
	case <-time.After(timeout):
		w.T.Fatalf("process did not exit within %s", timeout)
		return -1
	}
}

// LineBuffer collects a process's output; safe for concurrent use.
type LineBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *LineBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *LineBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Lines returns the JSON lines whose msg is msg.
func (l *LineBuffer) Lines(msg string) []map[string]any {
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

// WaitUntil polls cond every 20 ms until it holds, failing t after timeout.
func WaitUntil(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Compile writes source as main.go of a new folder of the test's package (its name starts with
// "_", so ./... patterns skip it), runs go build on it, removes the folder, and returns the
// compiler's output and error: for tests of what must, or must not, compile.
func Compile(t testing.TB, source string) (string, error) {
	t.Helper()
	dir, err := os.MkdirTemp(".", "_gwt")
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(source), 0o644))
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", os.DevNull, "./"+filepath.Base(dir))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}
