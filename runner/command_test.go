package runner_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/proctest"
	"github.com/jobqdev/jobq/runner"
)

func commandJob(payload string) *jobq.Job {
	store := "2d0f3d1e-0000-4000-8000-000000000001"
	return &jobq.Job{ID: 42, Task: "cmd", Queue: "default", Payload: json.RawMessage(payload), Attempt: 3, MaxAttempts: 7, StoreID: &store}
}

// script returns a Command handler running script with /bin/sh -c, OUT naming dir.
func script(t *testing.T, dir, script string, opts ...func(*runner.CommandConfig)) runner.Handler {
	t.Helper()
	cfg := runner.CommandConfig{Argv: []string{script}, Shell: true, Env: map[string]string{"OUT": dir}}
	for _, o := range opts {
		o(&cfg)
	}
	h, err := runner.Command(cfg)
	require.NoError(t, err)
	return h
}

// readPid waits for a pid written to path.
func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitFor(t, waitCeiling, "pid in "+filepath.Base(path), func() bool {
		b, _ := os.ReadFile(path)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return pid > 0
	})
	return pid
}

// gone reports whether process pid has ended: no such process, or a zombie (killed, its new
// parent not having reaped it yet).
func gone(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	return err != nil || strings.Contains(string(stat), ") Z ")
}

// inheritedDescriptors lists the descriptors above 3 this process holds without close-on-exec:
// given to it by whatever started it, every child inherits them (Go opens its own close-on-exec).
func inheritedDescriptors(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	var fds []string
	for _, e := range entries {
		if n, _ := strconv.Atoi(e.Name()); n <= 3 {
			continue
		}
		info, err := os.ReadFile(filepath.Join("/proc/self/fdinfo", e.Name()))
		if err != nil {
			continue // the directory's own descriptor, closed by now
		}
		for _, line := range strings.Split(string(info), "\n") {
			if v, ok := strings.CutPrefix(line, "flags:"); ok {
				if flags, _ := strconv.ParseInt(strings.TrimSpace(v), 8, 64); flags&syscall.O_CLOEXEC == 0 {
					fds = append(fds, e.Name())
				}
			}
		}
	}
	return fds
}

func verdict(err error) runner.Verdict { return runner.VerdictOf(commandJob(`{}`), err) }

func TestCommand(t *testing.T) {
	t.Parallel()
	t.Run("PayloadOnStdinJobInEnvironmentNoWorkerSecrets", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		h := script(t, dir, `cat > "$OUT/stdin"; env > "$OUT/env"`)
		require.NoError(t, h.Work(context.Background(), commandJob(`{"a": 1}`)))
		stdin, err := os.ReadFile(filepath.Join(dir, "stdin"))
		require.NoError(t, err)
		require.Equal(t, `{"a": 1}`, string(stdin))
		env := map[string]string{}
		raw, err := os.ReadFile(filepath.Join(dir, "env"))
		require.NoError(t, err)
		for line := range strings.Lines(string(raw)) {
			k, v, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
			env[k] = v
		}
		require.Equal(t, "42", env["JOBQ_JOB_ID"])
		require.Equal(t, "cmd", env["JOBQ_TASK"])
		require.Equal(t, "default", env["JOBQ_QUEUE"])
		require.Equal(t, "3", env["JOBQ_ATTEMPT"])
		require.Equal(t, "7", env["JOBQ_MAX_ATTEMPTS"])
		require.Equal(t, "2d0f3d1e-0000-4000-8000-000000000001", env["JOBQ_STORE_ID"])
		require.NotEmpty(t, env["JOBQ_SNOOZE_FILE"])
		deadline, err := time.Parse(time.RFC3339, env["JOBQ_DEADLINE"])
		require.NoError(t, err)
		require.True(t, strings.HasSuffix(env["JOBQ_DEADLINE"], "Z"), "in UTC")
		require.InDelta(t, runner.DefaultHandlerTimeout.Seconds(), time.Until(deadline).Seconds(), 60)
		require.Equal(t, os.Getenv("PATH"), env["PATH"], "PATH is inherited by default")
		for name := range env {
			if strings.HasPrefix(name, "JOBQ_") || name == "OUT" || name == "PWD" || name == "SHLVL" || name == "_" {
				continue
			}
			require.Contains(t, runner.DefaultInheritEnv, name, "only the default variables are inherited")
		}
		// Under the sandbox the test's environment holds database URLs and PG* settings.
		for _, kv := range os.Environ() {
			name, _, _ := strings.Cut(kv, "=")
			if strings.HasPrefix(name, "DATABASE_URL") || strings.HasPrefix(name, "PG") {
				require.NotContains(t, env, name)
			}
		}
	})
	t.Run("ArgvIsExecutedWithoutAShell", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		name := filepath.Join(dir, `a;b $HOME`)
		h, err := runner.Command(runner.CommandConfig{Argv: []string{"tee", name}, InheritEnv: []string{}})
		require.NoError(t, err)
		require.NoError(t, h.Work(context.Background(), commandJob(`[1]`)))
		got, err := os.ReadFile(name)
		require.NoError(t, err)
		require.Equal(t, `[1]`, string(got))
	})
	t.Run("GateLeavesTheProgramItsOwnDescriptorsEnvironmentAndArgv", func(t *testing.T) {
		t.Parallel()
		// The gate that tells the reaper the command's group runs in the command's process first
		// (the shell itself for Shell, the worker's executable for Argv): its descriptors and its
		// variable are gone when the program runs, and argv is the program's own. The shell lists
		// its descriptors by a glob.
		const list = `set -- /proc/$$/fd/*; echo "$@" > "$OUT/fds"; env > "$OUT/env"; echo "$0" > "$OUT/argv0"`
		for _, shell := range []bool{true, false} {
			dir := t.TempDir()
			argv := []string{"/bin/sh", "-c", list}
			if shell {
				argv = []string{list}
			}
			h, err := runner.Command(runner.CommandConfig{Argv: argv, Shell: shell, Env: map[string]string{"OUT": dir}})
			require.NoError(t, err)
			require.NoError(t, h.Work(context.Background(), commandJob(`{}`)))
			got, err := os.ReadFile(filepath.Join(dir, "fds"))
			require.NoError(t, err)
			var fds []string
			for _, f := range strings.Fields(string(got)) {
				fds = append(fds, filepath.Base(f))
			}
			inherited := inheritedDescriptors(t)
			// The glob reads the directory through a descriptor of its own: the lowest free one.
			lowest := 4
			for slices.Contains(inherited, strconv.Itoa(lowest)) {
				lowest++
			}
			require.ElementsMatch(t, append([]string{"0", "1", "2", "3", strconv.Itoa(lowest)}, inherited...), fds,
				"shell %v: stdin, stdout, stderr, the progress pipe ($JOBQ_PROGRESS_FD), what this test was given to pass on and the glob's own", shell)
			env, err := os.ReadFile(filepath.Join(dir, "env"))
			require.NoError(t, err)
			require.NotContains(t, string(env), "JOBQ_COMMAND_GATE")
			argv0, err := os.ReadFile(filepath.Join(dir, "argv0"))
			require.NoError(t, err)
			require.Equal(t, "/bin/sh\n", string(argv0))
		}
	})
	t.Run("ExitCodes", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		run := func(s string) error { return script(t, dir, s).Work(context.Background(), commandJob(`{}`)) }
		require.NoError(t, run(`exit 0`))

		snooze := func(written string) time.Duration {
			v := verdict(run(`printf '%s' '` + written + `' > "$JOBQ_SNOOZE_FILE"; exit 75`))
			require.Equal(t, runner.VerdictSnooze, v.Kind, written)
			return v.Delay
		}
		require.Equal(t, 90*time.Second, snooze("90s"))
		require.Equal(t, 2500*time.Millisecond, snooze("2.5\n"))
		require.Equal(t, runner.DefaultSnooze, snooze(""), "nothing written: the default")
		require.Equal(t, runner.DefaultSnooze, snooze("soon"), "unusable: the default")
		require.Equal(t, runner.MaxSnooze, snooze("100000h"), "clamped to the engine's limit")
		require.Equal(t, time.Duration(0), snooze("-5s"), "clamped to zero")
		v := verdict(run(`exit 75`))
		require.Equal(t, runner.Verdict{Kind: runner.VerdictSnooze, Delay: runner.DefaultSnooze}, v)

		v = verdict(run(`echo "bad payload"; exit 65`))
		require.Equal(t, runner.VerdictFail, v.Kind)
		require.True(t, v.Failure.Fatal, "65 fails for good")
		require.Contains(t, v.Failure.Error, "exit status 65")
		require.Equal(t, "bad payload\n", v.Failure.Output)

		v = verdict(run(`echo starting; echo "disk full" >&2; exit 3`))
		require.False(t, v.Failure.Fatal, "any other status is retried")
		require.Contains(t, v.Failure.Error, "exit status 3")
		require.Contains(t, v.Failure.Error, "starting\ndisk full")

		v = verdict(run(`kill -SEGV $$`))
		require.Equal(t, runner.VerdictFail, v.Kind)
		require.False(t, v.Failure.Fatal)
		require.Contains(t, v.Failure.Error, "killed by signal SIGSEGV")
	})
	t.Run("ProgramThatCannotStartIsAFailedAttempt", func(t *testing.T) {
		t.Parallel()
		h, err := runner.Command(runner.CommandConfig{Argv: []string{"jobq-no-such-program", "x"}})
		require.NoError(t, err, "a missing program is a run-time failure, not a configuration error")
		v := verdict(h.Work(context.Background(), commandJob(`{}`)))
		require.Equal(t, runner.VerdictFail, v.Kind)
		require.False(t, v.Failure.Fatal)
		require.Equal(t, "command not found: jobq-no-such-program", v.Failure.Error)

		notExec := filepath.Join(t.TempDir(), "prog")
		require.NoError(t, os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644))
		h, err = runner.Command(runner.CommandConfig{Argv: []string{notExec}})
		require.NoError(t, err)
		v = verdict(h.Work(context.Background(), commandJob(`{}`)))
		require.False(t, v.Failure.Fatal)
		require.Contains(t, v.Failure.Error, "cannot start")
		require.Contains(t, v.Failure.Error, "permission denied")
	})
	t.Run("TimeoutKillsTheGroup", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		h := script(t, dir, `sleep 300 & echo $! > "$OUT/child"; wait`, func(c *runner.CommandConfig) {
			c.Timeout = 300 * time.Millisecond
			c.KillGrace = time.Minute
		})
		began := time.Now()
		err := h.Work(context.Background(), commandJob(`{}`))
		require.ErrorIs(t, err, runner.ErrHandlerTimeout)
		require.Equal(t, "timed_out", verdict(err).Failure.Reason)
		require.Less(t, time.Since(began), waitCeiling, "stopped at its timeout (SIGTERM ends sh and sleep), not after 300 s")
		child := readPid(t, filepath.Join(dir, "child"))
		waitFor(t, waitCeiling, "child gone", func() bool { return gone(child) })
	})
	t.Run("StopSendsSIGTERMThenSIGKILLAfterTheGrace", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		const grace = 700 * time.Millisecond
		// The shell ignores nothing but notes SIGTERM and goes on: only SIGKILL ends it.
		h := script(t, dir, `trap 'echo term >> "$OUT/signals"' TERM; echo $$ > "$OUT/pid"; while :; do sleep 0.05; done`,
			func(c *runner.CommandConfig) { c.KillGrace = grace })
		ctx, cancel := context.WithCancelCause(context.Background())
		done := make(chan error, 1)
		go func() { done <- h.Work(ctx, commandJob(`{}`)) }()
		pid := readPid(t, filepath.Join(dir, "pid"))
		stopped := time.Now()
		cancel(jobq.ErrLeaseLost)
		var err error
		select {
		case err = <-done:
		case <-time.After(waitCeiling):
			t.Fatal("the command was not stopped")
		}
		took := time.Since(stopped)
		require.ErrorIs(t, err, jobq.ErrLeaseLost, "the cause is in the error")
		require.Contains(t, err.Error(), "killed by signal SIGKILL")
		require.GreaterOrEqual(t, took, grace, "SIGKILL only after the grace")
		signals, _ := os.ReadFile(filepath.Join(dir, "signals"))
		require.Contains(t, string(signals), "term", "SIGTERM came first")
		require.True(t, gone(pid))

		// A command that ends on SIGTERM is not kept until the grace is over.
		dir2 := t.TempDir()
		h = script(t, dir2, `echo $$ > "$OUT/pid"; while :; do sleep 0.05; done`, func(c *runner.CommandConfig) { c.KillGrace = time.Hour })
		ctx, cancel = context.WithCancelCause(context.Background())
		go func() { done <- h.Work(ctx, commandJob(`{}`)) }()
		readPid(t, filepath.Join(dir2, "pid"))
		cancel(runner.ErrShutdown)
		select {
		case err = <-done:
			require.ErrorIs(t, err, runner.ErrShutdown)
			require.Contains(t, err.Error(), "killed by signal SIGTERM")
		case <-time.After(waitCeiling):
			t.Fatal("a command ending on SIGTERM waited for the hour of grace")
		}
	})
	t.Run("ChildOutlivingTheCommandIsKilled", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		// The child keeps the output pipe open: Wait must not hang on it.
		h := script(t, dir, `sleep 300 & echo $! > "$OUT/child"; echo parent done`)
		began := time.Now()
		require.NoError(t, h.Work(context.Background(), commandJob(`{}`)))
		require.Less(t, time.Since(began), waitCeiling)
		child := readPid(t, filepath.Join(dir, "child"))
		waitFor(t, waitCeiling, "child gone", func() bool { return gone(child) })
	})
	t.Run("ConfigErrors", func(t *testing.T) {
		t.Parallel()
		for _, cfg := range []runner.CommandConfig{
			{},
			{Argv: []string{""}},
			{Argv: []string{"echo", "x"}, Shell: true},
			{Argv: []string{"true"}, InheritEnv: []string{"JOBQ_DATABASE_URL"}},
			{Argv: []string{"true"}, InheritEnv: []string{"DATABASE_URL"}},
			{Argv: []string{"true"}, InheritEnv: []string{"PGPASSWORD"}},
			{Argv: []string{"true"}, InheritEnv: []string{"SENTRY_DSN"}},
			{Argv: []string{"true"}, InheritEnv: []string{"WORKER_RUNTIME_PASSWORD"}},
			{Argv: []string{"true"}, InheritEnv: []string{"A=B"}},
			{Argv: []string{"true"}, Env: map[string]string{"JOBQ_JOB_ID": "1"}},
			{Argv: []string{"true"}, Timeout: -time.Second},
		} {
			_, err := runner.Command(cfg)
			require.Error(t, err, "%+v", cfg)
		}
	})
}

// A command printing 100 MB keeps only its tail: the handler's memory does not grow with the
// output. Not parallel, so no other test allocates meanwhile.
func TestCommandOutputIsBounded(t *testing.T) {
	h := script(t, t.TempDir(), `yes 0123456789abcdef | head -c 100000000; echo; echo the end; exit 1`)
	rss := func() int64 {
		f, err := os.Open("/proc/self/status")
		require.NoError(t, err)
		defer f.Close()
		s := bufio.NewScanner(f)
		for s.Scan() {
			if v, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok { // peak RSS
				kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				require.NoError(t, err)
				return kb << 10
			}
		}
		t.Fatal("no VmHWM")
		return 0
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	peakBefore := rss()
	v := verdict(h.Work(context.Background(), commandJob(`{}`)))
	runtime.ReadMemStats(&after)
	peakAfter := rss()
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("100 MB of output: %d bytes allocated, peak RSS %d -> %d kB", allocated, peakBefore>>10, peakAfter>>10)
	require.Equal(t, runner.VerdictFail, v.Kind)
	require.Len(t, v.Failure.Output, runner.DefaultCommandOutputTail, "the kept tail is OutputTail bytes")
	require.True(t, strings.HasSuffix(v.Failure.Output, "\nthe end\n"), "the end of the output")
	require.Contains(t, v.Failure.Output, "0123456789abcdef\n")
	require.Contains(t, v.Failure.Error, "last 4096 bytes")
	require.Less(t, allocated, uint64(4<<20), "allocations do not grow with the output")
	require.Less(t, peakAfter-peakBefore, int64(16<<20), "nor does the peak RSS")
}

// The contract seen in the tables: a runner runs Command handlers against a real database.
func TestCommandUnderRunner(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tasks := []string{"cmd-ok", "cmd-snooze", "cmd-permanent", "cmd-retry", "cmd-missing", "cmd-hang", "cmd-signal", "cmd-deadline"}
	b.define(t, tasks...)
	dir := t.TempDir()
	r, err := runner.New(b.config())
	require.NoError(t, err)
	handle := func(task, s string) {
		r.Handle(task, script(t, dir, s))
	}
	handle("cmd-ok", `cat > "$OUT/ok.stdin"`)
	handle("cmd-snooze", `echo 3600 > "$JOBQ_SNOOZE_FILE"; exit 75`)
	handle("cmd-permanent", `echo "cannot parse the payload"; exit 65`)
	handle("cmd-retry", `echo "upstream down" >&2; exit 3`)
	h, err := runner.Command(runner.CommandConfig{Argv: []string{"jobq-no-such-program"}})
	require.NoError(t, err)
	r.Handle("cmd-missing", h)
	handle("cmd-hang", `sleep 300 & echo $! > "$OUT/hang.child"; wait`)
	handle("cmd-signal", `kill -KILL $$`)
	handle("cmd-deadline", `echo "$JOBQ_DEADLINE" > "$OUT/deadline.$JOBQ_JOB_ID"`)
	start(t, r)

	slow := jobq.EnqueueOptions{MaxAttempts: 5, BackoffBase: time.Hour}
	ok := b.enqueue(t, "cmd-ok", map[string]int{"n": 1}, jobq.EnqueueOptions{})
	snooze := b.enqueue(t, "cmd-snooze", nil, slow)
	permanent := b.enqueue(t, "cmd-permanent", nil, slow)
	retry := b.enqueue(t, "cmd-retry", nil, slow)
	missing := b.enqueue(t, "cmd-missing", nil, slow)
	hang := b.enqueue(t, "cmd-hang", nil, jobq.EnqueueOptions{MaxAttempts: 1, Timeout: time.Second})
	signal := b.enqueue(t, "cmd-signal", nil, slow)
	withTimeout := b.enqueue(t, "cmd-deadline", nil, jobq.EnqueueOptions{Timeout: time.Hour})
	without := b.enqueue(t, "cmd-deadline", nil, jobq.EnqueueOptions{})

	attempt := func(id int64) (reason, errText, output string) {
		require.NoError(t, b.admin.QueryRow(context.Background(), `SELECT reason, coalesce(error, ''), coalesce(output, '')
			FROM jobq.job_attempts WHERE job_id = $1 AND attempt = 1`, id).Scan(&reason, &errText, &output))
		return
	}
	t.Run("Success", func(t *testing.T) {
		row := b.waitState(t, ok, "succeeded")
		require.Equal(t, 1, row.Attempt)
		got, err := os.ReadFile(filepath.Join(dir, "ok.stdin"))
		require.NoError(t, err)
		require.JSONEq(t, `{"n": 1}`, string(got))
	})
	t.Run("SnoozeUsesNoAttempt", func(t *testing.T) {
		var row jobRow
		waitFor(t, waitCeiling, "snoozed", func() bool { row = b.job(t, snooze); return row.State == "queued" && row.RunAtIn > time.Minute })
		require.Equal(t, 0, row.Attempt)
		require.InDelta(t, time.Hour.Seconds(), row.RunAtIn.Seconds(), 60, "the delay the command wrote")
	})
	t.Run("PermanentFailsForGood", func(t *testing.T) {
		row := b.waitState(t, permanent, "dead")
		require.Equal(t, 1, row.Attempt)
		require.Equal(t, "not_retryable", row.Reason)
		reason, _, output := attempt(permanent)
		require.Equal(t, "not_retryable", reason)
		require.Equal(t, "cannot parse the payload\n", output)
	})
	t.Run("OtherExitRetries", func(t *testing.T) {
		row := b.waitState(t, retry, "retry_pending")
		require.Equal(t, 1, row.Attempt)
		require.Contains(t, row.LastError, "exit status 3")
		reason, _, output := attempt(retry)
		require.Equal(t, "error", reason)
		require.Equal(t, "upstream down\n", output)
	})
	t.Run("MissingProgramRetries", func(t *testing.T) {
		row := b.waitState(t, missing, "retry_pending")
		require.Equal(t, 1, row.Attempt)
		require.Equal(t, "command not found: jobq-no-such-program", row.LastError)
	})
	t.Run("HangPastTheJobTimeoutIsKilledWithItsGroup", func(t *testing.T) {
		row := b.waitState(t, hang, "dead")
		require.Equal(t, 1, row.Attempt)
		reason, errText, _ := attempt(hang)
		require.Equal(t, "timed_out", reason)
		require.Contains(t, errText, "timed out")
		child := readPid(t, filepath.Join(dir, "hang.child"))
		waitFor(t, waitCeiling, "the command's child gone", func() bool { return gone(child) })
	})
	t.Run("DeathBySignalRetries", func(t *testing.T) {
		row := b.waitState(t, signal, "retry_pending")
		require.Equal(t, 1, row.Attempt)
		require.Contains(t, row.LastError, "killed by signal SIGKILL")
	})
	t.Run("DeadlineIsTheDatabasesTime", func(t *testing.T) {
		b.waitState(t, withTimeout, "succeeded")
		b.waitState(t, without, "succeeded")
		deadline := func(id int64) time.Time {
			raw, err := os.ReadFile(filepath.Join(dir, "deadline."+strconv.FormatInt(id, 10)))
			require.NoError(t, err)
			d, err := time.Parse(time.RFC3339, strings.TrimSpace(string(raw)))
			require.NoError(t, err)
			return d
		}
		var deadlineAt, claimedAt time.Time
		require.NoError(t, b.admin.QueryRow(context.Background(),
			`SELECT deadline_at, claimed_at FROM jobq.job_history WHERE id = $1`, withTimeout).Scan(&deadlineAt, &claimedAt))
		require.Equal(t, deadlineAt.UTC().Truncate(time.Millisecond), deadline(withTimeout).UTC(),
			"the job's own deadline_at")
		require.NoError(t, b.admin.QueryRow(context.Background(),
			`SELECT claimed_at FROM jobq.job_history WHERE id = $1`, without).Scan(&claimedAt))
		require.InDelta(t, 0, deadline(without).Sub(claimedAt.Add(runner.DefaultHandlerTimeout)).Seconds(), 5,
			"claimed_at plus the default timeout")
	})
}

// Kill -9 of a worker process while its command runs: the command's process group (the command
// and the child it started) dies with it, and the job runs again exactly once after the lease, on
// another worker.
func TestCommandDiesWithItsWorker(t *testing.T) {
	t.Parallel()
	// A shell command is gated by its own shell; a program by the worker's executable.
	for _, kind := range []string{"shell", "argv"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.define(t, "cmd")
			dir := t.TempDir()
			id := b.enqueue(t, "cmd", nil, jobq.EnqueueOptions{BackoffBase: 10 * time.Millisecond})
			bin := proctest.Build(t, "./testdata/handlers/cmdworker")
			env := []string{"WORKER_DATABASE_URL=" + b.db.URL("worker_runtime"), "OUT_DIR=" + dir, "ARGV=" + strconv.FormatBool(kind == "argv"),
				`COMMAND=echo "$JOBQ_ATTEMPT" >> "$OUT_DIR/runs"; if [ "$JOBQ_ATTEMPT" = 1 ]; then sleep 300 & echo $! > "$OUT_DIR/child"; echo $$ > "$OUT_DIR/pid"; exec sleep 300; fi`}
			a := proctest.Start(t, bin, append(env, "WORKER_ID=cmd-a"))
			pid := readPid(t, filepath.Join(dir, "pid"))
			child := readPid(t, filepath.Join(dir, "child"))
			a.Signal(syscall.SIGKILL)
			a.Wait(waitCeiling)
			waitFor(t, waitCeiling, "the command gone with its worker", func() bool { return gone(pid) })
			waitFor(t, waitCeiling, "the command's child gone with its worker", func() bool { return gone(child) })

			proctest.Start(t, bin, append(env, "WORKER_ID=cmd-b"))
			row := b.waitState(t, id, "succeeded")
			require.Equal(t, 2, row.Attempt)
			require.Equal(t, "cmd-b", row.LockedBy)
			var reason, worker string
			require.NoError(t, b.admin.QueryRow(context.Background(),
				`SELECT reason, worker FROM jobq.job_attempts WHERE job_id = $1 AND attempt = 1`, id).Scan(&reason, &worker))
			require.Equal(t, "orphaned", reason)
			require.Equal(t, "cmd-a", worker)
			runs, err := os.ReadFile(filepath.Join(dir, "runs"))
			require.NoError(t, err)
			require.Equal(t, "1\n2\n", string(runs), "killed once, run again exactly once")
		})
	}
}

// SIGTERM to a worker drains: past the runner's shutdown grace the command gets SIGTERM, and
// SIGKILL after its kill grace; the job is handed back without using an attempt.
func TestCommandSIGTERMDrain(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "cmd")
	dir := t.TempDir()
	id := b.enqueue(t, "cmd", nil, jobq.EnqueueOptions{})
	bin := proctest.Build(t, "./testdata/handlers/cmdworker")
	const shutdownGrace, killGrace = 500 * time.Millisecond, 1500 * time.Millisecond
	w := proctest.Start(t, bin, []string{"WORKER_DATABASE_URL=" + b.db.URL("worker_runtime"), "OUT_DIR=" + dir,
		"WORKER_ID=cmd-drain", "SHUTDOWN_GRACE=" + shutdownGrace.String(), "KILL_GRACE=" + killGrace.String(),
		`COMMAND=trap 'echo term >> "$OUT_DIR/signals"' TERM; echo $$ > "$OUT_DIR/pid"; while :; do sleep 0.05; done`})
	pid := readPid(t, filepath.Join(dir, "pid"))
	stopped := time.Now()
	w.Signal(syscall.SIGTERM)
	require.Equal(t, 0, w.Wait(waitCeiling), "a clean drain")
	took := time.Since(stopped)
	t.Logf("worker exited %s after SIGTERM (shutdown grace %s, kill grace %s)", took.Round(time.Millisecond), shutdownGrace, killGrace)
	require.GreaterOrEqual(t, took, shutdownGrace+killGrace, "the command had the shutdown grace, then the kill grace")
	signals, _ := os.ReadFile(filepath.Join(dir, "signals"))
	require.Equal(t, "term\n", string(signals), "one SIGTERM, after the shutdown grace")
	require.True(t, gone(pid), "then SIGKILL")
	row := b.job(t, id)
	require.Equal(t, "queued", row.State, "handed back")
	require.Equal(t, 0, row.Attempt)
}
