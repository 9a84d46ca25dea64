package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/jobqdev/jobq"
)

// Defaults of ExecConfig.
const (
	DefaultExecTimeout    = 5 * time.Minute
	DefaultExecOutputTail = 4096
)

// ExecConfig configures Exec.
type ExecConfig struct {
	// Command is the program and its arguments; Command[0] is looked up in PATH. Required.
	// `jobq worker` runs its --exec-command as []string{"/bin/sh", "-c", command}.
	Command []string
	// Timeout bounds one run; the job's own timeout, when shorter, wins. Default: 5 minutes.
	Timeout time.Duration
	// OutputTail is how many bytes of the end of the output (standard output and standard
	// error together) a failure keeps in last_error and in its attempt's
	// jobq.job_attempts.output (which keeps at most 16384 characters). Default: 4096.
	OutputTail int
	// Env is the environment of the command, to which the JOBQ_* variables are added. Default
	// (nil): the runner process's environment.
	Env []string
	// Dir is the working directory of the command. Default: the runner's.
	Dir string
}

// ErrExecTimeout is the cause of an exec run stopped by ExecConfig.Timeout.
var ErrExecTimeout = errors.New("exec: command timed out")

// Exec returns a handler that runs a command per job, so applications in any language get
// their jobs run without Go. The payload is written as JSON to the command's standard input,
// and the environment also carries JOBQ_JOB_ID, JOBQ_TASK, JOBQ_QUEUE, JOBQ_ATTEMPT,
// JOBQ_MAX_ATTEMPTS and JOBQ_STORE_ID. Exit status 0 completes the job; anything else fails the
// attempt (retryable) with the tail of the output in last_error. A run whose context is
// cancelled (lost lease, job timeout, shutdown) or that passes Timeout is killed with its whole
// process group.
func Exec(cfg ExecConfig) (Handler, error) {
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return nil, errors.New("runner: ExecConfig.Command is required")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultExecTimeout
	}
	if cfg.OutputTail <= 0 {
		cfg.OutputTail = DefaultExecOutputTail
	}
	cfg.Command = append([]string(nil), cfg.Command...)
	return HandlerFunc(func(ctx context.Context, job *jobq.Job) error { return runExec(ctx, cfg, job) }), nil
}

func runExec(ctx context.Context, cfg ExecConfig, job *jobq.Job) error {
	ctx, cancel := context.WithTimeoutCause(ctx, cfg.Timeout, ErrExecTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.Command[0], cfg.Command[1:]...)
	cmd.Dir = cfg.Dir
	cmd.Stdin = bytes.NewReader(job.Payload)
	out := &tailBuffer{max: cfg.OutputTail}
	cmd.Stdout, cmd.Stderr = out, out
	env := cfg.Env
	if env == nil {
		env = cmd.Environ()
	}
	cmd.Env = append(append([]string(nil), env...),
		"JOBQ_JOB_ID="+strconv.FormatInt(job.ID, 10),
		"JOBQ_TASK="+job.Task,
		"JOBQ_QUEUE="+job.Queue,
		"JOBQ_ATTEMPT="+strconv.Itoa(job.Attempt),
		"JOBQ_MAX_ATTEMPTS="+strconv.Itoa(job.MaxAttempts),
		"JOBQ_STORE_ID="+storeOrEmpty(job),
	)
	killGroupOnCancel(cmd)
	// Output pipes held open by a grandchild must not keep the job waiting forever.
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	// What every attempt keeps, a succeeded one too: the output's tail and the exit status.
	if code := cmd.ProcessState.ExitCode(); code >= 0 { // -1: it did not exit (not started, or killed)
		noteAttempt(ctx, out.tail(), &code)
	} else {
		noteAttempt(ctx, out.tail(), nil)
	}
	if err == nil {
		return nil
	}
	// The tail goes into last_error (in the message) and, alone, into the attempt's output.
	if ctx.Err() != nil {
		err = &outputError{err: fmt.Errorf("exec %s: stopped (%w): %w%s", cfg.Command[0], context.Cause(ctx), err, out.report()),
			output: out.tail()}
		if errors.Is(context.Cause(ctx), ErrExecTimeout) {
			// Its own timeout passed: recorded with reason timed_out, like the job's timeout.
			return &timedOut{after: cfg.Timeout, err: err}
		}
		return err
	}
	return &outputError{err: fmt.Errorf("exec %s: %w%s", cfg.Command[0], err, out.report()), output: out.tail()}
}

func storeOrEmpty(job *jobq.Job) string {
	if job.StoreID == nil {
		return ""
	}
	return *job.StoreID
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu        sync.Mutex
	max       int
	buf       []byte
	truncated bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= t.max {
		t.truncated = t.truncated || len(t.buf) > 0 || len(p) > t.max
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return n, nil
	}
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.truncated = true
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return n, nil
}

// tail is the output kept, as text.
func (t *tailBuffer) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.ToValidUTF8(t.buf, []byte("?")))
}

// report is the output tail as it goes into last_error.
func (t *tailBuffer) report() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.buf) == 0 {
		return "\n(no output)"
	}
	head := "\noutput:\n"
	if t.truncated {
		head = fmt.Sprintf("\noutput (last %d bytes):\n", len(t.buf))
	}
	return head + string(bytes.ToValidUTF8(t.buf, []byte("?")))
}
