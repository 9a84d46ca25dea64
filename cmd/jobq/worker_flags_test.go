package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/cliconf"
	"github.com/jobqdev/jobq/worker"
)

// clearWorkerEnv empties the worker's variables, new and old names, that the sandbox or a test
// may have set (an empty variable counts as unset).
func clearWorkerEnv(t *testing.T, names ...string) {
	for _, n := range names {
		t.Setenv("JOBQ_WORKER_"+n, "")
		t.Setenv("WORKER_"+n, "")
	}
}

// --no-leader and $JOBQ_WORKER_NO_LEADER; --poll-interval defaults to 0, which lets the setting
// poll_interval apply; the exec flags are jobq worker's own. (t.Setenv: this test cannot run in
// parallel.)
func TestWorkerFlagsLeaderAndPollInterval(t *testing.T) {
	clearWorkerEnv(t, "NO_LEADER", "POLL_INTERVAL", "DATABASE_URL")
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

	t.Setenv("JOBQ_WORKER_NO_LEADER", "true")
	f, err = parse()
	require.NoError(t, err)
	require.True(t, f.NoLeader, "from the environment")
	f, err = parse("--no-leader=false")
	require.NoError(t, err)
	require.False(t, f.NoLeader, "the flag wins")

	t.Setenv("JOBQ_WORKER_NO_LEADER", "maybe")
	_, err = parse()
	require.ErrorContains(t, err, "JOBQ_WORKER_NO_LEADER")
	t.Setenv("JOBQ_WORKER_NO_LEADER", "")
	_, err = parse("--poll-interval", "-1s")
	require.ErrorContains(t, err, "--poll-interval")
	_, err = worker.ParseFlags(workerProgram(), nil, io.Discard)
	require.ErrorContains(t, err, "needs --database-url or JOBQ_WORKER_DATABASE_URL")
}

// --wakeup and $JOBQ_WORKER_WAKEUP choose notify (the default) or wal; --wakeup-database-url
// and $JOBQ_WORKER_WAKEUP_DATABASE_URL name the replication connection; anything but notify or
// wal is a usage error that says what is accepted. (t.Setenv: this test cannot run in parallel.)
func TestWorkerFlagsWakeup(t *testing.T) {
	clearWorkerEnv(t, "WAKEUP", "WAKEUP_DATABASE_URL")
	t.Setenv("WAKEUP_DATABASE_URL", "")
	t.Setenv("JOBQ_WAKEUP_DATABASE_URL", "")
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

	t.Setenv("JOBQ_WORKER_WAKEUP", "wal")
	t.Setenv("JOBQ_WORKER_WAKEUP_DATABASE_URL", "postgres://jobq_waker@env/app")
	f, err = parse()
	require.NoError(t, err)
	require.Equal(t, "wal", f.Wakeup, "from the environment")
	require.Equal(t, "postgres://jobq_waker@env/app", f.WakeupDatabaseURL, "from the environment")
	f, err = parse("--wakeup", "notify")
	require.NoError(t, err)
	require.Equal(t, "notify", f.Wakeup, "the flag wins")

	_, err = parse("--wakeup", "listen")
	require.EqualError(t, err, `--wakeup (or JOBQ_WORKER_WAKEUP) must be notify or wal, got "listen"`)
	require.ErrorAs(t, err, new(worker.UsageError))
	t.Setenv("JOBQ_WORKER_WAKEUP", "WAL")
	_, err = parse()
	require.ErrorContains(t, err, `JOBQ_WORKER_WAKEUP) must be notify or wal, got "WAL"`)
}

// Every worker flag has its JOBQ_WORKER_ variable; the names of the last release (WORKER_*,
// SENTRY_DSN, WAKEUP_DATABASE_URL, JOBQ_SENTRY_DSN, ...) are still read, each with one deprecation
// warning naming its replacement, and lose to the JOBQ_WORKER_ variable. JOBQ_DATABASE_URL (the
// operator commands' URL) is never the worker's. (t.Setenv: not parallel.)
func TestWorkerFlagsJOBQPrefix(t *testing.T) {
	clearWorkerEnv(t, "DATABASE_URL", "CONCURRENCY", "ONCE", "SENTRY_DSN")
	t.Setenv("WORKER_DATABASE_URL", "postgres://worker_runtime@old/app")
	t.Setenv("JOBQ_DATABASE_URL", "postgres://operator@db/app")
	t.Setenv("WORKER_CONCURRENCY", "3")
	t.Setenv("SENTRY_DSN", "https://key@sentry.example/1")
	t.Setenv("JOBQ_SENTRY_DSN", "")
	t.Setenv("JOBQ_WORKER_ONCE", "true")
	var warnings strings.Builder
	f, err := worker.ParseFlags(workerProgram(), nil, &warnings)
	require.NoError(t, err)
	require.Equal(t, "postgres://worker_runtime@old/app", f.DatabaseURL, "WORKER_DATABASE_URL keeps working this release; JOBQ_DATABASE_URL is not read")
	require.Equal(t, 3, f.Concurrency)
	require.Equal(t, "https://key@sentry.example/1", f.SentryDSN)
	require.True(t, f.Once)
	require.Equal(t, strings.Join([]string{
		"jobq worker: warning: WORKER_DATABASE_URL is deprecated and will not be read after this release: use JOBQ_WORKER_DATABASE_URL (docs/configuration.md)",
		"jobq worker: warning: WORKER_CONCURRENCY is deprecated and will not be read after this release: use JOBQ_WORKER_CONCURRENCY (docs/configuration.md)",
		"jobq worker: warning: SENTRY_DSN is deprecated and will not be read after this release: use JOBQ_WORKER_SENTRY_DSN (docs/configuration.md)",
	}, "\n")+"\n", warnings.String(), "one warning per old name read, naming its replacement")

	t.Setenv("JOBQ_WORKER_DATABASE_URL", "postgres://worker_runtime@new/app")
	t.Setenv("JOBQ_WORKER_CONCURRENCY", "7")
	warnings.Reset()
	f, err = worker.ParseFlags(workerProgram(), nil, &warnings)
	require.NoError(t, err)
	require.Equal(t, "postgres://worker_runtime@new/app", f.DatabaseURL, "JOBQ_ wins")
	require.Equal(t, 7, f.Concurrency, "JOBQ_ wins")
	require.NotContains(t, warnings.String(), "WORKER_CONCURRENCY", "an old name that is not read is not warned about")
	f, err = worker.ParseFlags(workerProgram(), []string{"--concurrency", "2", "--once=false"}, io.Discard)
	require.NoError(t, err)
	require.Equal(t, 2, f.Concurrency, "the flag wins")
	require.False(t, f.Once, "the flag wins")

	t.Setenv("JOBQ_WORKER_CONCURRENCY", "many")
	_, err = worker.ParseFlags(workerProgram(), nil, io.Discard)
	require.ErrorContains(t, err, `JOBQ_WORKER_CONCURRENCY="many"`)
	t.Setenv("JOBQ_WORKER_CONCURRENCY", "")
	t.Setenv("WORKER_CONCURRENCY", "many")
	_, err = worker.ParseFlags(workerProgram(), nil, io.Discard)
	require.ErrorContains(t, err, "--concurrency", "a bad value under an old name is a usage error too")
}

// A bad flag is kong's one-line error and a hint, exit 2: not the whole usage (issue 32: jobq
// worker printed 67 lines).
func TestWorkerBadFlagIsShort(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI(t, "worker", "--concurency", "3")
	require.Equal(t, 2, code)
	require.Empty(t, stdout)
	require.Equal(t, "jobq: unknown flag --concurency, did you mean \"--concurrency\"?\nRun \"jobq help worker\" for its arguments and flags.\n", stderr)
}

// The exec task's commands get no variable that can hold a secret of the tree: every variable, new
// or old name, of a flag tagged secret (database URLs, the Sentry DSN) is left out of execEnv, but
// DATABASE_URL: the application's own variable by convention (a command such as ./manage.py
// run-job reads it), which jobq only fell back on. (t.Setenv: not parallel.)
func TestExecEnvLeavesOutEverySecretVariable(t *testing.T) {
	k, err := newParser(&cli{}, nil, nil)
	require.NoError(t, err)
	var secrets []string
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, f := range n.Flags {
			if f.Tag.Has("secret") {
				secrets = append(secrets, f.Envs...)
				secrets = append(secrets, cliconf.OldEnvs(f)...)
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(k.Model.Node)
	require.Contains(t, secrets, "JOBQ_WORKER_DATABASE_URL")
	for _, name := range secrets {
		t.Setenv(name, "postgres://someone:pw@db/app")
	}
	t.Setenv("JOBQ_EXEC_TEST_HARMLESS", "kept")
	t.Setenv("DATABASE_URL", "postgres://app@db/app")
	env := map[string]string{}
	for _, kv := range execEnv() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	require.Equal(t, "kept", env["JOBQ_EXEC_TEST_HARMLESS"])
	require.Equal(t, "postgres://app@db/app", env["DATABASE_URL"], "the application's own URL stays")
	for _, name := range secrets {
		if name != "DATABASE_URL" {
			require.NotContains(t, env, name, "%s reaches the exec task's commands", name)
		}
	}
}
