package main

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// --no-leader and $WORKER_NO_LEADER; --poll-interval defaults to 0, which lets the setting
// poll_interval apply. (t.Setenv: this test cannot run in parallel.)
func TestWorkerFlagsLeaderAndPollInterval(t *testing.T) {
	t.Setenv("WORKER_NO_LEADER", "")
	t.Setenv("WORKER_POLL_INTERVAL", "")
	url := []string{"--database-url", "postgres://worker_runtime@localhost/app"}
	f, err := parseWorkerFlags(url, io.Discard)
	require.NoError(t, err)
	require.False(t, f.noLeader, "every worker may lead by default")
	require.Zero(t, f.pollInterval, "0: the setting poll_interval applies")

	f, err = parseWorkerFlags(append(url, "--no-leader", "--poll-interval", "250ms"), io.Discard)
	require.NoError(t, err)
	require.True(t, f.noLeader)
	require.Equal(t, 250*time.Millisecond, f.pollInterval)

	t.Setenv("WORKER_NO_LEADER", "true")
	f, err = parseWorkerFlags(url, io.Discard)
	require.NoError(t, err)
	require.True(t, f.noLeader, "from the environment")
	f, err = parseWorkerFlags(append(url, "--no-leader=false"), io.Discard)
	require.NoError(t, err)
	require.False(t, f.noLeader, "the flag wins")

	t.Setenv("WORKER_NO_LEADER", "maybe")
	_, err = parseWorkerFlags(url, io.Discard)
	require.ErrorContains(t, err, "WORKER_NO_LEADER")
	t.Setenv("WORKER_NO_LEADER", "")
	_, err = parseWorkerFlags(append(url, "--poll-interval", "-1s"), io.Discard)
	require.ErrorContains(t, err, "--poll-interval")
}
