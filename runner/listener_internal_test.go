package runner

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

// woken reports whether w holds a wake-up within d, taking it.
func woken(w *wakeSignal, d time.Duration) bool {
	select {
	case <-w.C():
		return true
	default:
	}
	select {
	case <-w.C():
		return true
	case <-time.After(d):
		return false
	}
}

func TestWakeSignal(t *testing.T) {
	t.Parallel()

	t.Run("CoalescesWakeUps", func(t *testing.T) {
		t.Parallel()
		w := newWakeSignal([]string{"default"})
		w.notify()
		w.notify() // never blocks
		require.True(t, woken(w, 0))
		require.False(t, woken(w, 10*time.Millisecond), "two notifies before a claim are one wake-up")
	})

	t.Run("WakesOnlyForServedQueues", func(t *testing.T) {
		t.Parallel()
		w := newWakeSignal([]string{"mail", "sms"})
		require.False(t, w.forQueue("billing"))
		require.False(t, woken(w, 10*time.Millisecond))
		require.True(t, w.forQueue("sms"))
		require.True(t, woken(w, 0))
		require.True(t, w.forQueue(""), "an empty queue name wakes every runner")
		require.True(t, woken(w, 0))
	})
}

// The listener, given only a connection source, a wake-up signal, a gauge and a logger,
// LISTENs on its own connection, wakes at once after connecting, wakes for notifications on the
// served queues only, reconnects when its connection is killed, and lets go when ctx ends.
func TestListener(t *testing.T) {
	t.Parallel()
	b := setupUnit(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wake := newWakeSignal([]string{"mail"})
	up := prometheus.NewGauge(prometheus.GaugeOpts{Name: "up"})
	l := newListener(b.pool.Config().ConnConfig, wake, up, b.log)
	done := make(chan struct{})
	go func() { defer close(done); l.run(ctx) }()

	require.True(t, woken(wake, waitCeiling), "a (re)connect wakes the claim loop")
	require.Equal(t, 1.0, value(t, up))
	var pid int
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = $1
		AND application_name = $2 AND usename = 'worker_runtime'`, b.db.Name, ListenerApplicationName).Scan(&pid))

	b.exec(t, `SELECT pg_notify($1, 'billing')`, ListenChannel)
	require.False(t, woken(wake, 300*time.Millisecond), "a notification for another queue wakes nothing")
	b.exec(t, `SELECT pg_notify($1, 'mail')`, ListenChannel)
	require.True(t, woken(wake, waitCeiling))
	b.exec(t, `SELECT pg_notify('elsewhere', 'mail')`)
	require.False(t, woken(wake, 300*time.Millisecond), "another channel wakes nothing")

	b.exec(t, `SELECT pg_terminate_backend($1)`, pid)
	require.True(t, woken(wake, waitCeiling), "the reconnect wakes the claim loop")
	require.NotEmpty(t, b.logs.lines("listener connection lost; reconnecting"))
	eventually(t, waitCeiling, "listening again", func() bool { return value(t, up) == 1 })
	b.exec(t, `SELECT pg_notify($1, 'mail')`, ListenChannel)
	require.True(t, woken(wake, waitCeiling), "notifications reach the new connection")

	cancel()
	select {
	case <-done:
	case <-time.After(waitCeiling):
		t.Fatal("the listener did not return after its context ended")
	}
	require.Equal(t, 0.0, value(t, up))
}
