package main

import (
	"context"
	"os/exec"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
)

// Issue 34, item 5 (seed 002 §7.3): a worker detached with the real CLI (`jobq workers detach`)
// while it runs a job confirms the job, finishes it under its old id, then rejoins under a new
// id (rj-a-r1) without a restart of its process: the old row stays detached, the new one is
// active, /readyz answers 200 again naming the new id, and a job enqueued afterwards runs there.
func TestWorkerRejoinsUnderANewIDAfterADetach(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	conn, err := pgx.Connect(testCtx(t), db.URL("postgres"))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close(context.Background()) })
	operatorURL := db.URL(loginRole(t, conn, "rejoin_operator", "IN ROLE jobq_operator"))
	c := jobq.NewClient(admin)

	w := startWorker(t, nil, "--database-url", db.URL("worker_runtime"), "--worker-id", "rj-a",
		"--exec-command", `sleep "$(sed -E 's/[^0-9]//g')"`)
	w.WaitStarted()
	pid := w.Cmd.Process.Pid
	long := enqueue(t, c, "exec", map[string]int{"s": 2}, jobq.EnqueueOptions{})
	waitUntil(t, waitCeiling, "the long job runs on rj-a", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.jobs WHERE id = $1 AND state = 'running' AND locked_by = 'rj-a'`, long) == 1
	})

	out, err := exec.Command(jobqBinary(t), "workers", "detach", "rj-a", "--database-url", operatorURL).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "worker rj-a: detached")

	waitUntil(t, waitCeiling, "rj-a rejoined as rj-a-r1", func() bool {
		return len(w.Lines("worker rejoined under a new id after its detach: claiming again")) == 1
	})
	l := w.Lines("worker rejoined under a new id after its detach: claiming again")[0]
	require.Equal(t, "rj-a", l["previousWorkerId"])
	require.Equal(t, "rj-a-r1", l["newWorkerId"])
	require.Equal(t, "rj-a-r1", l["workerId"], "log lines name the new id")
	require.Equal(t, 1, queryInt(t, admin, `SELECT count(*) FROM jobq.job_history
		WHERE id = $1 AND state = 'succeeded' AND locked_by = 'rj-a' AND attempt = 1`, long),
		"the job running at the detach was confirmed and finished under the old id first")
	require.Equal(t, []string{"rj-a detached", "rj-a-r1 active"}, queryTexts(t, admin,
		`SELECT id || ' ' || state FROM jobq.workers ORDER BY id`))

	waitUntil(t, waitCeiling, "/readyz 200 again", func() bool { code, _ := w.Get("/readyz"); return code == 200 })
	_, body := w.Get("/readyz")
	require.Contains(t, body, `"workerId":"rj-a-r1"`)
	later := enqueue(t, c, "exec", map[string]int{"s": 0}, jobq.EnqueueOptions{})
	waitUntil(t, waitCeiling, "a later job ran on rj-a-r1", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.job_history WHERE id = $1 AND state = 'succeeded' AND locked_by = 'rj-a-r1'`, later) == 1
	})
	select {
	case <-w.Done:
		t.Fatal("the worker exited; it should have rejoined in place")
	default:
	}
	require.Equal(t, pid, w.Cmd.Process.Pid, "the same process")
}
