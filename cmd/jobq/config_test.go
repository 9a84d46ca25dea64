package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/cliconf"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/localpg"
)

// configJSON runs jobq config --json ARGS and returns its sections by command and its stderr.
func configJSON(t *testing.T, args ...string) (map[string]map[string]configSetting, string) {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"config", "--json"}, args...)...)
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	var out struct {
		Sections []configSection `json:"sections"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out), stdout)
	sections := map[string]map[string]configSetting{}
	for _, s := range out.Sections {
		sections[s.Command] = map[string]configSetting{}
		for _, st := range s.Settings {
			sections[s.Command][st.Flag] = st
		}
	}
	return sections, stderr
}

// TestConfigWorkerPrecedence: jobq config worker prints each flag's value and where it came from,
// in the order that wins: the flag, then the JOBQ_ variable, then an old name (named deprecated,
// with a warning on stderr), then the --config file, then the default, or the database's setting
// for a 0 that means it. (t.Setenv: not parallel.)
func TestConfigWorkerPrecedence(t *testing.T) {
	clearWorkerEnv(t, "DATABASE_URL", "CONCURRENCY", "QUEUES", "LEASE", "LOG_LEVEL", "SHUTDOWN_GRACE", "CONFIG", "POLL_INTERVAL", "NO_LEADER")
	file := filepath.Join(t.TempDir(), "worker.toml")
	require.NoError(t, os.WriteFile(file, []byte("[worker]\nconcurrency = 7\nqueues = [\"mail\"]\nlog_level = \"debug\"\nno_leader = true\n"), 0o600))
	t.Setenv("JOBQ_WORKER_DATABASE_URL", "postgres://worker_runtime:s3cr3t@127.0.0.1:1/app?sslmode=disable")
	t.Setenv("JOBQ_WORKER_QUEUES", "urgent,default")
	t.Setenv("WORKER_SHUTDOWN_GRACE", "40s")

	sections, stderr := configJSON(t, "worker", "--config", file, "--concurrency", "3")
	w := sections["worker"]
	require.NotNil(t, w, "the section is the command's")
	for _, tc := range []struct {
		flag, value string
		source      configSourceOut
	}{
		{"concurrency", "3", configSourceOut{Kind: "flag"}},
		{"queues", "urgent,default", configSourceOut{Kind: "env", Name: "JOBQ_WORKER_QUEUES"}},
		{"shutdown-grace", "40s", configSourceOut{Kind: "env", Name: "WORKER_SHUTDOWN_GRACE", Replacement: "JOBQ_WORKER_SHUTDOWN_GRACE"}},
		{"log-level", "debug", configSourceOut{Kind: "file", Name: file}},
		{"no-leader", "true", configSourceOut{Kind: "file", Name: file}},
		{"config", file, configSourceOut{Kind: "flag"}},
		{"rescan-interval", "1s", configSourceOut{Kind: "default"}},
		{"lease", "0s", configSourceOut{Kind: "database", Name: "default_lease"}},
		{"poll-interval", "0s", configSourceOut{Kind: "database", Name: "poll_interval"}},
		{"exec-timeout", "5m0s", configSourceOut{Kind: "default"}},
		{"database-url", "postgres://worker_runtime:***@127.0.0.1:1/app?sslmode=disable", configSourceOut{Kind: "env", Name: "JOBQ_WORKER_DATABASE_URL"}},
	} {
		require.Equal(t, tc.value, w[tc.flag].Value, tc.flag)
		got := w[tc.flag].Where
		if tc.source.Kind == "database" {
			require.Contains(t, got.Error, "not read: ", "no database answers on port 1: the setting stays unread, and says so")
			got.Error = ""
		}
		require.Equal(t, tc.source, got, tc.flag)
	}
	require.Equal(t, "JOBQ_WORKER_CONCURRENCY", w["concurrency"].Env, "each setting names its variable")
	require.Equal(t, "jobq: warning: WORKER_SHUTDOWN_GRACE is deprecated and will not be read after this release: use JOBQ_WORKER_SHUTDOWN_GRACE (docs/configuration.md)\n", stderr)

	// The table says the same.
	code, stdout, _ := runCLI(t, "config", "worker", "--config", file, "--concurrency", "3")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "jobq worker\n")
	for _, want := range []string{
		`--concurrency  +3 +flag\n`,
		`--queues +urgent,default +env JOBQ_WORKER_QUEUES\n`,
		`--shutdown-grace +40s +env WORKER_SHUTDOWN_GRACE \(deprecated: use JOBQ_WORKER_SHUTDOWN_GRACE\)\n`,
		`--log-level +debug +file ` + file + `\n`,
		`--lease +0s +database \(setting default_lease\): not read: `,
		`--rescan-interval +1s +default\n`,
	} {
		require.Regexp(t, want, stdout)
	}
	require.NotContains(t, stdout, "s3cr3t", "passwords are masked")
}

// Without a command line, jobq config prints every command's configuration; secrets are masked in
// URLs and in keyword/value connection strings; the variables are those of docs/configuration.md.
// (t.Setenv: not parallel.)
func TestConfigEveryCommandMasksSecrets(t *testing.T) {
	t.Setenv("JOBQ_DATABASE_URL", "host=db user=op password='p w' dbname=app")
	t.Setenv("JOBQ_DASHBOARD_DATABASE_URL", "postgres://jobq_dashboard:hunter2@db/app")
	t.Setenv("JOBQ_BOOTSTRAP_DATABASE_URL", "")
	t.Setenv("DATABASE_URL_ADMIN", "")
	t.Setenv("DATABASE_URL", "postgres://postgres:topsecret@db/app")
	t.Setenv("JOBQ_MIGRATE_DATABASE_URL", "postgres://jobq_migrator@db/app")
	clearWorkerEnv(t, "SENTRY_DSN")
	t.Setenv("SENTRY_DSN", "")
	t.Setenv("JOBQ_SENTRY_DSN", "https://publickey@sentry.example/1")

	sections, stderr := configJSON(t)
	for _, c := range []string{"bootstrap", "migrate", "worker", "dashboard", "compact", "stats"} {
		require.Contains(t, sections, c)
	}
	require.Equal(t, "host=db user=op password=*** dbname=app", sections["stats"]["database-url"].Value)
	require.Equal(t, "postgres://jobq_dashboard:***@db/app", sections["dashboard"]["database-url"].Value)
	require.Equal(t, "postgres://postgres:***@db/app", sections["bootstrap"]["database-url"].Value)
	require.Equal(t, configSourceOut{Kind: "env", Name: "DATABASE_URL", Replacement: "JOBQ_BOOTSTRAP_DATABASE_URL"}, sections["bootstrap"]["database-url"].Where)
	require.Equal(t, "postgres://jobq_migrator@db/app", sections["migrate"]["database-url"].Value, "no password: nothing to mask")
	require.Equal(t, "***", sections["worker"]["sentry-dsn"].Value, "a secret that is not a URL with a password is masked whole")
	require.Equal(t, configSourceOut{Kind: "env", Name: "JOBQ_SENTRY_DSN", Replacement: "JOBQ_WORKER_SENTRY_DSN"}, sections["worker"]["sentry-dsn"].Where)
	for _, secret := range []string{"p w", "hunter2", "topsecret", "publickey"} {
		require.NotContains(t, stderr, secret)
	}
	require.Contains(t, stderr, "jobq: warning: DATABASE_URL is deprecated and will not be read after this release: use JOBQ_BOOTSTRAP_DATABASE_URL")
	require.Contains(t, stderr, "jobq: warning: JOBQ_SENTRY_DSN is deprecated")

	code, stdout, _ := runCLI(t, "config")
	require.Equal(t, 0, code)
	for _, secret := range []string{"p w", "hunter2", "topsecret", "publickey"} {
		require.NotContains(t, stdout, secret)
	}
}

// A command line jobq config cannot parse is a usage error, exit 2, that names the command's help;
// jobq config never runs the command.
func TestConfigUsageErrors(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI(t, "config", "worker", "--concurrency", "many")
	require.Equal(t, 2, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, `jobq: config: --concurrency: expected a valid 64 bit int but got "many"`)
	require.Contains(t, stderr, `Run "jobq help worker" for its arguments and flags.`)

	code, stdout, _ = runCLI(t, "config", "sandbox", "--", "false")
	require.Equal(t, 0, code, "sandbox is parsed, not run")
	require.Contains(t, stdout, "jobq sandbox")
}

// The sandbox gives its command the JOBQ_ names and, for one more release, the old ones, with the
// same URLs: a child of either release finds its database.
func TestSandboxExportsNewAndOldNames(t *testing.T) {
	t.Parallel()
	env := map[string]string{}
	for _, kv := range sandboxEnv(&localpg.Cluster{Port: 5999}) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	for newName, old := range map[string][]string{
		"JOBQ_BOOTSTRAP_DATABASE_URL": {"DATABASE_URL_ADMIN", "DATABASE_URL"},
		"JOBQ_MIGRATE_DATABASE_URL":   {"DATABASE_URL_MIGRATOR"},
		"JOBQ_WORKER_DATABASE_URL":    {"WORKER_DATABASE_URL"},
	} {
		require.NotEmpty(t, env[newName], newName)
		for _, o := range old {
			require.Equal(t, env[newName], env[o], "%s is exported as %s's old name", o, newName)
		}
	}
	require.Contains(t, env["JOBQ_MIGRATE_DATABASE_URL"], "jobq_migrator@")
	require.Contains(t, env["JOBQ_WORKER_DATABASE_URL"], "worker_runtime@")
	require.Contains(t, env["JOBQ_TEST_DATABASE_URL"], "/"+sandboxTemplate+"?")
	require.Equal(t, "5999", env["PGPORT"])
}

// The table of old names in docs/configuration.md is the oldenv tags of the command tree, plus the
// variables that are no flag (passwords): a rename in the code without its row, or a row without
// its rename, fails.
func TestConfigurationDocListsEveryOldName(t *testing.T) {
	t.Parallel()
	k, err := newParser(&cli{}, nil, nil)
	require.NoError(t, err)
	inCode := map[string]bool{"WORKER_RUNTIME_PASSWORD -> JOBQ_WORKER_RUNTIME_PASSWORD": true} // install.go: no flag
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, f := range n.Flags {
			for _, old := range cliconf.OldEnvs(f) {
				inCode[old+" -> "+f.Envs[0]] = true
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(k.Model.Node)

	body, err := os.ReadFile(filepath.Join("..", "..", "docs", "configuration.md"))
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(body), "| old | new |\n|---|---|\n")
	require.True(t, ok, "docs/configuration.md has the table of old names")
	inDoc := map[string]bool{}
	row := regexp.MustCompile("^\\| `([A-Z_]+)` \\| `([A-Z_]+)` \\|$")
	for _, line := range strings.Split(table, "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			break
		}
		inDoc[m[1]+" -> "+m[2]] = true
	}
	require.Equal(t, inCode, inDoc)
}

// The flags' table of docs/go-runner.md restates jobq worker's flags for readers: every flag has a
// row, each row names the flag's variable, and a default written as a value (10, 100 ms, `default`)
// is the one the code states (the kong tags, from package runner): a default changed in one place
// fails here instead of drifting.
func TestGoRunnerDocTableMatchesWorkerFlags(t *testing.T) {
	t.Parallel()
	k, err := newParser(&cli{}, nil, nil)
	require.NoError(t, err)
	flags := map[string]*kong.Flag{}
	for _, c := range k.Model.Children {
		if c.Name == "worker" {
			for _, f := range c.Flags {
				flags[f.Name] = f
			}
		}
	}
	require.NotEmpty(t, flags)

	body, err := os.ReadFile(filepath.Join("..", "..", "docs", "go-runner.md"))
	require.NoError(t, err)
	row := regexp.MustCompile("^\\| `--([a-z-]+)` \\| (`[A-Z_]+`|—) \\| ([^|]+) \\|")
	inDoc := map[string]bool{}
	for _, line := range strings.Split(string(body), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name, env, def := m[1], strings.Trim(m[2], "`"), strings.TrimSpace(m[3])
		f := flags[name]
		require.NotNil(t, f, "docs/go-runner.md has a row for --%s, which jobq worker does not have", name)
		inDoc[name] = true
		if env == "—" {
			require.Empty(t, f.Envs, "--%s", name)
		} else {
			require.Equal(t, []string{env}, f.Envs, "--%s", name)
		}
		value := strings.Trim(strings.ReplaceAll(def, " ", ""), "`")
		if d, err := time.ParseDuration(value); err == nil && f.HasDefault {
			want, err := time.ParseDuration(f.Default)
			require.NoError(t, err)
			require.Equal(t, want, d, "--%s: docs/go-runner.md says %s", name, def)
		} else if f.HasDefault && regexp.MustCompile(`^[0-9a-z.:]+$`).MatchString(value) {
			require.Equal(t, f.Default, value, "--%s: docs/go-runner.md says %s", name, def)
		}
	}
	for name, f := range flags {
		if name != "help" && name != "version" && !f.Hidden {
			require.True(t, inDoc[name], "docs/go-runner.md has no row for --%s", name)
		}
	}
}

// With a database URL, jobq config reads the settings a worker flag's 0 stands for from
// jobq.settings, as the worker will: the value an operator set is the one printed.
func TestConfigReadsTheDatabasesSettings(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := testCtx(t)
	conn, err := pgx.Connect(ctx, db.URL("postgres"))
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `SELECT jobq.set_setting('default_lease', '45 seconds')`)
	require.NoError(t, err)

	sections, _ := configJSON(t, "worker", "--database-url", db.URL("worker_runtime"), "--poll-interval", "250ms")
	w := sections["worker"]
	require.Equal(t, "45 seconds", w["lease"].Value, "the database's value, read as worker_runtime")
	require.Equal(t, configSourceOut{Kind: "database", Name: "default_lease"}, w["lease"].Where)
	require.Equal(t, "250ms", w["poll-interval"].Value, "a flag given is not the database's")
	require.Equal(t, configSourceOut{Kind: "flag"}, w["poll-interval"].Where)
}
