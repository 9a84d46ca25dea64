package runner_test

import (
	"context"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/operator"
	"github.com/jobqdev/jobq/runner"
)

// NightlyReport is the payload of a scheduled task; SlotAt receives the slot's instant.
type NightlyReport struct {
	Kind   string `json:"kind"`
	SlotAt string `json:"slotAt,omitempty"`
}

var nightlyReport = runner.NewTask[NightlyReport]("build-nightly-report", jobq.EnqueueOptions{})

func (b *testBundle) setSetting(t *testing.T, name, value string) {
	t.Helper()
	_, err := b.admin.Exec(context.Background(), `SELECT jobq.set_setting($1, $2)`, name, value)
	require.NoError(t, err)
}

// scheduleRow is a row of jobq.schedules as the tests read it.
type scheduleRow struct {
	Cron, Timezone, Payload string
	NextSlotAt, UpdatedAt   time.Time
}

func (b *testBundle) schedule(t *testing.T, name string) scheduleRow {
	t.Helper()
	var s scheduleRow
	require.NoError(t, b.admin.QueryRow(context.Background(), `
		SELECT cron, timezone, payload::text, next_slot_at, updated_at FROM jobq.schedules WHERE name = $1`, name).
		Scan(&s.Cron, &s.Timezone, &s.Payload, &s.NextSlotAt, &s.UpdatedAt))
	return s
}

// Schedules declared in code are synced at start, after the tasks they name; a second start with
// the same declarations changes nothing, a changed cron moves the schedule.
func TestRunnerDeclaresSchedulesIdempotently(t *testing.T) {
	t.Parallel()
	b := setup(t)
	newRunner := func(cron string) *runner.Runner {
		cfg := b.config()
		def := nightlyReport.Schedule("nightly-report", cron, NightlyReport{Kind: "sales"})
		def.Timezone = "Asia/Tokyo"
		cfg.Schedules = []jobq.ScheduleDefinition{def}
		r, err := runner.New(cfg)
		require.NoError(t, err)
		runner.Handle(r, nightlyReport, func(ctx context.Context, job *runner.Job[NightlyReport]) error { return nil })
		require.Len(t, r.Schedules(), 1)
		return r
	}

	stop := start(t, newRunner("0 3 * * *"))
	first := b.schedule(t, "nightly-report")
	require.Equal(t, "0 3 * * *", first.Cron)
	require.Equal(t, "Asia/Tokyo", first.Timezone)
	require.JSONEq(t, `{"kind": "sales"}`, first.Payload)
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	require.NoError(t, err)
	require.Equal(t, 3, first.NextSlotAt.In(tokyo).Hour())
	declared := b.logs.lines("schedule declared")
	require.Len(t, declared, 1)
	require.Equal(t, "nightly-report", declared[0]["schedule"])
	require.NoError(t, stop())

	// A second start (another runner of the service, or a restart) changes nothing.
	stop = start(t, newRunner("0 3 * * *"))
	again := b.schedule(t, "nightly-report")
	require.Equal(t, first, again, "updated_at and next_slot_at untouched")
	require.NoError(t, stop())

	// DeclareSchedules may also be called before Run, and is idempotent too.
	r := newRunner("0 3 * * *")
	require.NoError(t, r.DeclareTasks(context.Background()))
	require.NoError(t, r.DeclareSchedules(context.Background()))
	require.Equal(t, first, b.schedule(t, "nightly-report"))

	// A changed cron restarts the schedule at its next slot.
	stop = start(t, newRunner("30 4 * * *"))
	moved := b.schedule(t, "nightly-report")
	require.Equal(t, "30 4 * * *", moved.Cron)
	require.Equal(t, 4, moved.NextSlotAt.In(tokyo).Hour())
	require.True(t, moved.UpdatedAt.After(first.UpdatedAt))
	require.NoError(t, stop())
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM jobq.schedules`))
}

// A schedule the engine refuses stops Run before it claims, with the engine's error naming it.
func TestRunnerRefusesAnInvalidSchedule(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "ping")
	for _, tc := range []struct {
		def  jobq.ScheduleDefinition
		want error
	}{
		{jobq.ScheduleDefinition{Name: "bad-cron", Cron: "* * * *", Task: "ping"}, jobq.ErrInvalidCron},
		{jobq.ScheduleDefinition{Name: "bad-zone", Cron: "@daily", Task: "ping", Timezone: "Nowhere/Else"}, jobq.ErrInvalidTimezone},
		{jobq.ScheduleDefinition{Name: "no-task", Cron: "@daily", Task: "not-declared"}, jobq.ErrUnknownTask},
	} {
		cfg := b.config()
		cfg.Schedules = []jobq.ScheduleDefinition{tc.def}
		r, err := runner.New(cfg)
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = r.Run(ctx)
		cancel()
		require.ErrorIs(t, err, tc.want)
		require.Contains(t, err.Error(), tc.def.Name)
	}
	require.Zero(t, b.count(t, `SELECT count(*) FROM jobq.schedules`))
	require.Zero(t, b.count(t, `SELECT count(*) FROM jobq.workers`), "a refused runner never registered")

	_, err := runner.New(runner.Config{Pool: b.pool, Schedules: []jobq.ScheduleDefinition{
		{Name: "twice", Cron: "@daily", Task: "ping"}, {Name: "twice", Cron: "@hourly", Task: "ping"}}})
	require.ErrorContains(t, err, `schedule "twice" twice`)
	_, err = runner.New(runner.Config{Pool: b.pool, Schedules: []jobq.ScheduleDefinition{{Name: "no-cron", Task: "ping"}}})
	require.Error(t, err)
}

// A runner registers at start (node, pid, queues, concurrency, version), heartbeats its row, and
// marks it stopped when Run returns.
func TestRunnerRegistersHeartbeatsAndDeregisters(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.setSetting(t, "worker_heartbeat_interval", "100 milliseconds")
	cfg := b.config()
	cfg.WorkerID = "registered-runner"
	cfg.Queues = []string{"mail", "default"}
	cfg.Concurrency = 3
	cfg.Version = "v1.2.3"
	r, err := runner.New(cfg)
	require.NoError(t, err)
	stop := start(t, r)
	host, _ := os.Hostname()
	var node, version, state string
	var pid, concurrency int
	var queues []string
	var started, beat time.Time
	require.NoError(t, b.admin.QueryRow(context.Background(), `
		SELECT node, pid, queues, concurrency, version, state, started_at, heartbeat_at FROM jobq.workers WHERE id = $1`,
		"registered-runner").Scan(&node, &pid, &queues, &concurrency, &version, &state, &started, &beat))
	require.Equal(t, host, node)
	require.Equal(t, os.Getpid(), pid)
	require.Equal(t, []string{"mail", "default"}, queues)
	require.Equal(t, 3, concurrency)
	require.Equal(t, "v1.2.3", version)
	require.Equal(t, "active", state)
	waitFor(t, waitCeiling, "a worker heartbeat", func() bool {
		return b.count(t, `SELECT count(*) FROM jobq.workers WHERE id = $1 AND heartbeat_at > $2`, "registered-runner", beat) == 1
	})

	require.NoError(t, stop())
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM jobq.workers WHERE id = $1 AND state = 'stopped'`, "registered-runner"))
	require.Len(t, b.logs.lines("worker deregistered"), 1)
}

// One runner leads: it calls maintain every maintain_interval, which enqueues a due cron slot,
// and shows it in its metrics. A runner with NoLeader never leads. When the leader stops, it
// hands the leadership over at once (deregister_worker), with a higher epoch.
func TestRunnerLeaderMaintainsAndHandsOver(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.setSetting(t, "leader_ttl", "15 seconds")
	b.setSetting(t, "maintain_interval", "100 milliseconds")
	ticks := make(chan string, 100)
	newRunner := func(id string, noLeader bool) *runner.Runner {
		cfg := b.config()
		cfg.WorkerID = id
		cfg.NoLeader = noLeader
		cfg.Schedules = []jobq.ScheduleDefinition{nightlyReport.Schedule("every-minute", "* * * * *", NightlyReport{Kind: "tick"})}
		r, err := runner.New(cfg)
		require.NoError(t, err)
		runner.Handle(r, nightlyReport, func(ctx context.Context, job *runner.Job[NightlyReport]) error {
			ticks <- job.Args.SlotAt
			return nil
		})
		return r
	}
	follower := newRunner("runner-follower", true)
	fsrv := httptest.NewServer(follower.HTTPHandler())
	t.Cleanup(fsrv.Close)
	start(t, follower)
	leader := newRunner("runner-leader", false)
	lsrv := httptest.NewServer(leader.HTTPHandler())
	t.Cleanup(lsrv.Close)
	stopLeader := start(t, leader)

	waitFor(t, waitCeiling, "runner-leader leads", func() bool {
		return b.count(t, `SELECT count(*) FROM jobq.leader WHERE holder = 'runner-leader' AND lease_expires_at > now()`) == 1
	})
	// Make the schedule's slot due: the leader's next maintain enqueues it, and a runner runs it.
	_, err := b.admin.Exec(context.Background(), `UPDATE jobq.schedules SET next_slot_at = date_trunc('minute', now())`)
	require.NoError(t, err)
	var slot string
	select {
	case slot = <-ticks:
	case <-time.After(waitCeiling):
		t.Fatal("the due slot was not enqueued and run")
	}
	_, err = time.Parse(time.RFC3339, slot)
	require.NoError(t, err, "the payload carries the slot: %q", slot)
	waitFor(t, waitCeiling, "leader metrics", func() bool {
		m := scrape(t, lsrv)
		return strings.Contains(m, "jobq_leader 1") && strings.Contains(m, `jobq_schedule_slots_total{outcome="enqueued"} 1`)
	})
	m := scrape(t, lsrv)
	require.Contains(t, m, "jobq_leader_epoch 1")
	require.Regexp(t, `jobq_maintain_runs_total\{result="ok"\} [1-9]`, m)
	require.Contains(t, m, `jobq_worker_state{state="active"} 1`)
	require.Contains(t, m, `jobq_worker_state{state="draining"} 0`)
	fm := scrape(t, fsrv)
	require.Contains(t, fm, "jobq_leader 0")
	require.Contains(t, fm, `jobq_maintain_runs_total{result="ok"} 0`)
	require.NotEmpty(t, b.logs.lines("leadership acquired"))
	for _, l := range b.logs.lines("leadership acquired") {
		require.Equal(t, "runner-leader", l["workerId"], "the NoLeader runner never leads")
	}
	enqueued := 0
	for _, l := range b.logs.lines("maintain") {
		n := int(l["slotsEnqueued"].(float64))
		enqueued += n
		if n == 0 {
			require.Equal(t, "DEBUG", l["level"], "a maintain that did nothing logs at debug: %v", l)
		} else {
			require.Equal(t, "INFO", l["level"], "a maintain that did something logs at info: %v", l)
		}
	}
	require.Equal(t, 1, enqueued)

	// A second leader candidate takes over as soon as the leader stops, without waiting for the
	// TTL: at its next renewal (every 5 s), before the lease the leader held when it stopped
	// (renewed every 5 s to 15 s ahead, so at least 10 s away) would have lapsed. Compared on the
	// database's clock, not with a deadline that a loaded machine could miss.
	other := newRunner("runner-next", false)
	start(t, other)
	var leaseAtStop time.Time
	require.NoError(t, b.admin.QueryRow(context.Background(),
		`SELECT lease_expires_at FROM jobq.leader WHERE holder = 'runner-leader'`).Scan(&leaseAtStop))
	require.NoError(t, stopLeader())
	waitFor(t, waitCeiling, "runner-next leads", func() bool {
		return b.count(t, `SELECT count(*) FROM jobq.leader WHERE holder = 'runner-next' AND epoch = 2`) == 1
	})
	var acquired time.Time
	require.NoError(t, b.admin.QueryRow(context.Background(), `SELECT acquired_at FROM jobq.leader`).Scan(&acquired))
	t.Logf("runner-next took over %s before the stopped leader's lease would have lapsed (leader_ttl 15s, renewals every 5s)",
		leaseAtStop.Sub(acquired).Round(time.Millisecond))
	require.True(t, acquired.Before(leaseAtStop), "runner-next took over before the stopped leader's lease lapsed: the stop handed it over")
	require.NotEmpty(t, b.logs.lines("leadership given up: the runner is stopping"))
}

// Settings are applied without a restart: a poll interval changed with jobq.set_setting changes
// how soon a job that no wake-up announces is claimed.
//
// The runner has no wake-up path at all, so that only a poll can claim the job and the test
// decides on every run (issue 29: with LISTEN, the listener's first connection and the doorbell
// answers each wake the claim loop once, whenever they come; on some runs one came after the job
// was due and claimed it, and the test could not tell polling apart). Its wake-up is WAL through a
// role without REPLICATION, which never streams: it polls, and nothing else wakes its claim loop
// but a handler's return, which claims only with Once, and a rescue or a state change, neither of
// which happens here (NoLeader; nobody drains it).
func TestRunnerAppliesSettingChangesWithoutRestart(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "quiet")
	b.setSetting(t, "worker_heartbeat_interval", "200 milliseconds")
	b.setSetting(t, "poll_interval", "1 hour")
	pollOnly := func(cfg runner.Config) runner.Config {
		cfg.Wakeup = runner.WakeupWAL
		cfg.WakeupURL = b.db.URL("worker_runtime") // lacks REPLICATION: the WAL wake-up never starts
		cfg.NoLeader = true
		cfg.Concurrency = 4 // a claim of the one job it finds is short: it does not claim again by itself
		return cfg
	}
	r, err := runner.New(pollOnly(b.config()))
	require.NoError(t, err)
	claimedAt := make(chan time.Time, 10)
	r.HandleFunc("quiet", func(ctx context.Context, job *jobq.Job) error {
		claimedAt <- job.ClaimedAt
		return nil
	})
	// Each wait is for an event, under waitCeiling: far below the hour the old poll interval takes.

	// A job due before the start is taken by the start-up claim; from then on only a poll claims.
	first := b.enqueue(t, "quiet", nil, jobq.EnqueueOptions{})
	start(t, r)
	require.Equal(t, time.Hour, r.PollInterval())
	select {
	case <-claimedAt:
	case <-time.After(waitCeiling):
		t.Fatal("the start-up claim did not take the job due before the start")
	}
	b.waitState(t, first, "succeeded")

	// A job due now that no wake-up announces: with a poll every hour, it waits.
	waiting := b.enqueue(t, "quiet", nil, jobq.EnqueueOptions{})
	require.Equal(t, "queued", b.job(t, waiting).State)

	b.setSetting(t, "poll_interval", "100 milliseconds")
	changed := time.Now()
	select {
	case <-claimedAt:
	case <-time.After(waitCeiling):
		t.Fatal("the poll interval change was not applied: the job waits for the hourly poll")
	}
	t.Logf("claimed %s after the setting changed (worker heartbeat 200 ms, new poll interval 100 ms)",
		time.Since(changed).Round(time.Millisecond))
	require.Equal(t, 100*time.Millisecond, r.PollInterval())
	applied := b.logs.lines("settings applied")
	require.NotEmpty(t, applied)
	require.Equal(t, float64(100), applied[len(applied)-1]["pollIntervalMs"])

	// From now on a job that no wake-up announces is claimed by a poll soon after it is due: far
	// sooner than the hour of the old interval (about one poll; logged, not asserted, as a loaded
	// machine may take longer).
	id := b.enqueue(t, "quiet", nil, jobq.EnqueueOptions{Delay: 200 * time.Millisecond})
	var at time.Time
	select {
	case at = <-claimedAt:
	case <-time.After(waitCeiling):
		t.Fatal("not claimed")
	}
	var runAt time.Time
	require.NoError(t, b.admin.QueryRow(context.Background(),
		`SELECT run_at FROM jobq.job_history WHERE id = $1 UNION ALL SELECT run_at FROM jobq.jobs WHERE id = $1`, id).Scan(&runAt))
	lag := at.Sub(runAt)
	t.Logf("pickup lag of an un-announced job with a 100 ms poll: %s", lag.Round(time.Millisecond))
	require.Less(t, lag, waitCeiling)

	// An explicit Config value wins over the setting.
	cfg := b.config()
	cfg.PollInterval = 50 * time.Millisecond
	fixed, err := runner.New(cfg)
	require.NoError(t, err)
	start(t, fixed)
	require.Equal(t, 50*time.Millisecond, fixed.PollInterval())
}

// A drained runner stops claiming at its next heartbeat, is not ready, lets its held job finish,
// and claims again once resumed.
func TestRunnerObeysDrainAndResume(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "work")
	b.setSetting(t, "worker_heartbeat_interval", "100 milliseconds")
	cfg := b.config()
	cfg.WorkerID = "drained"
	r, err := runner.New(cfg)
	require.NoError(t, err)
	release := make(chan struct{})
	r.HandleFunc("work", func(ctx context.Context, job *jobq.Job) error {
		if strings.Contains(string(job.Payload), "hold") {
			<-release
		}
		return nil
	})
	start(t, r)
	held := b.enqueue(t, "work", map[string]string{"mode": "hold"}, jobq.EnqueueOptions{})
	b.waitState(t, held, "running")

	op := operator.New(b.db.Pool(t, "jobq_operator", 1))
	require.NoError(t, op.DrainWorker(context.Background(), "drained"))
	waitFor(t, waitCeiling, "not ready while draining", func() bool {
		err := r.Ready(context.Background())
		return err != nil && strings.Contains(err.Error(), "draining")
	})
	require.ErrorIs(t, r.Ready(context.Background()), runner.ErrNotReady)
	waiting := b.enqueue(t, "work", nil, jobq.EnqueueOptions{})
	time.Sleep(500 * time.Millisecond)
	require.Equal(t, "queued", b.job(t, waiting).State, "a draining runner claims nothing")
	close(release)
	b.waitState(t, held, "succeeded")
	require.Equal(t, "queued", b.job(t, waiting).State)
	require.NotEmpty(t, b.logs.lines("worker draining: claiming stopped; held jobs finish"))

	require.NoError(t, op.ResumeWorker(context.Background(), "drained"))
	b.waitState(t, waiting, "succeeded")
	require.NoError(t, r.Ready(context.Background()))
	require.NotEmpty(t, b.logs.lines("worker active: claiming again"))
}
