package runner_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

func execJob(payload string) *jobq.Job {
	store := "2d0f3d1e-0000-4000-8000-000000000001"
	return &jobq.Job{ID: 42, Task: "exec", Queue: "default", Payload: json.RawMessage(payload), Attempt: 3, MaxAttempts: 7, StoreID: &store}
}

func shell(t *testing.T, script string, opts ...func(*runner.ExecConfig)) runner.Handler {
	t.Helper()
	cfg := runner.ExecConfig{Command: []string{"/bin/sh", "-c", script}}
	for _, o := range opts {
		o(&cfg)
	}
	h, err := runner.Exec(cfg)
	require.NoError(t, err)
	return h
}

func TestExec(t *testing.T) {
	t.Parallel()
	t.Run("PayloadOnStdinAndJobInEnvironment", func(t *testing.T) {
		t.Parallel()
		out := filepath.Join(t.TempDir(), "out")
		h := shell(t, `cat > "$OUT"; echo "$JOBQ_JOB_ID $JOBQ_TASK $JOBQ_QUEUE $JOBQ_ATTEMPT $JOBQ_MAX_ATTEMPTS $JOBQ_STORE_ID" >> "$OUT"`,
			func(c *runner.ExecConfig) { c.Env = append(os.Environ(), "OUT="+out) })
		require.NoError(t, h.Work(context.Background(), execJob(`{"a": 1}`)))
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		require.Equal(t, `{"a": 1}42 exec default 3 7 2d0f3d1e-0000-4000-8000-000000000001`+"\n", string(got))
	})
	t.Run("NonZeroExitFailsWithTheOutputTail", func(t *testing.T) {
		t.Parallel()
		err := shell(t, `echo starting; echo "disk full" >&2; exit 3`).Work(context.Background(), execJob(`{}`))
		require.ErrorContains(t, err, "exit status 3")
		require.ErrorContains(t, err, "starting\ndisk full")
	})
	t.Run("LongOutputKeepsOnlyTheTail", func(t *testing.T) {
		t.Parallel()
		h := shell(t, `i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done; exit 1`,
			func(c *runner.ExecConfig) { c.OutputTail = 100 })
		err := h.Work(context.Background(), execJob(`{}`))
		require.ErrorContains(t, err, "line 1999")
		require.NotContains(t, err.Error(), "line 1000\n")
		require.ErrorContains(t, err, "last 100 bytes")
	})
	t.Run("TimeoutKillsTheCommand", func(t *testing.T) {
		t.Parallel()
		began := time.Now()
		err := shell(t, `sleep 300`, func(c *runner.ExecConfig) { c.Timeout = 200 * time.Millisecond }).
			Work(context.Background(), execJob(`{}`))
		require.ErrorIs(t, err, runner.ErrExecTimeout)
		require.Less(t, time.Since(began), waitCeiling, "killed at its timeout, not after its 300 s")
	})
	t.Run("CancelKillsTheWholeProcessGroup", func(t *testing.T) {
		t.Parallel()
		pidFile := filepath.Join(t.TempDir(), "pid")
		h := shell(t, `sleep 30 & echo $! > "$PIDFILE"; wait`,
			func(c *runner.ExecConfig) { c.Env = append(os.Environ(), "PIDFILE="+pidFile) })
		ctx, cancel := context.WithCancelCause(context.Background())
		done := make(chan error, 1)
		go func() { done <- h.Work(ctx, execJob(`{}`)) }()
		var pid int
		waitFor(t, waitCeiling, "child pid", func() bool {
			b, _ := os.ReadFile(pidFile)
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			return pid > 0
		})
		cancel(jobq.ErrLeaseLost)
		select {
		case err := <-done:
			require.ErrorIs(t, err, jobq.ErrLeaseLost, "the cause is in the error")
		case <-time.After(waitCeiling):
			t.Fatal("cancel did not stop the command")
		}
		waitFor(t, waitCeiling, "grandchild gone", func() bool {
			if syscall.Kill(pid, 0) == syscall.ESRCH {
				return true
			}
			// Killed but not reaped yet (its new parent may be slow to wait): a zombie.
			stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
			return err == nil && strings.Contains(string(stat), ") Z ")
		})
	})
	t.Run("NeedsACommand", func(t *testing.T) {
		t.Parallel()
		_, err := runner.Exec(runner.ExecConfig{})
		require.Error(t, err)
	})
}
