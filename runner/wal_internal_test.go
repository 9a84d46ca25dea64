package runner

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
)

// newWakeupMetrics returns WAL wake-up metrics of a registry of their own.
func newWakeupMetrics(t *testing.T, b *unitBundle) wakeupMetrics {
	t.Helper()
	return newMetrics(metricsSource{held: func() int { return 0 }, ahead: func() int { return 0 }, lag: b.client,
		db: b.pool, log: b.log}).wakeup()
}

// waitNoSlots makes the end of t wait, before dbtest drops the database, until the server has
// dropped the temporary slots of that database (a walsender ends a moment after its connection).
// Call it right after setupUnit: cleanups run last registered first.
func waitNoSlots(t *testing.T, b *unitBundle) {
	t.Cleanup(func() {
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) {
			var n int
			err := b.admin.QueryRow(context.Background(), `SELECT count(*) FROM pg_replication_slots WHERE database = $1`,
				b.db.Name).Scan(&n)
			if err != nil || n == 0 {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// The WAL listener, given only the replication connection's settings, a worker id, the wake-up
// signal, a settings reader, its metrics and a logger, streams from a temporary slot of its own
// and wakes for the logical messages of the served queues only.
func TestWALListenerWakesOnServedQueues(t *testing.T) {
	t.Parallel()
	b := setupUnit(t)
	waitNoSlots(t, b)
	b.exec(t, `SELECT jobq.set_setting('wakeup', 'wal')`)
	ctx := context.Background()
	for _, task := range []string{"wal-mail", "wal-billing"} {
		require.NoError(t, jobq.NewClient(b.admin).DefineTask(ctx, jobq.TaskDefinition{Name: task}))
	}
	cfg, err := wakerConnConfig(b.pool, "")
	require.NoError(t, err)
	wake := newWakeSignal([]string{"mail"})
	m := newWakeupMetrics(t, b)
	w := newWALListener(cfg, "unit/WAL worker", wake, b.pool, func() time.Duration { return time.Minute }, m, b.log)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); w.run(runCtx) }()
	defer func() { cancel(); <-done }()

	eventually(t, 60*time.Second, "streaming", func() bool { return value(t, m.connected) == 1 })
	require.True(t, woken(wake, waitCeiling), "a (re)connect wakes the claim loop")
	slot := m.slot.Load()
	require.NotNil(t, slot)
	require.Regexp(t, `^jobq_wakeup_unit_wal_worker_[0-9a-f]{8}$`, *slot)
	var temporary bool
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT temporary FROM pg_replication_slots WHERE slot_name = $1`, *slot).Scan(&temporary))
	require.True(t, temporary)
	require.Empty(t, b.logs.lines("the setting wakeup is wal: enqueue emits no wake-up message, so this runner wakes by polling"))

	_, err = b.client.Enqueue(ctx, "wal-billing", nil, jobq.EnqueueOptions{Queue: "billing"})
	require.NoError(t, err)
	eventually(t, waitCeiling, "the billing message read", func() bool { return value(t, m.messages) >= 1 })
	require.False(t, woken(wake, 300*time.Millisecond), "a message for another queue wakes nothing")

	_, err = b.client.Enqueue(ctx, "wal-mail", nil, jobq.EnqueueOptions{Queue: "mail"})
	require.NoError(t, err)
	require.True(t, woken(wake, waitCeiling), "a message for a served queue wakes the claim loop")
	require.True(t, woken(wake, waitCeiling), "and the late wake follows")

	cancel()
	<-done
	require.Equal(t, 0.0, value(t, m.connected))
	require.Nil(t, m.slot.Load())
}

// Connected as a role without REPLICATION, the WAL listener falls back to polling: it sets the
// fallback gauge, counts the reason privilege and logs a hint.
func TestWALListenerFallsBackWithoutReplication(t *testing.T) {
	t.Parallel()
	b := setupUnit(t)
	cfg, err := wakerConnConfig(b.pool, b.db.URL("worker_runtime"))
	require.NoError(t, err)
	m := newWakeupMetrics(t, b)
	w := newWALListener(cfg, "unit", newWakeSignal(nil), b.pool, func() time.Duration { return time.Second }, m, b.log)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.run(ctx) }()
	defer func() { cancel(); <-done }()

	eventually(t, waitCeiling, "the fallback counted", func() bool {
		return value(t, m.fallbacks.WithLabelValues(fallbackPrivilege)) >= 1
	})
	require.Equal(t, 1.0, value(t, m.fallback))
	require.Equal(t, 0.0, value(t, m.connected))
	logged := b.logs.lines("WAL wake-up unavailable; waking by polling until it is back")
	require.NotEmpty(t, logged)
	require.Equal(t, fallbackPrivilege, logged[0]["reason"])
	require.EqualValues(t, 1000, logged[0]["pollIntervalMs"])
}
