package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
)

func enqueue(t *testing.T, c *jobq.Client, task string, payload any, opts jobq.EnqueueOptions) int64 {
	t.Helper()
	id, err := c.Enqueue(context.Background(), task, payload, opts)
	require.NoError(t, err)
	return id
}

// GWT-12 and GWT-3 (up): ping is picked up; the probes answer; the process exits 0 on SIGTERM.
func TestWorkerPingAndProbes(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	// Configured through the environment only.
	w := startWorker(t, []string{"WORKER_DATABASE_URL=" + db.URL("worker_runtime"), "WORKER_CONCURRENCY=3", "WORKER_QUEUES=default,low"})

	var readyAfter time.Duration
	waitUntil(t, waitCeiling, "/readyz 200", func() bool {
		code, _ := w.Get("/readyz")
		readyAfter = time.Since(w.Started)
		return code == 200
	})
	t.Logf("ready %s after the process started", readyAfter.Round(time.Millisecond)) // not bounded: a loaded machine starts slower
	code, body := w.Get("/healthz")
	require.Equal(t, 200, code, body)
	started := w.Lines("runner started")
	require.Len(t, started, 1)
	require.Equal(t, float64(3), started[0]["concurrency"])
	require.Equal(t, []any{"default", "low"}, started[0]["queues"])

	// ping is declared at start; exec, not served without --exec-command, is not.
	require.Equal(t, []string{"ping system {}"}, queryTexts(t, admin,
		`SELECT name || ' ' || scope || ' ' || payload_schema::text FROM jobq.tasks ORDER BY name`))
	id := enqueue(t, jobq.NewClient(admin), "ping", nil, jobq.EnqueueOptions{})
	waitUntil(t, waitCeiling, "ping succeeded", func() bool {
		state, _ := liveOrFinished(t, admin, id)
		return state == "succeeded"
	})
	waitUntil(t, waitCeiling, "metrics", func() bool {
		_, metrics := w.Get("/metrics")
		return strings.Contains(metrics, `jobq_jobs_completed_total{task="ping"} 1`)
	})
	_, metrics := w.Get("/metrics")
	for _, name := range []string{`jobq_jobs_claimed_total{task="ping"} 1`, "jobq_job_run_seconds_bucket", "jobq_leases_held 0", "jobq_listener_connected 1"} {
		require.Contains(t, metrics, name)
	}

	w.Signal(syscall.SIGTERM)
	require.Equal(t, 0, w.Wait(waitCeiling))
	require.Len(t, w.Lines("runner stopped"), 1)
}

func TestWorkerExecTask(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	dir := t.TempDir()
	script := `payload=$(cat)
printf '%s' "$payload" > "$OUT/$JOBQ_JOB_ID.json"
echo "task=$JOBQ_TASK attempt=$JOBQ_ATTEMPT store=$JOBQ_STORE_ID db=${WORKER_DATABASE_URL:-none} wakeup=${WAKEUP_DATABASE_URL:-none}"
case "$payload" in *fail*) echo "it broke" >&2; exit 3;; esac`
	w := startWorker(t, []string{"OUT=" + dir, "WAKEUP_DATABASE_URL=" + db.URL("jobq_waker")}, "--database-url", db.URL("worker_runtime"),
		"--exec-command", script)
	w.WaitStarted()
	// Served, exec is declared: a system task whose payload may be any JSON object.
	var scope, schema string
	require.NoError(t, admin.QueryRow(context.Background(), `SELECT scope, payload_schema::text FROM jobq.tasks WHERE name = 'exec'`).
		Scan(&scope, &schema))
	require.Equal(t, "system", scope)
	require.JSONEq(t, `{}`, schema)
	c := jobq.NewClient(admin)
	ok := enqueue(t, c, "exec", map[string]any{"hello": "world", "n": 1}, jobq.EnqueueOptions{})
	bad := enqueue(t, c, "exec", map[string]any{"mode": "fail"}, jobq.EnqueueOptions{BackoffBase: time.Hour})

	waitUntil(t, waitCeiling, "exec jobs ran", func() bool {
		s1, _ := liveOrFinished(t, admin, ok)
		s2, _ := liveOrFinished(t, admin, bad)
		return s1 == "succeeded" && s2 == "retry_pending"
	})
	got, err := os.ReadFile(filepath.Join(dir, strconv.FormatInt(ok, 10)+".json"))
	require.NoError(t, err)
	require.JSONEq(t, `{"hello": "world", "n": 1}`, string(got), "the payload arrives on standard input")

	var lastError string
	require.NoError(t, admin.QueryRow(context.Background(), `SELECT last_error FROM jobq.jobs WHERE id = $1`, bad).Scan(&lastError))
	require.Contains(t, lastError, "exit status 3")
	require.Contains(t, lastError, "it broke", "the output's tail is kept")
	require.Contains(t, lastError, "task=exec attempt=1 store= db=none wakeup=none", "JOBQ_* set; the database URLs are not passed on")
}

func TestWorkerRefusesUnsafeRoles(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	for _, role := range []string{"postgres", "jobq_migrator"} {
		t.Run(role, func(t *testing.T) {
			t.Parallel()
			w := startWorker(t, nil, "--database-url", db.URL(role))
			require.Equal(t, 1, w.Wait(waitCeiling))
			require.Contains(t, w.Stderr.String(), "WORKER.UNSAFE_ROLE")
			require.Contains(t, w.Stderr.String(), role)
			lines := w.Lines("refusing to start")
			require.Len(t, lines, 1)
			require.Equal(t, "WORKER.UNSAFE_ROLE", lines[0]["code"])
		})
	}
}

// SIGTERM while long jobs run: the worker stops claiming, lets short jobs finish, hands the long
// ones back after the grace period (attempt unchanged) and exits 0 at the end of it, long before
// the long jobs would end by themselves.
func TestWorkerSIGTERMHandsBackUnfinishedJobs(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	w := startWorker(t, nil, "--database-url", db.URL("worker_runtime"), "--concurrency", "3",
		"--shutdown-grace", "5s", "--exec-command", `case "$(cat)" in *long*) sleep 300;; *) sleep 0.5;; esac`)
	w.WaitStarted()
	c := jobq.NewClient(admin)
	long1 := enqueue(t, c, "exec", map[string]string{"kind": "long"}, jobq.EnqueueOptions{})
	long2 := enqueue(t, c, "exec", map[string]string{"kind": "long"}, jobq.EnqueueOptions{})
	short := enqueue(t, c, "exec", map[string]string{"kind": "short"}, jobq.EnqueueOptions{})
	waitUntil(t, waitCeiling, "three jobs running", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.jobs WHERE state = 'running'`) == 3
	})

	began := time.Now()
	w.Signal(syscall.SIGTERM)
	// Claiming stops at once: a job enqueued now stays queued.
	late := enqueue(t, c, "exec", map[string]string{"kind": "short"}, jobq.EnqueueOptions{})
	require.Equal(t, 0, w.Wait(waitCeiling), "exit 0 after a clean drain")
	took := time.Since(began)
	t.Logf("exited %s after SIGTERM (grace 5s)", took.Round(time.Millisecond))
	require.GreaterOrEqual(t, took, 5*time.Second, "long jobs had their grace period")
	require.Less(t, took, waitCeiling, "and were stopped at its end, not after their 300 s")

	state, attempt := liveOrFinished(t, admin, short)
	require.Equal(t, "succeeded", state)
	require.Equal(t, 1, attempt)
	for _, id := range []int64{long1, long2} {
		state, attempt := liveOrFinished(t, admin, id)
		require.Equal(t, "queued", state, "handed back")
		require.Equal(t, 0, attempt, "the handed-back attempt is not counted")
	}
	state, attempt = liveOrFinished(t, admin, late)
	require.Equal(t, "queued", state)
	require.Equal(t, 0, attempt)
	require.Len(t, w.Lines("job handed back at shutdown"), 2)
}

func TestWorkerSecondSignalStopsAtOnce(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	w := startWorker(t, nil, "--database-url", db.URL("worker_runtime"), "--shutdown-grace", "1m",
		"--exec-command", "sleep 30")
	w.WaitStarted()
	id := enqueue(t, jobq.NewClient(admin), "exec", nil, jobq.EnqueueOptions{})
	waitUntil(t, waitCeiling, "job running", func() bool {
		state, _ := liveOrFinished(t, admin, id)
		return state == "running"
	})
	w.Signal(syscall.SIGTERM)
	waitUntil(t, waitCeiling, "graceful shutdown started", func() bool {
		return len(w.Lines("shutting down: claiming stopped, waiting for running jobs")) == 1
	})
	began := time.Now()
	w.Signal(syscall.SIGTERM)
	require.Equal(t, 1, w.Wait(waitCeiling), "not a clean drain")
	took := time.Since(began)
	t.Logf("exited %s after the second SIGTERM (grace 1m)", took.Round(time.Millisecond))
	require.Less(t, took, 30*time.Second, "at once, not at the end of the one-minute grace period")
	state, attempt := liveOrFinished(t, admin, id)
	require.Equal(t, "queued", state, "the cancelled job was still handed back")
	require.Equal(t, 0, attempt)
}

// kill -9 of a worker holding leases: after the lease expires another worker rescues every job
// and runs each exactly once more; none is lost.
func TestWorkerKill9JobsRunAgainExactlyOnce(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	const n = 5
	// worker-a never leads: the rescue is then maintain's of worker-b, the leader, at once (a
	// killed leader is replaced after leader_ttl: TestWorkerLeaderKilledAnotherTakesOver).
	a := startWorker(t, nil, "--database-url", db.URL("worker_runtime"), "--worker-id", "worker-a", "--no-leader",
		"--lease", "2s", "--concurrency", strconv.Itoa(n), "--exec-command", "sleep 10")
	a.WaitStarted()
	c := jobq.NewClient(admin)
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = enqueue(t, c, "exec", map[string]int{"i": i}, jobq.EnqueueOptions{})
	}
	waitUntil(t, waitCeiling, "worker-a holds every job", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.jobs WHERE state = 'running' AND locked_by = 'worker-a'`) == n
	})
	a.Signal(syscall.SIGKILL)
	a.Wait(waitCeiling)

	runs := filepath.Join(t.TempDir(), "runs")
	startWorker(t, []string{"RUNS=" + runs}, "--database-url", db.URL("worker_runtime"), "--worker-id", "worker-b",
		"--lease", "2s", "--concurrency", strconv.Itoa(n), "--exec-command", `echo "$JOBQ_JOB_ID" >> "$RUNS"`)
	waitUntil(t, waitCeiling, "every job succeeded on worker-b", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded' AND id = ANY($1)`, ids) == n
	})
	require.Equal(t, n, queryInt(t, admin,
		`SELECT count(*) FROM jobq.job_history WHERE id = ANY($1) AND attempt = 2 AND locked_by = 'worker-b'`, ids),
		"each job ran exactly once more, on worker-b")
	require.Equal(t, 0, queryInt(t, admin, `SELECT count(*) FROM jobq.jobs`))
	body, err := os.ReadFile(runs)
	require.NoError(t, err)
	got := strings.Fields(string(body))
	slices.Sort(got)
	want := make([]string, n)
	for i, id := range ids {
		want[i] = strconv.FormatInt(id, 10)
	}
	slices.Sort(want)
	require.Equal(t, want, got, "every job ran once on worker-b")
}

// SIGSTOP a worker past its lease: another worker rescues and completes the job; after SIGCONT
// the first worker stops its handler before anything else (self-fencing, issue 34: no renewal
// was confirmed before the lease could end), never renews that lease, and writes nothing over
// the other worker's result.
func TestWorkerSIGSTOPZombieLosesItsLease(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	// worker-a never leads, so the paused process is not the leader: worker-b's maintain
	// rescues the job as soon as its lease expires.
	a := startWorker(t, nil, "--database-url", db.URL("worker_runtime"), "--worker-id", "worker-a", "--no-leader",
		"--lease", "2s", "--exec-command", "sleep 20")
	a.WaitStarted()
	id := enqueue(t, jobq.NewClient(admin), "exec", nil, jobq.EnqueueOptions{})
	waitUntil(t, waitCeiling, "worker-a runs the job", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.jobs WHERE id = $1 AND locked_by = 'worker-a'`, id) == 1
	})
	a.Signal(syscall.SIGSTOP)

	b := startWorker(t, nil, "--database-url", db.URL("worker_runtime"), "--worker-id", "worker-b",
		"--lease", "2s", "--exec-command", "true")
	waitUntil(t, waitCeiling, "worker-b completed the job", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.job_history WHERE id = $1 AND state = 'succeeded'`, id) == 1
	})
	require.NotEmpty(t, b.Lines("leadership acquired"))
	rescued := 0
	for _, l := range b.Lines("maintain") {
		rescued += int(l["rescued"].(float64))
	}
	require.Equal(t, 1, rescued, "worker-b's maintain rescued the job")

	a.Signal(syscall.SIGCONT)
	waitUntil(t, waitCeiling, "worker-a stops its handler on waking", func() bool {
		for _, l := range a.Lines("handler stopped: its lease was not renewed in time (self-fencing)") {
			if l["jobId"] == float64(id) {
				return true
			}
		}
		return false
	})
	waitUntil(t, waitCeiling, "worker-a discarded its result", func() bool {
		return len(a.Lines("handler stopped before its lease could end (self-fencing); result discarded, the job's sweep records the attempt")) == 1
	})
	require.Empty(t, a.Lines("lease lost"), "the stopped lease was not sent to a heartbeat again")
	var lockedBy string
	var attempt int
	require.NoError(t, admin.QueryRow(context.Background(),
		`SELECT locked_by, attempt FROM jobq.job_history WHERE id = $1`, id).Scan(&lockedBy, &attempt))
	require.Equal(t, "worker-b", lockedBy, "the zombie wrote nothing")
	require.Equal(t, 2, attempt)
	require.Empty(t, a.Lines("job succeeded"))
	require.Empty(t, a.Lines("job failed"))

	a.Signal(syscall.SIGTERM)
	require.Equal(t, 0, a.Wait(waitCeiling))
}
