package runner_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/localpg"
	"github.com/jobqdev/jobq/migrate"
	"github.com/jobqdev/jobq/runner"
)

// metricValue reads one sample of the runner's registry: the metric name with the given label
// pairs ("reason", "privilege"). ok is false when no such sample exists.
func metricValue(t testing.TB, r *runner.Runner, name string, labels ...string) (v float64, ok bool) {
	t.Helper()
	families, err := r.Registry().Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	samples:
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			for i := 0; i+1 < len(labels); i += 2 {
				if got[labels[i]] != labels[i+1] {
					continue samples
				}
			}
			switch {
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue(), true
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue(), true
			}
		}
	}
	return 0, false
}

// waitStreaming waits until r streams wake-ups from its slot. A new logical slot waits for the
// transactions running in the whole cluster to end, so this allows for a busy test cluster.
func waitStreaming(t testing.TB, r *runner.Runner) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if v, _ := metricValue(t, r, "jobq_wakeup_wal_connected"); v == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the WAL wake-up did not stream within 60s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// slotsGoneBeforeDrop makes the end of t wait, after the runner has stopped and before dbtest
// drops the database, until the server has dropped every slot of that database: a walsender
// ends a moment after its connection closes, and DROP DATABASE refuses a database that an
// active slot uses. Call it after dbtest.New and before the runner starts (cleanups run last
// registered first).
func slotsGoneBeforeDrop(t testing.TB, admin *pgxpool.Pool, dbName string) {
	t.Cleanup(func() {
		deadline := time.Now().Add(30 * time.Second)
		for {
			var n int
			err := admin.QueryRow(context.Background(), `SELECT count(*) FROM pg_replication_slots WHERE database = $1`, dbName).Scan(&n)
			if err != nil || n == 0 || time.Now().After(deadline) {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// setWakeup sets the database's setting wakeup as an operator would.
func setWakeup(t testing.TB, admin *pgxpool.Pool, mode string) {
	t.Helper()
	_, err := admin.Exec(context.Background(), `SELECT jobq.set_setting('wakeup', $1)`, mode)
	require.NoError(t, err)
}

// Given wakeup = wal and a runner in WAL mode whose poll is an hour away, when a job is enqueued
// after the runner went idle, then the logical message wakes it, no NOTIFY is sent, and no LISTEN
// connection exists: only the WAL path can have woken it (each pickup is awaited for waitCeiling,
// far below the poll, and its latency logged: issue 29).
func TestWalWakeupPicksUpAJobLongBeforeThePoll(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "wal-ping")
	setWakeup(t, b.admin, "wal")
	slotsGoneBeforeDrop(t, b.admin, b.db.Name)
	cfg := b.config()
	cfg.Wakeup = runner.WakeupWAL
	cfg.PollInterval = time.Hour
	cfg.NoLeader = true
	r, err := runner.New(cfg)
	require.NoError(t, err)
	picked := make(chan time.Time, 4)
	r.HandleFunc("wal-ping", func(ctx context.Context, job *jobq.Job) error {
		picked <- time.Now()
		return nil
	})
	start(t, r)
	waitStreaming(t, r)
	// (A claim of the start or of the stream's first connect that comes late may take the first
	// job: it is no poll either.)

	listen := dbtest.Connect(t, b.db.URL("postgres"))
	_, err = listen.Exec(context.Background(), "LISTEN "+runner.ListenChannel)
	require.NoError(t, err)

	for i := range 3 {
		enqueued := time.Now()
		b.enqueue(t, "wal-ping", nil, jobq.EnqueueOptions{})
		select {
		case at := <-picked:
			t.Logf("job %d picked up %s after its enqueue, by the wake-up (the poll is an hour away)", i, at.Sub(enqueued).Round(time.Millisecond))
		case <-time.After(waitCeiling):
			t.Fatalf("job %d not picked up within %s; the poll is an hour away", i, waitCeiling)
		}
	}

	wctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	n, err := listen.WaitForNotification(wctx)
	require.Error(t, err, "under wakeup wal enqueue sends no NOTIFY, got %+v", n)

	msgs, _ := metricValue(t, r, "jobq_wakeup_messages_total")
	require.GreaterOrEqual(t, msgs, 3.0, "the runner read the wake-up messages")
	require.Zero(t, b.count(t, `SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2`,
		b.db.Name, runner.ListenerApplicationName), "a runner in WAL mode holds no LISTEN connection")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM pg_replication_slots
		WHERE database = $1 AND slot_name LIKE 'jobq\_wakeup\_%' AND temporary AND active AND plugin = 'pgoutput'`, b.db.Name),
		"the runner streams from one active temporary pgoutput slot")
	require.NotEmpty(t, b.logs.lines("waking on WAL"))
	fallback, _ := metricValue(t, r, "jobq_wakeup_fallback")
	require.Zero(t, fallback)
}

// Given a runner in WAL mode streaming from its slot, when the server ends its WAL sender
// (pg_terminate_backend, as a failover or an operator would), then the server drops the slot, the
// runner counts a fallback for reason connection, reconnects with backoff on a new temporary
// slot, and the next enqueue wakes it again long before its poll (an hour away).
func TestWalWakeupReconnectsOnANewSlotWhenTheWalSenderEnds(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "wal-ping")
	setWakeup(t, b.admin, "wal")
	slotsGoneBeforeDrop(t, b.admin, b.db.Name)
	cfg := b.config()
	cfg.Wakeup = runner.WakeupWAL
	cfg.PollInterval = time.Hour
	cfg.NoLeader = true
	r, err := runner.New(cfg)
	require.NoError(t, err)
	picked := make(chan struct{}, 4)
	r.HandleFunc("wal-ping", func(ctx context.Context, job *jobq.Job) error { picked <- struct{}{}; return nil })
	start(t, r)
	waitStreaming(t, r)

	activeSlot := func() (slot string, pid int) {
		err := b.admin.QueryRow(context.Background(), `SELECT slot_name::text, active_pid FROM pg_replication_slots
			WHERE database = $1 AND slot_name LIKE 'jobq\_wakeup\_%' AND active`, b.db.Name).Scan(&slot, &pid)
		if err != nil {
			return "", 0
		}
		return slot, pid
	}
	first, pid := activeSlot()
	require.NotEmpty(t, first)
	var terminated bool
	require.NoError(t, b.admin.QueryRow(context.Background(), `SELECT pg_terminate_backend($1)`, pid).Scan(&terminated))
	require.True(t, terminated)

	waitFor(t, waitCeiling, "the loss counted", func() bool {
		n, _ := metricValue(t, r, "jobq_wakeup_fallbacks_total", "reason", "connection")
		return n >= 1
	})
	var second string
	waitFor(t, 60*time.Second, "streaming again from a new slot", func() bool {
		second, _ = activeSlot()
		v, _ := metricValue(t, r, "jobq_wakeup_wal_connected")
		return second != "" && second != first && v == 1
	})
	require.Zero(t, b.count(t, `SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1`, first), "the server dropped the old slot")
	fallback, _ := metricValue(t, r, "jobq_wakeup_fallback")
	require.Zero(t, fallback, "jobq_wakeup_fallback is 0 again once the runner streams")
	require.NotEmpty(t, b.logs.lines("WAL wake-up unavailable; waking by polling until it is back"))

	b.enqueue(t, "wal-ping", nil, jobq.EnqueueOptions{})
	select {
	case <-picked:
	case <-time.After(waitCeiling):
		t.Fatal("the job was not picked up after the reconnect; the poll is an hour away")
	}
}

// Given a runner in WAL mode whose wake-up role lacks REPLICATION (worker_runtime, which must
// never have it), when it starts, then it says why the WAL wake-up is unavailable, reports the
// fallback in its metrics, and still runs jobs by polling.
func TestWalWakeupFallsBackToPollingWhenTheRoleLacksReplication(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "wal-ping")
	setWakeup(t, b.admin, "wal")
	cfg := b.config()
	cfg.Wakeup = runner.WakeupWAL
	cfg.WakeupURL = b.db.URL("worker_runtime")
	cfg.PollInterval = 200 * time.Millisecond
	cfg.NoLeader = true
	r, err := runner.New(cfg)
	require.NoError(t, err)
	r.HandleFunc("wal-ping", func(ctx context.Context, job *jobq.Job) error { return nil })
	start(t, r)

	id := b.enqueue(t, "wal-ping", nil, jobq.EnqueueOptions{})
	b.waitState(t, id, "succeeded")

	waitFor(t, waitCeiling, "the fallback logged", func() bool {
		return len(b.logs.lines("WAL wake-up unavailable; waking by polling until it is back")) > 0
	})
	line := b.logs.lines("WAL wake-up unavailable; waking by polling until it is back")[0]
	require.Equal(t, "privilege", line["reason"])
	require.Contains(t, line["error"], "must be superuser or replication role")
	require.Contains(t, line["hint"], "jobq_waker")
	v, _ := metricValue(t, r, "jobq_wakeup_fallback")
	require.Equal(t, 1.0, v, "jobq_wakeup_fallback is 1 while the runner only polls")
	n, _ := metricValue(t, r, "jobq_wakeup_fallbacks_total", "reason", "privilege")
	require.GreaterOrEqual(t, n, 1.0)
	connected, _ := metricValue(t, r, "jobq_wakeup_wal_connected")
	require.Zero(t, connected)
	_, hasLag := metricValue(t, r, "jobq_wakeup_slot_lag_bytes")
	require.False(t, hasLag, "no slot, no lag sample")
}

// Given a cluster with wal_level = replica, when a runner in WAL mode starts, then the slot is
// refused, the runner says to set wal_level = logical, and it runs jobs by polling.
func TestWalWakeupFallsBackToPollingWhenWalLevelIsReplica(t *testing.T) {
	t.Parallel()
	ctx := dbtest.Ctx(t)
	cluster, err := localpg.Start(ctx, localpg.Options{Settings: map[string]string{"wal_level": "replica"}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cluster.Remove() })
	dbtest.CreateDatabase(t, cluster, "app")
	admin := dbtest.Connect(t, cluster.URL("postgres", "app"))
	require.NoError(t, migrate.Bootstrap(ctx, admin, migrate.BootstrapOptions{}))
	m, err := migrate.Open(ctx, cluster.URL("jobq_migrator", "app"))
	require.NoError(t, err)
	_, err = m.Up(ctx)
	require.NoError(t, err)
	require.NoError(t, m.Close())
	_, err = admin.Exec(ctx, `SELECT jobq.define_task('wal-ping'), jobq.set_setting('wakeup', 'both')`)
	require.NoError(t, err, "wakeup both is accepted on a replica-level cluster, with a warning")

	pool, err := pgxpool.New(ctx, cluster.URL("worker_runtime", "app"))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	logs := &logBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("runner logs:\n%s", logs.String())
		}
	})
	r, err := runner.New(runner.Config{Pool: pool, Wakeup: runner.WakeupWAL, PollInterval: 200 * time.Millisecond, NoLeader: true,
		Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	require.NoError(t, err)
	done := make(chan struct{}, 1)
	r.HandleFunc("wal-ping", func(ctx context.Context, job *jobq.Job) error { done <- struct{}{}; return nil })
	start(t, r)

	_, err = pool.Exec(ctx, `SELECT jobq.enqueue('wal-ping')`)
	require.NoError(t, err, "enqueue emits its message on a replica-level cluster without failing")
	select {
	case <-done:
	case <-time.After(waitCeiling):
		t.Fatal("the job did not run by polling")
	}
	waitFor(t, waitCeiling, "the fallback logged", func() bool { return len(logs.lines("WAL wake-up unavailable; waking by polling until it is back")) > 0 })
	line := logs.lines("WAL wake-up unavailable; waking by polling until it is back")[0]
	require.Equal(t, "wal_level", line["reason"], "%v", line)
	require.Contains(t, line["hint"], "wal_level = logical")
	n, _ := metricValue(t, r, "jobq_wakeup_fallbacks_total", "reason", "wal_level")
	require.GreaterOrEqual(t, n, 1.0)
	v, _ := metricValue(t, r, "jobq_wakeup_fallback")
	require.Equal(t, 1.0, v)
}

// Given a runner in WAL mode streaming from its slot, when enqueues commit, then the runner
// confirms their WAL within seconds (the slot's confirmed_flush_lsn passes the LSN of the last
// commit), and jobq_wakeup_slot_lag_bytes is exported and never negative.
func TestWalSlotLagIsExportedAndTheRunnerConfirmsPromptly(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "wal-ping")
	setWakeup(t, b.admin, "wal")
	slotsGoneBeforeDrop(t, b.admin, b.db.Name)
	cfg := b.config()
	cfg.Wakeup = runner.WakeupWAL
	cfg.NoLeader = true
	r, err := runner.New(cfg)
	require.NoError(t, err)
	r.HandleFunc("wal-ping", func(ctx context.Context, job *jobq.Job) error { return nil })
	start(t, r)
	waitStreaming(t, r)

	lag, ok := metricValue(t, r, "jobq_wakeup_slot_lag_bytes")
	require.True(t, ok, "jobq_wakeup_slot_lag_bytes is exported while the runner streams")
	require.GreaterOrEqual(t, lag, 0.0)

	for range 50 {
		b.enqueue(t, "wal-ping", map[string]any{"pad": strings.Repeat("x", 2000)}, jobq.EnqueueOptions{})
	}
	var after string
	require.NoError(t, b.admin.QueryRow(context.Background(), `SELECT pg_current_wal_lsn()::text`).Scan(&after))
	waitFor(t, waitCeiling, "the slot confirmed past the last enqueue", func() bool {
		return b.count(t, `SELECT count(*) FROM pg_replication_slots
			WHERE database = $1 AND slot_name LIKE 'jobq\_wakeup\_%' AND confirmed_flush_lsn >= $2::pg_lsn`, b.db.Name, after) == 1
	})
	lag, ok = metricValue(t, r, "jobq_wakeup_slot_lag_bytes")
	require.True(t, ok)
	require.GreaterOrEqual(t, lag, 0.0)
}

// walChildEnv names the database URL a child process of TestWalSlotVanishesWhenTheRunnerIsKilled
// runs its runner on; TestWalChildHoldsASlot does nothing without it.
const walChildEnv = "JOBQ_TEST_WAL_CHILD_DATABASE_URL"

// Given a runner in WAL mode in a child process, streaming from its slot, when the process is
// killed with SIGKILL (no shutdown, no cleanup), then the server drops the slot by itself: an
// abandoned runner leaves no slot to hold WAL back.
func TestWalSlotVanishesWhenTheRunnerIsKilled(t *testing.T) {
	t.Parallel()
	b := setup(t)
	setWakeup(t, b.admin, "wal")
	slotsGoneBeforeDrop(t, b.admin, b.db.Name)

	cmd := exec.Command(os.Args[0], "-test.run=^TestWalChildHoldsASlot$", "-test.count=1", "-test.timeout=3m")
	cmd.Env = append(os.Environ(), walChildEnv+"="+b.db.URL("worker_runtime"))
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-exited })

	streaming := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if slot, ok := strings.CutPrefix(sc.Text(), "streaming from slot "); ok {
				streaming <- slot
			}
		}
	}()
	var slot string
	select {
	case slot = <-streaming:
	case <-exited:
		t.Fatal("the child exited before it streamed")
	case <-time.After(90 * time.Second):
		t.Fatal("the child did not stream within 90s")
	}
	var temporary, active bool
	require.NoError(t, b.admin.QueryRow(context.Background(),
		`SELECT temporary, active FROM pg_replication_slots WHERE slot_name = $1 AND database = $2`, slot, b.db.Name).Scan(&temporary, &active))
	require.True(t, temporary, "the runner's slot is temporary")
	require.True(t, active)

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	select {
	case <-exited:
	case <-time.After(waitCeiling):
		t.Fatal("the child did not die")
	}
	waitFor(t, waitCeiling, "the slot of the killed runner dropped by the server", func() bool {
		return b.count(t, `SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1`, slot) == 0
	})
}

// TestWalChildHoldsASlot is the child process of TestWalSlotVanishesWhenTheRunnerIsKilled: run
// alone it returns at once. As the child it runs a runner in WAL mode, prints the slot it streams
// from, and waits to be killed (two minutes at most).
func TestWalChildHoldsASlot(t *testing.T) {
	url := os.Getenv(walChildEnv)
	if url == "" {
		return
	}
	pool, err := pgxpool.New(context.Background(), url)
	require.NoError(t, err)
	defer pool.Close()
	r, err := runner.New(runner.Config{Pool: pool, Wakeup: runner.WakeupWAL, NoLeader: true,
		Logger: slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	go func() { _ = r.Run(ctx) }()
	waitStreaming(t, r)
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	var slot string
	require.NoError(t, conn.QueryRow(ctx, `SELECT slot_name::text FROM pg_replication_slots
		WHERE database = current_database() AND slot_name LIKE 'jobq\_wakeup\_%' AND active`).Scan(&slot))
	_ = conn.Close(ctx)
	fmt.Printf("streaming from slot %s\n", slot)
	<-ctx.Done()
}

// New refuses an unknown wake-up mode and a WakeupURL that does not parse; the zero value is
// notify.
func TestWakeupConfigIsChecked(t *testing.T) {
	t.Parallel()
	pool, err := pgxpool.New(context.Background(), "postgres://worker_runtime@127.0.0.1:1/none")
	require.NoError(t, err)
	t.Cleanup(pool.Close)

	_, err = runner.New(runner.Config{Pool: pool, Wakeup: "listen"})
	require.ErrorContains(t, err, `Config.Wakeup "listen"`)
	_, err = runner.New(runner.Config{Pool: pool, Wakeup: runner.WakeupWAL, WakeupURL: "postgres://%zz"})
	require.ErrorContains(t, err, "Config.WakeupURL")
	_, err = runner.New(runner.Config{Pool: pool})
	require.NoError(t, err)
	_, err = runner.New(runner.Config{Pool: pool, Wakeup: runner.WakeupWAL})
	require.NoError(t, err, "WakeupURL may be empty: it is derived from the pool")
}
