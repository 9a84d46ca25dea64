package worker_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/worker"
)

// writeFile writes a configuration file into a new folder and returns its path.
func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "worker.toml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

// env is a fixed environment for LoadFile.
func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		m[k] = v
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// Every problem of a file is named, each on its own line with the table and the key, and none
// stops the others from being found: unknown keys, a handler with both or neither kind, a URL
// with credentials or another scheme, a secret variable unset or too short, a relative path
// that does not exist under the file's folder, negative or untyped durations, a built-in task's
// name, a name that is no task name, a secret-looking variable inherited, secrets in [worker].
func TestLoadFileNamesEveryProblem(t *testing.T) {
	t.Parallel()
	path := writeFile(t, `
[worker]
concurrency = 4
database_url = "postgres://worker_runtime:pw@db/app"
colour = "blue"
queues = []

[handlers.both]
command = ["/bin/true"]
url = "http://localhost:3000/jobs"

[handlers.neither]
timeout = "3s"

[handlers.creds]
url = "https://user:pw@example.com/jobs"
secret_env = "NOT_SET"

[handlers.ftp]
url = "ftp://example.com/x"
secret_env = "SHORT_SECRET"
dir = "/tmp"

[handlers.rel]
command = ["./missing.sh"]
dir = "nope"
timeout = "-1s"
kill_grace = 5
comand = "x"

[handlers.ping]
command = ["true"]

[handlers.Bad_Name]
command = ["/bin/true"]
inherit_env = ["PGPASSWORD"]

[handlers.shell]
command = ["echo a", "echo b"]
shell = true
output_tail = -1

[handlers.huge]
url = "http://localhost:3000/jobs"
secret_env = "GOOD_SECRET"
max_response = 1_000_000_000_000
headers = { "Jobq-Signature" = "forged", "X-Ok" = "a\nb" }

[extra]
`)
	f, problems := worker.LoadFile(path, []string{"ping", "exec"},
		env("PATH=/usr/bin:/bin", "SHORT_SECRET=abc", "GOOD_SECRET=0123456789abcdef0123"))
	require.NotNil(t, f)
	dir := filepath.Dir(path)
	want := []string{
		`[extra] unknown table (known: [worker], [handlers.<name>])`,
		`[handlers.Bad_Name] "Bad_Name" is not a handler name: kebab-case, as a task name, at most 100 characters`,
		`[handlers.Bad_Name] runner: CommandConfig.InheritEnv: "PGPASSWORD" may hold the worker's secrets and is never passed on (set what the command needs in Env)`,
		`[handlers.both] has both command and url: a handler is one or the other`,
		`[handlers.creds] url: holds a user or password: put the secret in the variable secret_env names`,
		`[handlers.creds] secret_env: NOT_SET is not set in the worker's environment`,
		`[handlers.ftp] dir: applies to the other kind of handler, not to an HTTP endpoint`,
		`[handlers.ftp] url: scheme "ftp": http or https only`,
		`[handlers.ftp] secret_env: SHORT_SECRET holds 3 bytes: a signing secret needs at least 16`,
		`[handlers.huge] max_response: 1000000000000 is above the most, 67108864`,
		`[handlers.huge] headers: Jobq-Signature is set by the worker`,
		`[handlers.huge] headers: X-Ok: the value holds a line break`,
		`[handlers.neither] has neither command nor url`,
		`[handlers.ping] "ping" is a built-in task of this worker: name the handler otherwise`,
		`[handlers.rel] comand: unknown key (known for a command: command, shell, dir, inherit_env, env, timeout, kill_grace, output_tail)`,
		`[handlers.rel] dir: ` + dir + `/nope: no such file or directory`,
		`[handlers.rel] command: ` + dir + `/missing.sh: no such file or directory`,
		`[handlers.rel] timeout: -1s is negative`,
		`[handlers.rel] kill_grace: a duration as a string such as "30s", got an integer`,
		`[handlers.shell] command: with shell = true, one string: the script /bin/sh -c runs`,
		`[handlers.shell] output_tail: -1 is negative`,
		`[worker] queues: an empty list`,
	}
	for i := range want {
		want[i] = path + ": " + want[i]
	}
	require.Equal(t, want, problems)
	require.Empty(t, f.Handlers, "no handler with a problem is kept")
	for _, p := range problems {
		require.NotContains(t, p, "pw@", "a problem never repeats a credential")
	}

	// [worker]'s keys are checked against the flags when they are applied.
	_, err := worker.ParseFlags(worker.Program{Name: "w"}, []string{"--database-url", "postgres://worker_runtime@db/app", "--config", path}, io.Discard)
	require.ErrorContains(t, err, path+": [worker] colour: unknown key")
	require.ErrorContains(t, err, path+": [worker] database_url: a secret: set it in the environment (JOBQ_WORKER_DATABASE_URL), never in the file")
	require.NotContains(t, err.Error(), "pw@")
}

// A file that is not TOML, or names a table twice, is one problem with its line.
func TestLoadFileSyntaxErrorHasItsLine(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "[handlers.a]\ncommand = [\"/bin/true\"]\n\n[handlers.a]\ncommand = [\"/bin/false\"]\n")
	f, problems := worker.LoadFile(path, nil, env())
	require.Nil(t, f)
	require.Equal(t, []string{path + ":4: Key 'handlers.a' has already been defined."}, problems)

	_, problems = worker.LoadFile(filepath.Join(t.TempDir(), "absent.toml"), nil, env())
	require.Len(t, problems, 1)
	require.Contains(t, problems[0], "no such file or directory")
}

// Paths of a file are the file's: a relative command or dir is resolved against the file's
// folder (never the folder the worker starts in), a bare program name through the absolute
// folders of PATH at start (".", a relative folder of PATH, is skipped), and dir defaults to the
// file's folder.
func TestLoadFileResolvesPathsAgainstItsFolder(t *testing.T) {
	t.Parallel()
	path := writeFile(t, `
[handlers.script]
command = ["bin/run.sh", "--flag"]
dir = "work"
inherit_env = []
env = { APP_MODE = "jobs" }
timeout = "90s"
kill_grace = "2s"
output_tail = 8192

[handlers.bare]
command = ["sh", "-c", "exit 0"]

[handlers.dotted]
command = ["run.sh"]
`)
	dir := filepath.Dir(path)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bin"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "work"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bin", "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	// run.sh is in bin/, and "bin" is on PATH only as a relative folder: not found.
	f, problems := worker.LoadFile(path, nil, env("PATH=bin:/bin:/usr/bin"))
	require.Equal(t, []string{path + `: [handlers.dotted] command: "run.sh" not found in PATH (bin:/bin:/usr/bin)`}, problems)
	require.Equal(t, []string{"bare", "script"}, f.Names())

	bare, script := f.Handlers[0].Command, f.Handlers[1].Command
	require.True(t, filepath.IsAbs(bare.Argv[0]) && filepath.Base(bare.Argv[0]) == "sh", bare.Argv[0])
	require.Equal(t, []string{"-c", "exit 0"}, bare.Argv[1:])
	require.Equal(t, dir, bare.Dir, "dir defaults to the file's folder")
	require.Nil(t, bare.InheritEnv, "absent: the runner's default list")

	require.Equal(t, worker.CommandSpec{
		Argv: []string{filepath.Join(dir, "bin", "run.sh"), "--flag"}, Dir: filepath.Join(dir, "work"),
		InheritEnv: []string{}, Env: map[string]string{"APP_MODE": "jobs"},
		Timeout: 90 * time.Second, KillGrace: 2 * time.Second, OutputTail: 8192,
	}, *script)
}

// An HTTP endpoint's secret is read from the variable secret_env names, and shows nowhere: not
// in the file, not when the loaded file is printed.
func TestLoadFileHTTPEndpointSecretStaysHidden(t *testing.T) {
	t.Parallel()
	path := writeFile(t, `
[handlers.resize-image]
url = "https://images.internal:8443/jobs?v=2"
secret_env = "RESIZE_SECRET"
timeout = "20s"
max_response = 65536
headers = { "X-Team" = "imaging" }
`)
	const secret = "s3cr3t-s3cr3t-s3cr3t"
	f, problems := worker.LoadFile(path, nil, env("RESIZE_SECRET="+secret))
	require.Empty(t, problems)
	require.Len(t, f.Handlers, 1)
	h := f.Handlers[0].HTTP
	require.Equal(t, "https://images.internal:8443/jobs?v=2", h.URL)
	require.Equal(t, secret, string(h.Secret))
	require.Equal(t, 20*time.Second, h.Timeout)
	require.Equal(t, int64(65536), h.MaxResponse)
	require.Equal(t, map[string]string{"X-Team": "imaging"}, h.Headers)
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q"} {
		require.NotContains(t, fmt.Sprintf(format, *h), "s3cr3t", format)
	}
}

// The [worker] table sets flags: the command line wins, then JOBQ_WORKER_V, then the old name
// WORKER_V, then the file, then the default; the file's path comes from --config or
// $JOBQ_WORKER_CONFIG (or the old $WORKER_CONFIG). (t.Setenv: not parallel.)
func TestFlagsFilePrecedence(t *testing.T) {
	path := writeFile(t, `
[worker]
concurrency = 7
queues = ["mail", "default"]
lease = "45s"
no_leader = true
log_level = "debug"
`)
	for _, v := range []string{"WORKER_CONCURRENCY", "WORKER_QUEUES", "WORKER_LEASE", "WORKER_NO_LEADER", "WORKER_LOG_LEVEL", "WORKER_CONFIG", "WORKER_DATABASE_URL"} {
		t.Setenv(v, "")
		t.Setenv(worker.EnvPrefix+v, "")
	}
	t.Setenv("JOBQ_WORKER_DATABASE_URL", "postgres://worker_runtime@db/app")
	prog := worker.Program{Name: "w"}
	parse := func(args ...string) *worker.Flags {
		t.Helper()
		f, err := worker.ParseFlags(prog, args, io.Discard)
		require.NoError(t, err)
		return f
	}
	f := parse("--config", path)
	require.Equal(t, 7, f.Concurrency)
	require.Equal(t, []string{"mail", "default"}, f.QueueList())
	require.Equal(t, 45*time.Second, f.Lease)
	require.True(t, f.NoLeader)
	require.Equal(t, "debug", f.LogLevel)
	require.NotNil(t, f.File)

	t.Setenv("WORKER_CONCURRENCY", "5")
	t.Setenv("JOBQ_WORKER_LEASE", "20s")
	f = parse("--config", path, "--queues", "urgent", "--no-leader=false")
	require.Equal(t, 5, f.Concurrency, "the environment, an old name included, wins over the file")
	require.Equal(t, 20*time.Second, f.Lease, "JOBQ_ wins over the file")
	require.Equal(t, []string{"urgent"}, f.QueueList(), "the flag wins")
	require.False(t, f.NoLeader, "the flag wins")
	require.Equal(t, "debug", f.LogLevel, "the file wins over the default")

	t.Setenv("JOBQ_WORKER_CONFIG", path)
	f = parse()
	require.Equal(t, path, f.ConfigPath, "from the environment")
	require.Equal(t, "debug", f.LogLevel)

	// A value the flag refuses is a problem even where the environment overrides it.
	const badInt = `--concurrency: expected a valid 64 bit int but got "many"`
	bad := writeFile(t, "[worker]\nconcurrency = \"many\"\nlease = \"-1s\"\n")
	_, err := worker.ParseFlags(prog, []string{"--config", bad}, io.Discard)
	require.EqualError(t, err, bad+`: [worker] concurrency = "many": `+badInt)
	t.Setenv("WORKER_CONCURRENCY", "")
	t.Setenv("JOBQ_WORKER_LEASE", "")
	_, err = worker.ParseFlags(prog, []string{"--config", bad}, io.Discard)
	require.ErrorContains(t, err, bad+`: [worker] concurrency = "many": `+badInt)
	require.ErrorContains(t, err, "--lease, --poll-interval and --heartbeat-interval must not be negative")
	require.ErrorAs(t, err, new(worker.UsageError))
}

// A file, or a program it names, that every user may write is a problem: whoever can write
// either can make the worker run anything.
func TestLoadFileRefusesWhatEveryUserMayWrite(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "[handlers.report]\ncommand = [\"./report.sh\"]\n")
	program := filepath.Join(filepath.Dir(path), "report.sh")
	require.NoError(t, os.WriteFile(program, []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.Chmod(program, 0o777))
	require.NoError(t, os.Chmod(path, 0o666))
	_, problems := worker.LoadFile(path, nil, env())
	require.Equal(t, []string{
		path + ": writable by every user: anyone could make this worker run any program (chmod o-w)",
		path + ": [handlers.report] command: " + program + " is writable by every user: anyone could change what this worker runs (chmod o-w)",
	}, problems)

	require.NoError(t, os.Chmod(program, 0o755))
	require.NoError(t, os.Chmod(path, 0o644))
	_, problems = worker.LoadFile(path, nil, env())
	require.Empty(t, problems)
}
