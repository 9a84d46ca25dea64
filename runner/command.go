package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jobqdev/jobq"
)

// Defaults and exit codes of Command (docs/handlers.md).
const (
	// DefaultHandlerTimeout bounds one run of a Command or HTTPEndpoint handler whose job has no
	// timeout of its own and whose config sets none.
	DefaultHandlerTimeout = 5 * time.Minute
	// DefaultKillGrace is how long a stopped command's process group has between SIGTERM and
	// SIGKILL.
	DefaultKillGrace = 10 * time.Second
	// DefaultCommandOutputTail is how many bytes of a command's output a failure keeps.
	DefaultCommandOutputTail = 4096
	// DefaultSnooze is the delay of a snooze whose handler named none (or an unusable one).
	DefaultSnooze = 60 * time.Second
	// MaxSnooze is the longest snooze a handler can ask for: the engine's limit (docs/limits.md).
	MaxSnooze = 365 * 24 * time.Hour

	// ExitSnooze (EX_TEMPFAIL) snoozes the job without using an attempt.
	ExitSnooze = 75
	// ExitPermanent (EX_DATAERR) fails the job for good (reason not_retryable).
	ExitPermanent = 65
)

// DefaultInheritEnv are the worker's environment variables a command inherits when
// CommandConfig.InheritEnv is nil.
var DefaultInheritEnv = []string{"PATH", "HOME", "USER", "LANG", "LC_ALL", "TZ", "TMPDIR"}

// ErrHandlerTimeout is the cause of a Command or HTTPEndpoint run stopped by its config's
// Timeout (or DefaultHandlerTimeout). The attempt is recorded with reason timed_out.
var ErrHandlerTimeout = errors.New("handler timed out")

// CommandConfig configures Command. Only Argv is required.
type CommandConfig struct {
	// Argv is the program and its arguments, executed directly (no shell): Argv[0] is looked up
	// in the worker's PATH when it holds no slash. With Shell, Argv is exactly one string, run
	// by /bin/sh -c.
	Argv []string
	// Shell runs Argv[0] with /bin/sh -c. Default: false.
	Shell bool
	// Dir is the command's working directory. Default: the worker's.
	Dir string
	// InheritEnv names the variables of the worker's environment the command gets (those set).
	// nil: DefaultInheritEnv; an empty, non-nil list: none. Names the worker's own secrets may
	// hide behind are refused: JOBQ_*, PG*, DATABASE_URL*, SENTRY_* and *_PASSWORD.
	InheritEnv []string
	// Env are variables set for the command, over the inherited ones. Names starting with
	// JOBQ_ are refused: the runner sets those.
	Env map[string]string
	// Timeout bounds one run. Zero: the job's own timeout, or DefaultHandlerTimeout (5 minutes)
	// for a job without one; set, the earlier of it and the job's timeout ends the run.
	Timeout time.Duration
	// OutputTail is how many bytes of the end of the output (standard output and standard error
	// together) a failure keeps, in last_error and in jobq.job_attempts.output; nothing more is
	// held in memory, whatever the command prints. Default: 4096.
	OutputTail int
	// KillGrace is how long the command's process group has, after SIGTERM, before SIGKILL.
	// Default: 10 seconds.
	KillGrace time.Duration
}

// Command returns a handler that runs a program per job (docs/handlers.md): the payload as JSON
// on standard input, the job in JOBQ_* environment variables, the program in a process group of
// its own. Exit status 0 completes the job; 75 (EX_TEMPFAIL) snoozes it, without using an
// attempt, for the delay written to the file $JOBQ_SNOOZE_FILE (a Go duration or seconds;
// DefaultSnooze otherwise); 65 (EX_DATAERR) fails it for good; any other status, a death by a
// signal, or a program that cannot start fails the attempt (retried) with the tail of the output.
// When the run's context ends (lost lease, timeout, shutdown) the whole group gets SIGTERM, then
// SIGKILL after KillGrace; when the program exits, what is left of its group is killed. When the
// worker process dies (even by kill -9), a reaper process, started at the first command, does the
// same to every group still running. Command needs Linux.
func Command(cfg CommandConfig) (Handler, error) {
	if len(cfg.Argv) == 0 || cfg.Argv[0] == "" {
		return nil, errors.New("runner: CommandConfig.Argv is required")
	}
	if cfg.Shell && len(cfg.Argv) != 1 {
		return nil, errors.New("runner: CommandConfig.Argv with Shell is one string, run by /bin/sh -c")
	}
	if cfg.Timeout < 0 || cfg.OutputTail < 0 || cfg.KillGrace < 0 {
		return nil, errors.New("runner: CommandConfig.Timeout, OutputTail and KillGrace must not be negative")
	}
	if !commandSupported {
		return nil, errors.New("runner: Command needs Linux")
	}
	inherit := cfg.InheritEnv
	if inherit == nil {
		inherit = DefaultInheritEnv
	}
	for _, name := range inherit {
		if err := checkEnvName(name); err != nil {
			return nil, fmt.Errorf("runner: CommandConfig.InheritEnv: %w", err)
		}
		if secretEnvName(name) {
			return nil, fmt.Errorf("runner: CommandConfig.InheritEnv: %q may hold the worker's secrets and is never passed on (set what the command needs in Env)", name)
		}
	}
	keys := slices.Sorted(maps.Keys(cfg.Env))
	for _, name := range keys {
		if err := checkEnvName(name); err != nil {
			return nil, fmt.Errorf("runner: CommandConfig.Env: %w", err)
		}
		if strings.HasPrefix(strings.ToUpper(name), "JOBQ_") {
			return nil, fmt.Errorf("runner: CommandConfig.Env: %q: JOBQ_* variables are set by the runner", name)
		}
		if strings.ContainsRune(cfg.Env[name], 0) {
			return nil, fmt.Errorf("runner: CommandConfig.Env: the value of %q holds a NUL byte", name)
		}
	}
	if cfg.OutputTail == 0 {
		cfg.OutputTail = DefaultCommandOutputTail
	}
	if cfg.KillGrace == 0 {
		cfg.KillGrace = DefaultKillGrace
	}
	c := &command{cfg: cfg, argv: slices.Clone(cfg.Argv), inherit: slices.Clone(inherit)}
	if cfg.Shell {
		c.argv = []string{"/bin/sh", "-c", cfg.Argv[0]}
	}
	for _, k := range keys {
		c.env = append(c.env, k+"="+cfg.Env[k])
	}
	return c, nil
}

func checkEnvName(name string) error {
	if name == "" || strings.ContainsAny(name, "=\x00") {
		return fmt.Errorf("%q is not a variable name", name)
	}
	return nil
}

// secretEnvName reports whether a variable of the worker's environment may hold one of its
// secrets (its database URLs and passwords, its Sentry DSN): such a variable is never inherited.
func secretEnvName(name string) bool {
	n := strings.ToUpper(name)
	return strings.HasPrefix(n, "JOBQ_") || strings.HasPrefix(n, "PG") || strings.HasPrefix(n, "DATABASE_URL") ||
		strings.HasPrefix(n, "SENTRY_") || strings.HasSuffix(n, "_PASSWORD") || strings.Contains(n, "DATABASE_URL")
}

type command struct {
	cfg     CommandConfig
	argv    []string // what is executed (with /bin/sh -c for Shell)
	inherit []string
	env     []string // cfg.Env as NAME=value, sorted
}

// Work runs the command for one attempt of job.
func (c *command) Work(ctx context.Context, job *jobq.Job) error {
	now := databaseNow(ctx, job)
	deadline, cause, limit := runDeadline(c.cfg.Timeout, job, now)
	ctx, cancel := context.WithTimeoutCause(ctx, deadline.Sub(now), cause)
	defer cancel()
	name := c.cfg.Argv[0]
	if c.cfg.Shell {
		name = "/bin/sh -c " + strconv.Quote(name)
	}

	snooze, err := os.CreateTemp("", "jobq-snooze-*")
	if err != nil {
		return fmt.Errorf("command %s: cannot create its snooze file: %w", name, err)
	}
	snoozePath := snooze.Name()
	snooze.Close()
	defer os.Remove(snoozePath)
	// The file in which it may leave the job's result ($JOBQ_RESULT_FILE), read on exit 0.
	resultFile, err := os.CreateTemp("", "jobq-result-*")
	if err != nil {
		return fmt.Errorf("command %s: cannot create its result file: %w", name, err)
	}
	resultPath := resultFile.Name()
	resultFile.Close()
	defer os.Remove(resultPath)

	path, err := exec.LookPath(c.argv[0])
	if err != nil && !errors.Is(err, exec.ErrDot) {
		return startError(name, err)
	}
	cmd := &exec.Cmd{Path: path, Args: c.argv, Dir: c.cfg.Dir, Stdin: bytes.NewReader(job.Payload)}
	if len(job.Payload) == 0 {
		cmd.Stdin = strings.NewReader("null")
	}
	out := &tailBuffer{max: c.cfg.OutputTail}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = c.environment(job, deadline, snoozePath)
	// Its progress, JSON lines on fd 3 ($JOBQ_PROGRESS_FD), is relayed to jobq.set_progress.
	progress, err := openProgressPipe(ctx)
	if err != nil {
		return fmt.Errorf("command %s: cannot open its progress pipe: %w", name, err)
	}
	cmd.ExtraFiles = []*os.File{progress.w}
	cmd.Env = append(cmd.Env, "JOBQ_PROGRESS_FD="+strconv.Itoa(ProgressFD))
	cmd.Env = append(cmd.Env, ResultFileEnv+"="+resultPath)
	end := runGroup(ctx, cmd, c.cfg.KillGrace, c.cfg.Shell)
	progress.close()
	if end.startErr != nil {
		return startError(name, end.startErr)
	}
	// What every attempt keeps, a succeeded one too: the output's tail and the exit status.
	if end.err == nil && end.signal == 0 && !end.stopped {
		code := end.code
		noteAttempt(ctx, out.tail(), &code)
	} else {
		noteAttempt(ctx, out.tail(), nil)
	}
	if end.stopped {
		why := context.Cause(ctx)
		err := &outputError{err: fmt.Errorf("command %s: stopped (%w): %s%s", name, why, end, out.report()),
			output: out.tail()}
		if errors.Is(why, ErrHandlerTimeout) {
			return &timedOut{after: limit, err: err}
		}
		return err
	}
	switch {
	case end.err == nil && end.signal == 0 && end.code == 0:
		if err := readResult(ctx, resultPath); err != nil {
			return Permanent(&outputError{err: fmt.Errorf("command %s: exit status 0, but its result file ($%s): %w%s",
				name, ResultFileEnv, err, out.report()), output: out.tail()})
		}
		return nil
	case end.err == nil && end.signal == 0 && end.code == ExitSnooze:
		return Snooze(readSnooze(snoozePath))
	case end.err == nil && end.signal == 0 && end.code == ExitPermanent:
		return Permanent(&outputError{err: fmt.Errorf("command %s: exit status %d (EX_DATAERR: not retried)%s",
			name, ExitPermanent, out.report()), output: out.tail()})
	}
	return &outputError{err: fmt.Errorf("command %s: %s%s", name, end, out.report()), output: out.tail()}
}

// commandEnd is how a command's run ended.
type commandEnd struct {
	startErr error          // the program could not start
	stopped  bool           // the run's context ended first: the group was signalled
	code     int            // the exit status, when signal is 0
	signal   syscall.Signal // the signal that killed it
	err      error          // the run could not be watched to its end (output, supervision)
}

// String says how the command ended, for a failure's message.
func (e commandEnd) String() string {
	switch {
	case e.err != nil:
		return e.err.Error()
	case e.signal != 0:
		return "killed by signal " + signalName(e.signal)
	}
	return "exit status " + strconv.Itoa(e.code)
}

// environment is the command's environment: the inherited variables, Env, then the job's.
func (c *command) environment(job *jobq.Job, deadline time.Time, snoozeFile string) []string {
	env := make([]string, 0, len(c.inherit)+len(c.env)+8)
	for _, name := range c.inherit {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, name+"="+v)
		}
	}
	env = append(env, c.env...)
	return append(env,
		"JOBQ_JOB_ID="+strconv.FormatInt(job.ID, 10),
		"JOBQ_TASK="+job.Task,
		"JOBQ_QUEUE="+job.Queue,
		"JOBQ_ATTEMPT="+strconv.Itoa(job.Attempt),
		"JOBQ_MAX_ATTEMPTS="+strconv.Itoa(job.MaxAttempts),
		"JOBQ_STORE_ID="+storeOrEmpty(job),
		"JOBQ_DEADLINE="+formatDeadline(deadline),
		"JOBQ_SNOOZE_FILE="+snoozeFile,
	)
}

// startError is the failure of a command that could not start: retried, as a failed attempt.
func startError(name string, err error) error {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("command not found: %s", name)
	}
	return fmt.Errorf("command %s cannot start: %w", name, err)
}

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGINT:
		return "SIGINT"
	}
	return fmt.Sprintf("%d (%s)", int(s), s)
}

// readSnooze reads the delay a command asked for in its snooze file: a Go duration ("90s",
// "1m30s") or a number of seconds ("90", "1.5"), clamped to [0, MaxSnooze]; DefaultSnooze when
// the file is empty, missing or unusable.
// MaxResultFileBytes bounds what the runner reads of a command's result file; a larger file
// fails the attempt (the engine's bound, the setting max_result_bytes, is 65536 as installed).
const MaxResultFileBytes = 64 << 20

// readResult sets the job's result from a command's result file: nothing when it is empty (or
// only white space), else one JSON value of at most MaxResultFileBytes bytes.
func readResult(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxResultFileBytes+1))
	if err != nil {
		return err
	}
	if len(b) > MaxResultFileBytes {
		return fmt.Errorf("it holds more than %d bytes", MaxResultFileBytes)
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	return setRawResult(ctx, b)
}

func readSnooze(path string) time.Duration {
	f, err := os.Open(path)
	if err != nil {
		return DefaultSnooze
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 64))
	return parseDelay(strings.TrimSpace(string(b)))
}

// parseDelay reads a Go duration or a number of seconds, clamped to [0, MaxSnooze]; DefaultSnooze
// when s is neither.
func parseDelay(s string) time.Duration {
	if s == "" {
		return DefaultSnooze
	}
	if d, err := time.ParseDuration(s); err == nil {
		return clampSnooze(d)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == f {
		if f > MaxSnooze.Seconds() {
			return MaxSnooze
		}
		return clampSnooze(time.Duration(f * float64(time.Second)))
	}
	return DefaultSnooze
}

func clampSnooze(d time.Duration) time.Duration { return min(max(d, 0), MaxSnooze) }

// databaseNow is the database's time now, as the runner knows it: the job's claimed_at (the
// database's now() at the claim) plus the time elapsed since the runner got the claim's answer,
// measured on the monotonic clock. A job run outside a Runner (a test calling Work) has no such
// reference: its claimed_at is taken as now, or the worker's clock when it has none.
func databaseNow(ctx context.Context, job *jobq.Job) time.Time {
	if job.ClaimedAt.IsZero() {
		return time.Now()
	}
	if rj, ok := ctx.Value(runningJobKey{}).(*runningJob); ok && rj.job == job && !rj.claimed.IsZero() {
		return job.ClaimedAt.Add(time.Since(rj.claimed))
	}
	return job.ClaimedAt
}

// runDeadline is when a run started at now (the database's time) must end: timeout after now
// (DefaultHandlerTimeout when zero and the job has no timeout of its own), or the job's
// deadline_at when earlier. It returns the cause of the run's end and the limit it applies.
func runDeadline(timeout time.Duration, job *jobq.Job, now time.Time) (time.Time, error, time.Duration) {
	if timeout == 0 && job.DeadlineAt != nil {
		return *job.DeadlineAt, ErrJobTimeout, job.DeadlineAt.Sub(now)
	}
	if timeout == 0 {
		timeout = DefaultHandlerTimeout
	}
	deadline := now.Add(timeout)
	if job.DeadlineAt != nil && job.DeadlineAt.Before(deadline) {
		return *job.DeadlineAt, ErrJobTimeout, job.DeadlineAt.Sub(now)
	}
	return deadline, ErrHandlerTimeout, timeout
}

// formatDeadline writes a deadline as RFC 3339 in UTC, to the millisecond.
func formatDeadline(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
