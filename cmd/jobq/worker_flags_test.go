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

// --wakeup and $WORKER_WAKEUP choose notify (the default) or wal; --wakeup-database-url and
// $WAKEUP_DATABASE_URL name the replication connection; anything but notify or wal is a usage
// error that says what is accepted. (t.Setenv: this test cannot run in parallel.)
func TestWorkerFlagsWakeup(t *testing.T) {
	t.Setenv("WORKER_WAKEUP", "")
	t.Setenv("WAKEUP_DATABASE_URL", "")
	parse := func(args ...string) (*worker.Flags, error) {
		return worker.ParseFlags(workerProgram(), append([]string{"--database-url", "postgres://worker_runtime@localhost/app"}, args...), io.Discard)
	}
	f, err := parse()
	require.NoError(t, err)
	require.Equal(t, "notify", f.Wakeup, "LISTEN/NOTIFY by default")
	require.Empty(t, f.WakeupDatabaseURL, "empty: derived from --database-url with user jobq_waker")

	f, err = parse("--wakeup", "wal", "--wakeup-database-url", "postgres://jobq_waker@db/app")
	require.NoError(t, err)
	require.Equal(t, "wal", f.Wakeup)
	require.Equal(t, "postgres://jobq_waker@db/app", f.WakeupDatabaseURL)

	t.Setenv("WORKER_WAKEUP", "wal")
	t.Setenv("WAKEUP_DATABASE_URL", "postgres://jobq_waker@env/app")
	f, err = parse()
	require.NoError(t, err)
	require.Equal(t, "wal", f.Wakeup, "from the environment")
	require.Equal(t, "postgres://jobq_waker@env/app", f.WakeupDatabaseURL, "from the environment")
	f, err = parse("--wakeup", "notify")
	require.NoError(t, err)
	require.Equal(t, "notify", f.Wakeup, "the flag wins")

	_, err = parse("--wakeup", "listen")
	require.EqualError(t, err, `--wakeup (or WORKER_WAKEUP) must be notify or wal, got "listen"`)
	require.ErrorAs(t, err, new(worker.UsageError))
	t.Setenv("WORKER_WAKEUP", "WAL")
	_, err = parse()
	require.ErrorContains(t, err, `WORKER_WAKEUP) must be notify or wal, got "WAL"`)
}

// Every worker variable V has the JOBQ_ equivalent JOBQ_V: the flag wins, then JOBQ_V, then V;
// JOBQ_DATABASE_URL (the operator commands' URL) is never the worker's. (t.Setenv: not parallel.)
func TestWorkerFlagsJOBQPrefix(t *testing.T) {
	t.Setenv("WORKER_DATABASE_URL", "postgres://worker_runtime@old/app")
	t.Setenv("JOBQ_WORKER_DATABASE_URL", "")
	t.Setenv("JOBQ_DATABASE_URL", "postgres://operator@db/app")
	t.Setenv("WORKER_CONCURRENCY", "3")
	t.Setenv("JOBQ_WORKER_CONCURRENCY", "")
	t.Setenv("JOBQ_WORKER_ONCE", "true")
	f, err := worker.ParseFlags(workerProgram(), nil, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "postgres://worker_runtime@old/app", f.DatabaseURL, "WORKER_DATABASE_URL keeps working; JOBQ_DATABASE_URL is not read")
	require.Equal(t, 3, f.Concurrency)
	require.True(t, f.Once)

	t.Setenv("JOBQ_WORKER_DATABASE_URL", "postgres://worker_runtime@new/app")
	t.Setenv("JOBQ_WORKER_CONCURRENCY", "7")
	f, err = worker.ParseFlags(workerProgram(), nil, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "postgres://worker_runtime@new/app", f.DatabaseURL, "JOBQ_ wins")
	require.Equal(t, 7, f.Concurrency, "JOBQ_ wins")
	f, err = worker.ParseFlags(workerProgram(), []string{"--concurrency", "2", "--once=false"}, io.Discard)
	require.NoError(t, err)
	require.Equal(t, 2, f.Concurrency, "the flag wins")
	require.False(t, f.Once, "the flag wins")

	t.Setenv("JOBQ_WORKER_CONCURRENCY", "many")
	_, err = worker.ParseFlags(workerProgram(), nil, io.Discard)
	require.ErrorContains(t, err, `JOBQ_WORKER_CONCURRENCY="many"`)
}
