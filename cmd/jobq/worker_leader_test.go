package main

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
)

// leaderSettings makes leadership fast for a test: a 2 s lease on the leadership (renewed every
// 667 ms) and a maintain every 200 ms.
func leaderSettings(t *testing.T, admin *pgxpool.Pool) {
	t.Helper()
	for name, value := range map[string]string{"leader_ttl": "2 seconds", "maintain_interval": "200 milliseconds"} {
		_, err := admin.Exec(context.Background(), `SELECT jobq.set_setting($1, $2)`, name, value)
		require.NoError(t, err)
	}
}

// leaderRow is jobq.leader as it is now.
func leaderRow(t *testing.T, admin *pgxpool.Pool) (holder string, epoch int64, live bool) {
	t.Helper()
	var h *string
	require.NoError(t, admin.QueryRow(context.Background(),
		`SELECT holder, epoch, coalesce(lease_expires_at > now(), false) FROM jobq.leader`).Scan(&h, &epoch, &live))
	if h != nil {
		holder = *h
	}
	return holder, epoch, live
}

// dueSlot makes the schedule's current minute due now, so the leader's next maintain enqueues it,
// and returns that slot.
func dueSlot(t *testing.T, admin *pgxpool.Pool, schedule string) time.Time {
	t.Helper()
	var slot time.Time
	require.NoError(t, admin.QueryRow(context.Background(), `
		UPDATE jobq.schedules SET next_slot_at = date_trunc('minute', now()) WHERE name = $1 RETURNING next_slot_at`,
		schedule).Scan(&slot))
	return slot
}

// kill -9 of the leader: the other worker takes the leadership within the TTL (plus one renewal
// period and a margin) with a higher epoch, and maintain goes on: a slot that comes due after the
// kill is enqueued and run.
func TestWorkerLeaderKilledAnotherTakesOver(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	leaderSettings(t, admin)
	workers := map[string]*workerProc{}
	for _, id := range []string{"node-a", "node-b"} {
		workers[id] = startWorker(t, nil, "--database-url", db.URL("worker_runtime"), "--worker-id", id)
		workers[id].WaitStarted()
	}
	_, err := admin.Exec(context.Background(), `SELECT jobq.schedule('minutely-ping', '* * * * *', 'ping')`)
	require.NoError(t, err)

	var holder string
	var epoch int64
	waitUntil(t, waitCeiling, "a leader", func() bool {
		var live bool
		holder, epoch, live = leaderRow(t, admin)
		return live && holder != ""
	})
	leader := workers[holder]
	require.NotNil(t, leader, "the leader is one of the two workers: %q", holder)
	other := "node-a"
	if holder == "node-a" {
		other = "node-b"
	}
	waitUntil(t, waitCeiling, "leader metrics", func() bool { return leader.Metric("jobq_leader") == 1 })
	require.Equal(t, float64(epoch), leader.Metric("jobq_leader_epoch"))
	require.Equal(t, float64(0), workers[other].Metric("jobq_leader"))

	leader.Signal(syscall.SIGKILL)
	leader.Wait(waitCeiling)
	var killedAt time.Time
	require.NoError(t, admin.QueryRow(context.Background(), `SELECT clock_timestamp()`).Scan(&killedAt))
	var newEpoch int64
	waitUntil(t, waitCeiling, other+" leads", func() bool {
		h, e, live := leaderRow(t, admin)
		newEpoch = e
		return live && h == other && e > epoch
	})
	var acquiredAt time.Time
	require.NoError(t, admin.QueryRow(context.Background(), `SELECT acquired_at FROM jobq.leader`).Scan(&acquiredAt))
	takeover := acquiredAt.Sub(killedAt)
	t.Logf("takeover %s after kill -9 of the leader (leader_ttl 2s, renewals every 667ms); epoch %d -> %d",
		takeover.Round(time.Millisecond), epoch, newEpoch)
	// The margin is for scheduling on a loaded machine (issue 29: two cores shared with the rest of
	// make test); without a takeover maintain would stop for good.
	require.Less(t, takeover, 2*time.Second+667*time.Millisecond+5*time.Second, "within the TTL, one renewal period and a margin")
	// The row changes before the new leader's log line is written and read: wait for the line.
	var acquired []map[string]any
	waitUntil(t, waitCeiling, "the new leader logs its leadership", func() bool {
		acquired = workers[other].Lines("leadership acquired")
		return len(acquired) > 0 && acquired[len(acquired)-1]["epoch"] == float64(newEpoch)
	})
	require.Equal(t, float64(newEpoch), acquired[len(acquired)-1]["epoch"])

	// Maintain goes on under the new leader: a slot due after the kill is enqueued, once, and run.
	slot := dueSlot(t, admin, "minutely-ping")
	waitUntil(t, waitCeiling, "the slot's ping succeeded", func() bool {
		return queryInt(t, admin, `
			SELECT count(*) FROM jobq.schedule_runs r JOIN jobq.job_history h ON h.id = r.job_id
			WHERE r.schedule = 'minutely-ping' AND r.slot_at = $1 AND r.created_at > $2 AND h.state = 'succeeded'`,
			slot, killedAt) == 1
	})
	waitUntil(t, waitCeiling, "the new leader counts the slot", func() bool {
		return workers[other].Metric(`jobq_schedule_slots_total{outcome="enqueued"}`) >= 1
	})
	require.Equal(t, 1, queryInt(t, admin, `SELECT count(*) FROM jobq.schedule_runs WHERE slot_at = $1`, slot))
}

// SIGSTOP the leader past its TTL: the other worker takes over with a higher epoch and maintains.
// After SIGCONT the paused worker's next maintain is fenced: it says so, it acts on nothing (no
// slot, no leader change, no work counted) and it goes on as a follower.
func TestWorkerPausedLeaderIsFenced(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	leaderSettings(t, admin)
	a := startWorker(t, nil, "--database-url", db.URL("worker_runtime"), "--worker-id", "paused-a")
	a.WaitStarted()
	waitUntil(t, waitCeiling, "paused-a leads", func() bool {
		h, _, live := leaderRow(t, admin)
		return live && h == "paused-a"
	})
	b := startWorker(t, nil, "--database-url", db.URL("worker_runtime"), "--worker-id", "paused-b")
	b.WaitStarted()
	_, err := admin.Exec(context.Background(), `SELECT jobq.schedule('minutely-ping', '* * * * *', 'ping')`)
	require.NoError(t, err)
	waitUntil(t, waitCeiling, "paused-a maintains", func() bool { return a.Metric(`jobq_maintain_runs_total{result="ok"}`) > 0 })

	a.Signal(syscall.SIGSTOP)
	stopped := time.Now()
	waitUntil(t, waitCeiling, "paused-b leads", func() bool {
		h, e, live := leaderRow(t, admin)
		return live && h == "paused-b" && e == 2
	})
	t.Logf("paused-b took over %s after SIGSTOP of the leader", time.Since(stopped).Round(time.Millisecond))
	slot := dueSlot(t, admin, "minutely-ping")
	waitUntil(t, waitCeiling, "paused-b enqueued the slot", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.schedule_runs WHERE schedule = 'minutely-ping' AND slot_at = $1`, slot) == 1
	})
	leaderChanges := queryInt(t, admin, `SELECT count(*) FROM jobq.audit_log WHERE action = 'leader_changed'`)
	require.Equal(t, 2, leaderChanges)

	a.Signal(syscall.SIGCONT)
	waitUntil(t, waitCeiling, "paused-a's maintain is fenced", func() bool {
		return len(a.Lines("maintain fenced: this worker no longer leads with its epoch; standing down at once")) == 1
	})
	fenced := a.Lines("maintain fenced: this worker no longer leads with its epoch; standing down at once")[0]
	require.Equal(t, float64(1), fenced["epoch"])
	require.Equal(t, float64(2), fenced["currentEpoch"])
	require.Equal(t, "paused-b", fenced["holder"])
	waitUntil(t, waitCeiling, "paused-a's metrics", func() bool { return a.Metric(`jobq_maintain_runs_total{result="fenced"}`) == 1 })
	require.Equal(t, float64(0), a.Metric("jobq_leader"), "paused-a follows")
	require.Equal(t, float64(1), a.Metric("jobq_leader_epoch"))
	okRuns := a.Metric(`jobq_maintain_runs_total{result="ok"}`)

	// It keeps following: while paused-b renews its lease twice (every 667 ms), paused-a, which
	// asks as often, asks too.
	for range 2 {
		var lease time.Time
		require.NoError(t, admin.QueryRow(context.Background(), `SELECT lease_expires_at FROM jobq.leader`).Scan(&lease))
		waitUntil(t, waitCeiling, "paused-b renews its lease", func() bool {
			return queryInt(t, admin, `SELECT count(*) FROM jobq.leader WHERE holder = 'paused-b' AND lease_expires_at > $1`, lease) == 1
		})
	}
	require.Equal(t, leaderChanges, queryInt(t, admin, `SELECT count(*) FROM jobq.audit_log WHERE action = 'leader_changed'`),
		"paused-a did not take the leadership back")
	h, e, live := leaderRow(t, admin)
	require.True(t, live)
	require.Equal(t, "paused-b", h)
	require.Equal(t, int64(2), e)
	require.Equal(t, float64(0), a.Metric(`jobq_schedule_slots_total{outcome="enqueued"}`), "paused-a enqueued nothing")
	require.Equal(t, okRuns, a.Metric(`jobq_maintain_runs_total{result="ok"}`), "paused-a made no maintain after it was fenced")
	require.Equal(t, float64(1), a.Metric(`jobq_maintain_runs_total{result="fenced"}`), "one fenced maintain, then it follows")
	require.Equal(t, 1, queryInt(t, admin, `SELECT count(*) FROM jobq.schedule_runs WHERE slot_at = $1`, slot), "no duplicate slot")
	require.Equal(t, queryInt(t, admin, `SELECT count(*) FROM jobq.schedule_runs`),
		queryInt(t, admin, `SELECT count(*) FROM (SELECT job_key FROM jobq.jobs UNION ALL SELECT job_key FROM jobq.job_history) j
			WHERE job_key LIKE 'schedule:minutely-ping:%'`), "one job per slot")
	for _, l := range a.Lines("maintain") {
		ts, err := time.Parse(time.RFC3339Nano, l["time"].(string))
		require.NoError(t, err)
		require.True(t, ts.Before(stopped), "paused-a logged maintain work after it was paused: %v", l)
	}

	// Both still work as workers, and exit cleanly.
	a.Signal(syscall.SIGTERM)
	require.Equal(t, 0, a.Wait(waitCeiling))
}

// Drain, resume and detach reach a worker process within one heartbeat (500 ms here) and it
// obeys: drained, it claims nothing new (another worker takes the jobs), finishes the job it
// holds and is not ready; resumed, it claims again; detached, it confirms the continuation of the
// jobs it runs and finishes them (no other worker runs them), and it never claims again.
func TestWorkerObeysDrainResumeAndDetach(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	_, err := admin.Exec(context.Background(), `SELECT jobq.set_setting('worker_heartbeat_interval', '500 milliseconds')`)
	require.NoError(t, err)
	const script = `case "$(cat)" in *long*) sleep 3;; esac`
	args := func(id string, concurrency int) []string {
		return []string{"--database-url", db.URL("worker_runtime"), "--worker-id", id, "--concurrency", strconv.Itoa(concurrency),
			"--shutdown-grace", "10s", "--exec-command", script}
	}
	// obey-a runs two jobs at once: while it holds one it has a free slot, so a claim it does not
	// make is one it refused.
	a := startWorker(t, nil, args("obey-a", 2)...)
	a.WaitStarted()
	c := jobq.NewClient(admin)
	long := enqueue(t, c, "exec", map[string]string{"kind": "long"}, jobq.EnqueueOptions{})
	waitUntil(t, waitCeiling, "obey-a runs the long job", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.jobs WHERE id = $1 AND locked_by = 'obey-a'`, long) == 1
	})
	b := startWorker(t, nil, args("obey-b", 4)...)
	b.WaitStarted()

	// Drain.
	_, err = admin.Exec(context.Background(), `SELECT jobq.drain_worker('obey-a')`)
	require.NoError(t, err)
	drained := time.Now()
	waitUntil(t, waitCeiling, "obey-a drains", func() bool {
		return len(a.Lines("worker draining: claiming stopped; held jobs finish")) == 1
	})
	t.Logf("obey-a obeyed the drain %s after it (heartbeat 500 ms)", time.Since(drained).Round(time.Millisecond))
	code, body := a.Get("/readyz")
	require.Equal(t, 503, code)
	require.Contains(t, body, "WORKER.NOT_READY")
	require.Contains(t, body, "draining")
	code, _ = a.Get("/healthz")
	require.Equal(t, 200, code, "a draining worker is alive")
	require.Equal(t, float64(1), a.Metric(`jobq_worker_state{state="draining"}`))
	var shorts []int64
	for i := range 6 {
		shorts = append(shorts, enqueue(t, c, "exec", map[string]int{"i": i}, jobq.EnqueueOptions{}))
	}
	waitUntil(t, waitCeiling, "the short jobs and the held long job finished", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded' AND id = ANY($1)`,
			append(shorts, long)) == len(shorts)+1
	})
	require.Equal(t, len(shorts), queryInt(t, admin,
		`SELECT count(*) FROM jobq.job_history WHERE id = ANY($1) AND locked_by = 'obey-b'`, shorts), "obey-b took every new job")
	require.Equal(t, 1, queryInt(t, admin,
		`SELECT count(*) FROM jobq.job_history WHERE id = $1 AND locked_by = 'obey-a' AND attempt = 1`, long),
		"obey-a finished the job it held")

	// Resume; obey-b leaves, so every new job is obey-a's.
	b.Signal(syscall.SIGTERM)
	require.Equal(t, 0, b.Wait(waitCeiling))
	_, err = admin.Exec(context.Background(), `SELECT jobq.resume_worker('obey-a')`)
	require.NoError(t, err)
	waitUntil(t, waitCeiling, "obey-a resumes", func() bool { return len(a.Lines("worker active: claiming again")) == 1 })
	code, _ = a.Get("/readyz")
	require.Equal(t, 200, code)
	again := enqueue(t, c, "exec", nil, jobq.EnqueueOptions{})
	waitUntil(t, waitCeiling, "obey-a runs again", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.job_history WHERE id = $1 AND locked_by = 'obey-a'`, again) == 1
	})

	// Detach while obey-a runs two long jobs (seed 002 section 7.3): they become CONFIRMING, obey-a
	// hears the detach at once (NOTIFY jobq_control, not its next heartbeat), confirms both within
	// continuation_retry_count x continuation_retry_interval (0.9 s) and finishes them itself:
	// neither runs twice, though obey-c stands ready with free slots.
	victims := []int64{
		enqueue(t, c, "exec", map[string]string{"kind": "long"}, jobq.EnqueueOptions{}),
		enqueue(t, c, "exec", map[string]string{"kind": "long"}, jobq.EnqueueOptions{}),
	}
	waitUntil(t, waitCeiling, "obey-a runs the victims", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.jobs WHERE id = ANY($1) AND locked_by = 'obey-a' AND state = 'running'`, victims) == 2
	})
	cw := startWorker(t, nil, args("obey-c", 4)...)
	cw.WaitStarted()
	detachedAt := time.Now()
	require.Equal(t, 2, queryInt(t, admin, `SELECT jobq.detach_worker('obey-a')`), "two jobs CONFIRMING")
	waitUntil(t, waitCeiling, "obey-a obeys the detach and confirms both jobs", func() bool {
		return len(a.Lines("worker detached: claiming stopped for good; its running jobs are confirmed or stopped (continuation)")) == 1 &&
			len(a.Lines("job continues on the detached worker")) == 2
	})
	t.Logf("obey-a confirmed both jobs %s after the detach (deadline 900ms; heartbeat 500 ms)", time.Since(detachedAt).Round(time.Millisecond))
	require.Equal(t, 1, queryInt(t, admin, `SELECT count(*) FROM jobq.audit_log WHERE action = 'continuation_confirmed'`))
	waitUntil(t, waitCeiling, "the victims succeeded on obey-a, once", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.job_history
			WHERE id = ANY($1) AND state = 'succeeded' AND locked_by = 'obey-a' AND attempt = 1`, victims) == 2
	})
	require.Equal(t, 0, queryInt(t, admin, `SELECT count(*) FROM jobq.job_attempts WHERE job_id = ANY($1)`, victims),
		"no attempt of the victims failed")
	require.Empty(t, cw.Lines("job claimed"), "obey-c never claimed a victim")
	// Its jobs done, obey-a rejoins under a new id without a restart (issue 34, item 5): the old
	// row stays detached, and a resume of the old id changes nothing for the process.
	waitUntil(t, waitCeiling, "obey-a rejoins as obey-a-r1", func() bool {
		return len(a.Lines("worker rejoined under a new id after its detach: claiming again")) == 1
	})
	require.Equal(t, []string{"obey-a detached", "obey-a-r1 active"}, queryTexts(t, admin,
		`SELECT id || ' ' || state FROM jobq.workers WHERE id LIKE 'obey-a%' ORDER BY id`))
	waitUntil(t, waitCeiling, "ready again", func() bool { code, _ := a.Get("/readyz"); return code == 200 })
	_, err = admin.Exec(context.Background(), `SELECT jobq.resume_worker('obey-a')`)
	require.NoError(t, err)
	var later []int64
	for i := range 4 {
		later = append(later, enqueue(t, c, "exec", map[string]int{"later": i}, jobq.EnqueueOptions{}))
	}
	waitUntil(t, waitCeiling, "obey-c and obey-a-r1 ran the later jobs", func() bool {
		return queryInt(t, admin, `SELECT count(*) FROM jobq.job_history WHERE id = ANY($1) AND locked_by IN ('obey-c', 'obey-a-r1')`, later) == len(later)
	})
	a.Signal(syscall.SIGTERM)
	require.Equal(t, 0, a.Wait(waitCeiling))
	// The resumed old row is no process's: the leader marks it lost after worker_timeout.
	require.Equal(t, []string{"obey-a active", "obey-a-r1 stopped"}, queryTexts(t, admin,
		`SELECT id || ' ' || state FROM jobq.workers WHERE id LIKE 'obey-a%' ORDER BY id`))
}
