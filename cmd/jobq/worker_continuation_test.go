package main

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/proctest"
)

// Seed 002 section 7.3: a worker detached while it is stopped (SIGSTOP) cannot confirm the
// continuation of its job. Until the deadline (continuation_retry_count x
// continuation_retry_interval, 3 x 1 s here) nobody else takes the job; after it, the leader's
// sweep records the attempt as failed with reason detached (audited) and another worker runs the
// job. Resumed (SIGCONT), the first worker stops its handler and writes nothing.
func TestWorkerThatCannotConfirmItsContinuationLosesTheJobAfterTheDeadline(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	for _, s := range [][2]string{{"continuation_retry_count", "3"}, {"continuation_retry_interval", "1 second"}} {
		_, err := admin.Exec(context.Background(), `SELECT jobq.set_setting($1, $2)`, s[0], s[1])
		require.NoError(t, err)
	}
	// worker-a never leads, so the paused process is not the leader.
	a := startWorker(t, nil, "--database-url", db.URL("worker_runtime"), "--worker-id", "worker-a", "--no-leader",
		"--exec-command", "sleep 20")
	a.WaitStarted()
	id := enqueue(t, jobq.NewClient(admin), "exec", nil, jobq.EnqueueOptions{})
	waitUntil(t, waitCeiling, "worker-a runs the job", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.jobs WHERE id = $1 AND locked_by = 'worker-a'`, id) == 1
	})
	b := startWorker(t, nil, "--database-url", db.URL("worker_runtime"), "--worker-id", "worker-b", "--exec-command", "true")
	b.WaitStarted()
	waitUntil(t, waitCeiling, "worker-b leads", func() bool { return len(b.Lines("leadership acquired")) > 0 })

	a.Signal(syscall.SIGSTOP)
	var confirmBy time.Time
	require.NoError(t, admin.QueryRow(context.Background(), `SELECT jobq.detach_worker('worker-a'), now() + interval '3 seconds'`).
		Scan(new(int), &confirmBy))
	// Before the deadline the job is CONFIRMING: still worker-a's, under its first attempt.
	require.Equal(t, 1, queryInt(t, admin, `SELECT count(*) FROM jobq.jobs j JOIN jobq.continuations c ON c.job_id = j.id
		WHERE j.id = $1 AND j.locked_by = 'worker-a' AND j.state = 'running' AND j.attempt = 1 AND c.confirm_by = $2`, id, confirmBy),
		"CONFIRMING until the deadline")

	waitUntil(t, waitCeiling, "worker-b ran the job after the deadline", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.job_history WHERE id = $1 AND state = 'succeeded'`, id) == 1
	})
	var lockedBy string
	var attempt int
	var swept time.Time
	require.NoError(t, admin.QueryRow(context.Background(),
		`SELECT h.locked_by, h.attempt, a.ended_at FROM jobq.job_history h JOIN jobq.job_attempts a ON a.job_id = h.id AND a.attempt = 1
		 WHERE h.id = $1 AND a.reason = 'detached' AND a.worker = 'worker-a'`, id).Scan(&lockedBy, &attempt, &swept))
	require.Equal(t, "worker-b", lockedBy)
	require.Equal(t, 2, attempt, "the first attempt failed as detached, the second ran on worker-b")
	require.False(t, swept.Before(confirmBy), "not reassigned before the deadline: swept at %s, deadline %s", swept, confirmBy)
	t.Logf("swept %s after the deadline", swept.Sub(confirmBy).Round(time.Millisecond))
	require.Equal(t, 1, queryInt(t, admin, `SELECT count(*) FROM jobq.audit_log WHERE action = 'continuation_expired' AND job_id = $1`, id))

	a.Signal(syscall.SIGCONT)
	waitUntil(t, waitCeiling, "worker-a stopped its handler", func() bool {
		return len(a.Lines("handler stopped after its lease was lost; result discarded")) == 1
	})
	require.Empty(t, a.Lines("job succeeded"))
	require.Empty(t, a.Lines("job failed"))
	require.Equal(t, "worker-b", queryTexts(t, admin, `SELECT locked_by FROM jobq.job_history WHERE id = $1`, id)[0], "the zombie wrote nothing")
	a.Signal(syscall.SIGTERM)
	require.Equal(t, 0, a.Wait(waitCeiling))
}

// GWT-10 for the sweep: a job whose worker vanished (SIGSTOP) on its last attempt dies in the
// leader's sweep, and exactly one Sentry event is sent for it, by whichever of two workers
// swept it.
func TestWorkerSentryOneEventPerJobDeadInTheSweep(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	sentry := proctest.NewSentry(t)
	env := []string{"SENTRY_DSN=" + sentry.DSN()}
	a := startWorker(t, nil, "--database-url", db.URL("worker_runtime"), "--worker-id", "sweep-a", "--no-leader",
		"--lease", "2s", "--exec-command", "sleep 20")
	a.WaitStarted()
	c := jobq.NewClient(admin)
	ids := []int64{
		enqueue(t, c, "exec", nil, jobq.EnqueueOptions{MaxAttempts: 1}),
		enqueue(t, c, "exec", nil, jobq.EnqueueOptions{MaxAttempts: 1}),
	}
	waitUntil(t, waitCeiling, "sweep-a runs both jobs", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.jobs WHERE id = ANY($1) AND locked_by = 'sweep-a'`, ids) == 2
	})
	a.Signal(syscall.SIGSTOP)
	b := startWorker(t, env, "--database-url", db.URL("worker_runtime"), "--worker-id", "sweep-b", "--exec-command", "true")
	d := startWorker(t, env, "--database-url", db.URL("worker_runtime"), "--worker-id", "sweep-c", "--exec-command", "true")
	b.WaitStarted()
	d.WaitStarted()
	waitUntil(t, waitCeiling, "both jobs died in a sweep", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.job_history WHERE id = ANY($1) AND state = 'dead' AND reason = 'orphaned'`, ids) == 2
	})
	for _, w := range []*workerProc{b, d} {
		w.Signal(syscall.SIGTERM) // the workers flush Sentry before they exit
		require.Equal(t, 0, w.Wait(waitCeiling))
	}
	a.Signal(syscall.SIGKILL)

	byJob := map[string][]map[string]any{}
	for _, ev := range sentry.Received() {
		tags, _ := ev["tags"].(map[string]any)
		jobID, _ := tags["jobId"].(string)
		byJob[jobID] = append(byJob[jobID], ev)
	}
	require.Len(t, byJob, 2, "events for the two dead jobs only: %v", byJob)
	for _, id := range ids {
		evs := byJob[strconv.FormatInt(id, 10)]
		require.Len(t, evs, 1, "exactly one event for job %d", id)
		tags := evs[0]["tags"].(map[string]any)
		require.Equal(t, "orphaned", tags["reason"])
		require.Equal(t, "sweep-a", tags["worker"])
		require.Equal(t, "1", tags["attempt"])
	}
	require.Len(t, append(b.Lines("job dead"), d.Lines("job dead")...), 2, "each dead job logged once, by the worker that swept it")
}

// A handler stopped by its timeout (here the exec task's, --exec-timeout) is recorded with
// reason timed_out, not error; the attempt keeps the tail of the exec task's output and a log
// reference; on its last attempt the job dies as timed_out and one Sentry event says so.
func TestWorkerRecordsATimedOutAttemptWithItsOutputAndLogReference(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	sentry := proctest.NewSentry(t)
	w := startWorker(t, []string{"SENTRY_DSN=" + sentry.DSN()}, "--database-url", db.URL("worker_runtime"), "--worker-id", "slow",
		"--exec-timeout", "1s", "--exec-command", `echo "started $JOBQ_JOB_ID attempt $JOBQ_ATTEMPT"; exec sleep 20`)
	w.WaitStarted()
	id := enqueue(t, jobq.NewClient(admin), "exec", nil, jobq.EnqueueOptions{MaxAttempts: 2, BackoffBase: 100 * time.Millisecond})
	waitUntil(t, waitCeiling, "the job died", func() bool {
		s, _ := liveOrFinished(t, admin, id)
		return s == "dead"
	})
	require.Equal(t, "timed_out", queryTexts(t, admin, `SELECT reason FROM jobq.job_history WHERE id = $1`, id)[0])
	rows, err := admin.Query(context.Background(),
		`SELECT attempt, reason, output, log_ref FROM jobq.job_attempt_list($1) ORDER BY attempt`, id)
	require.NoError(t, err)
	type attemptRow struct {
		Attempt int
		Reason  string
		Output  *string
		LogRef  *string
	}
	var got []attemptRow
	for rows.Next() {
		var r attemptRow
		require.NoError(t, rows.Scan(&r.Attempt, &r.Reason, &r.Output, &r.LogRef))
		got = append(got, r)
	}
	require.NoError(t, rows.Err())
	require.Len(t, got, 2)
	for i, r := range got {
		require.Equal(t, i+1, r.Attempt)
		require.Equal(t, "timed_out", r.Reason, "attempt %d", r.Attempt)
		require.NotNil(t, r.Output)
		require.Equal(t, "started "+strconv.FormatInt(id, 10)+" attempt "+strconv.Itoa(r.Attempt)+"\n", *r.Output)
		require.NotNil(t, r.LogRef)
		require.Equal(t, "workerId=slow jobId="+strconv.FormatInt(id, 10)+" attempt="+strconv.Itoa(r.Attempt), *r.LogRef)
	}
	w.Signal(syscall.SIGTERM)
	require.Equal(t, 0, w.Wait(waitCeiling))
	evs := sentry.Received()
	require.Len(t, evs, 1, "one event for the final failure")
	require.Equal(t, "timed_out", evs[0]["tags"].(map[string]any)["reason"])
}
