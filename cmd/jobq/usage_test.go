package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Usage errors exit 2 and say what is wrong, before any connection is attempted.
func TestCLIUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"NoCommand", nil, "usage: jobq <command>"},
		{"UnknownCommand", []string{"frobnicate"}, `jobq: unknown command "frobnicate"`},
		{"MigrateWithoutVerb", []string{"migrate"}, "migrate needs up, down or status"},
		{"MigrateUnknownVerb", []string{"migrate", "sideways"}, `migrate: unknown verb "sideways" (up, down, status, validate, script)`},
		{"MigrateDownDryRun", []string{"migrate", "down", "--dry-run"}, "--dry-run goes with migrate up"},
		{"MigrateStatusDryRun", []string{"migrate", "status", "--dry-run"}, "--dry-run goes with migrate up"},
		{"MigrateUnknownFlag", []string{"migrate", "up", "--bogus"}, "jobq: unknown flag --bogus"},
		{"BootstrapUnknownFlag", []string{"bootstrap", "--bogus"}, "jobq: unknown flag --bogus"},
		{"SandboxWithoutCommand", []string{"sandbox"}, "Run \"jobq help sandbox\" for its arguments and flags."},
		{"WorkerUnknownFlag", []string{"worker", "--bogus"}, "jobq: unknown flag --bogus\nRun \"jobq help worker\" for its arguments and flags.\n"},
		{"WorkerBadConcurrency", []string{"worker", "--concurrency", "many"}, `--concurrency: expected a valid 64 bit int but got "many"`},
		{"ConfigUnknownCommand", []string{"config", "frobnicate"}, `jobq: config: "frobnicate" is not a jobq command`},
		{"ConfigBadFlag", []string{"config", "worker", "--bogus"}, "jobq: config: unknown flag --bogus\nRun \"jobq help worker\" for its arguments and flags."},
		{"JobsWithoutVerb", []string{"jobs"}, `jobq: expected one of "list", "show", "retry", "cancel", "delete"`},
		{"JobsShowWithoutID", []string{"jobs", "show"}, "Run \"jobq help jobs show\" for its arguments and flags."},
		{"JobsRetryNotANumber", []string{"jobs", "retry", "seven"}, `<id>: expected a valid 64 bit int but got "seven"`},
		{"DeadListUnknownFlag", []string{"dead", "list", "--bogus"}, "jobq: unknown flag --bogus"},
		{"SettingsSetWithoutValue", []string{"settings", "set", "poll_interval"}, `jobq: expected "<value>"`},
		{"JobsListUnknownState", []string{"jobs", "list", "--state", "daed", "--database-url", "postgres://nobody@127.0.0.1:1/app"},
			`--state "daed": want one of queued, running, retry_pending, blocked, succeeded, dead, canceled`},
		{"DeadListBadStore", []string{"dead", "list", "--store", "shop-7", "--database-url", "postgres://nobody@127.0.0.1:1/app"},
			`--store "shop-7": want a store id (a uuid)`},
		{"StatsBadStore", []string{"stats", "--store", "shop-7", "--database-url", "postgres://nobody@127.0.0.1:1/app"},
			`--store "shop-7": want a store id (a uuid)`},
		{"DoctorTakesNoArgument", []string{"doctor", "now"}, `unexpected argument now`},
		{"AuditBadSince", []string{"audit", "--since", "last week", "--database-url", "postgres://nobody@127.0.0.1:1/app"}, `--since "last week"`},
		{"WorkerUnknownWakeup", []string{"worker", "--database-url", "postgres://worker_runtime@127.0.0.1:1/app", "--wakeup", "listen"},
			`jobq worker: --wakeup (or JOBQ_WORKER_WAKEUP) must be notify or wal, got "listen"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCLI(t, tc.args...)
			require.Equal(t, 2, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			require.Contains(t, stderr, tc.stderr)
			require.Empty(t, stdout)
		})
	}
}

func TestCLIHelpExitsZero(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCLI(t, "help")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "usage: jobq <command>")
}

// Without --database-url and with the variables empty, the commands exit 2 and name the variable
// they read. (t.Setenv: this test cannot run in parallel.)
func TestCLIWithoutDatabaseURL(t *testing.T) {
	for _, name := range []string{"DATABASE_URL", "DATABASE_URL_ADMIN", "DATABASE_URL_MIGRATOR", "JOBQ_BOOTSTRAP_DATABASE_URL", "JOBQ_MIGRATE_DATABASE_URL"} {
		t.Setenv(name, "")
	}
	t.Run("Migrate", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "migrate", "up")
		require.Equal(t, 2, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
		require.Contains(t, stderr, "JOBQ_MIGRATE_DATABASE_URL")
	})
	t.Run("MigrateStatus", func(t *testing.T) {
		code, _, stderr := runCLI(t, "migrate", "status")
		require.Equal(t, 2, code)
		require.Contains(t, stderr, "JOBQ_MIGRATE_DATABASE_URL")
	})
	t.Run("Bootstrap", func(t *testing.T) {
		code, _, stderr := runCLI(t, "bootstrap")
		require.Equal(t, 2, code)
		require.Contains(t, stderr, "JOBQ_BOOTSTRAP_DATABASE_URL")
	})
}
