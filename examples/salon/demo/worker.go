package demo

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// workerProcess is the salon worker the demo runs: this same binary with the command "worker",
// as a child process in its own process group, so that a Ctrl-C reaches the demo only and the
// demo hands the worker exactly one SIGTERM (a graceful shutdown).
type workerProcess struct {
	cmd        *exec.Cmd
	logPath    string
	healthAddr string
	exited     chan struct{}
	started    time.Time

	stopOnce sync.Once
	stopped  time.Duration
}

func startWorker(ctx context.Context, workerURL, smtpAddr string, concurrency int) (*workerProcess, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logFile, err := os.CreateTemp("", "salon-demo-worker-*.log")
	if err != nil {
		return nil, err
	}
	w := &workerProcess{logPath: logFile.Name(), healthAddr: "127.0.0.1:" + strconv.Itoa(port), exited: make(chan struct{})}
	w.cmd = exec.Command(self, "worker")
	w.cmd.Env = append(workerEnv(),
		"JOBQ_WORKER_DATABASE_URL="+workerURL,
		"JOBQ_WORKER_CONCURRENCY="+strconv.Itoa(concurrency),
		"JOBQ_WORKER_HEALTH_ADDR="+w.healthAddr,
		"SMTP_ADDR="+smtpAddr,
		"JOBQ_WORKER_SHUTDOWN_GRACE=25s",
	)
	w.cmd.Stdout, w.cmd.Stderr = logFile, logFile
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w.started = time.Now()
	if err := w.cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start the salon worker: %w", err)
	}
	logFile.Close()
	go func() {
		_ = w.cmd.Wait()
		close(w.exited)
	}()
	return w, nil
}

// workerEnv is the demo's environment without the URLs the worker must never see (seed 000
// §7.6: the migrator's URL is for migrations only).
func workerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "DATABASE_URL", "DATABASE_URL_ADMIN", "DATABASE_URL_MIGRATOR", "SALON_API_URL",
			"JOBQ_BOOTSTRAP_DATABASE_URL", "JOBQ_MIGRATE_DATABASE_URL", "WORKER_DATABASE_URL":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// waitReady polls /readyz until it answers 200 and returns how long that took from the
// process's start.
func (w *workerProcess) waitReady(ctx context.Context, limit time.Duration) (time.Duration, error) {
	start := w.started
	client := &http.Client{Timeout: time.Second}
	for time.Since(start) < limit {
		select {
		case <-w.exited:
			return 0, fmt.Errorf("the salon worker exited at start; its log (%s):\n%s", w.logPath, tailOf(w.logPath))
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		resp, err := client.Get("http://" + w.healthAddr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(start), nil
			}
		}
	}
	return 0, fmt.Errorf("the salon worker was not ready within %s; its log (%s):\n%s", limit, w.logPath, tailOf(w.logPath))
}

// stop sends SIGTERM once, waits for the worker to drain and exit, and returns how long that
// took; later calls return the same figure.
func (w *workerProcess) stop(out io.Writer) time.Duration {
	w.stopOnce.Do(func() {
		start := time.Now()
		_ = w.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-w.exited:
		case <-time.After(40 * time.Second):
			fmt.Fprintln(out, "the salon worker did not stop within 40 s; killing it")
			_ = w.cmd.Process.Kill()
			<-w.exited
		}
		w.stopped = time.Since(start)
	})
	return w.stopped
}

func tailOf(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
