package runner

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/engine"
)

// The tuner, given only the explicit Config values and a logger, prefers them to the engine's
// settings, falls back to the built-in defaults, and closes the channel it handed out when an
// apply changes anything, and only then.
func TestTuner(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	tu := newTuner(0, 7*time.Second, slog.New(slog.NewJSONHandler(logs, nil)))
	require.Nil(t, tu.current())
	require.Equal(t, tunables{poll: DefaultPollInterval, lease: 7 * time.Second, workerHeartbeat: DefaultWorkerHeartbeatInterval,
		leaderTTL: DefaultLeaderTTL, maintainInterval: DefaultMaintainInterval,
		continuationTries: DefaultContinuationRetryCount, continuationInterval: DefaultContinuationRetryInterval}, tu.tunables())

	settings := engine.Settings{Intervals: map[string]time.Duration{
		"poll_interval": 2 * time.Second, "default_lease": time.Minute, "leader_ttl": 9 * time.Second,
		"continuation_retry_interval": time.Second}, Values: map[string]string{"continuation_retry_count": "5"}}
	first := tu.tuned()
	tu.apply(settings)
	require.NotNil(t, tu.current())
	require.Equal(t, 2*time.Second, tu.tunables().poll, "the setting where Config gives none")
	require.Equal(t, 7*time.Second, tu.tunables().lease, "Config wins over the setting")
	require.Equal(t, 9*time.Second, tu.tunables().leaderTTL)
	require.Equal(t, 5, tu.tunables().continuationTries)
	require.Equal(t, time.Second, tu.tunables().continuationInterval)
	require.Empty(t, logs.lines("settings applied"), "the first apply is the start, not a change")

	tu.apply(settings)
	select {
	case <-first:
		t.Fatal("an apply that changes nothing wakes nobody")
	default:
	}
	settings.Intervals["poll_interval"] = 3 * time.Second
	tu.apply(settings)
	select {
	case <-first:
	default:
		t.Fatal("a change closes the channel")
	}
	require.Equal(t, 3*time.Second, tu.tunables().poll)
	require.Len(t, logs.lines("settings applied"), 1)
	require.NotEqual(t, first, tu.tuned(), "a new channel for the next change")
}
