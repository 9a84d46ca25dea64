package main

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/worker"
)

// --no-leader and $WORKER_NO_LEADER; --poll-interval defaults to 0, which lets the setting
// poll_interval apply; the exec flags are jobq worker's own. (t.Setenv: this test cannot run in
// parallel.)
func TestWorkerFlagsLeaderAndPollInterval(t *testing.T) {
	t.Setenv("WORKER_NO_LEADER", "")
	t.Setenv("WORKER_POLL_INTERVAL", "")
	parse := func(args ...string) (*worker.Flags, error) {
		return worker.ParseFlags(workerProgram(), append([]string{"--database-url", "postgres://worker_runtime@localhost/app"}, args...), io.Discard)
	}
	f, err := parse()
	require.NoError(t, err)
	require.False(t, f.NoLeader, "every worker may lead by default")
	require.Zero(t, f.PollInterval, "0: the setting poll_interval applies")

	f, err = parse("--no-leader", "--poll-interval", "250ms", "--exec-command", "true")
	require.NoError(t, err)
	require.True(t, f.NoLeader)
	require.Equal(t, 250*time.Millisecond, f.PollInterval)

	t.Setenv("WORKER_NO_LEADER", "true")
	f, err = parse()
	require.NoError(t, err)
	require.True(t, f.NoLeader, "from the environment")
	f, err = parse("--no-leader=false")
	require.NoError(t, err)
	require.False(t, f.NoLeader, "the flag wins")

	t.Setenv("WORKER_NO_LEADER", "maybe")
	_, err = parse()
	require.ErrorContains(t, err, "WORKER_NO_LEADER")
	t.Setenv("WORKER_NO_LEADER", "")
	_, err = parse("--poll-interval", "-1s")
	require.ErrorContains(t, err, "--poll-interval")
	t.Setenv("WORKER_DATABASE_URL", "")
	_, err = worker.ParseFlags(workerProgram(), nil, io.Discard)
	require.ErrorContains(t, err, "WORKER_DATABASE_URL")
}
