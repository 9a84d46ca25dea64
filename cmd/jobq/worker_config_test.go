package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/proctest"
)

// waitStarted waits until w has started its runner, under waitCeiling (a loaded machine starts
// a worker slower than proctest's WaitStarted allows).
func waitStarted(t *testing.T, w *workerProc) {
	t.Helper()
	waitUntil(t, waitCeiling, "runner started", func() bool { return len(w.Lines("runner started")) == 1 })
}

// markerScript writes a program that records each run as a file named after its job in out.
func markerScript(t *testing.T, path, out, what string) {
	t.Helper()
	script := "#!/bin/sh\ncat > /dev/null\necho " + what + " > \"" + out + "/" + what + "-$JOBQ_JOB_ID\"\n"
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
}

// markers lists the runs recorded in out.
func markers(t *testing.T, out string) []string {
	t.Helper()
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// Issue 30, item 3: the database holds a handler name per task; only the worker's file maps a
// name to a command. A worker started with --config serves exactly the declared tasks whose
// handler name its file lists (a task's own name, or the name jobq.set_task_handler gave it),
// runs the file's command for them, and logs a name no task uses. An operator who points a task at
// a name the file does not list, or anyone who writes a path or another program's name into
// jobq.tasks.handler, cannot make the worker run anything else: the job is not claimed by that
// worker (it waits, not served, while jobs behind it in the same queue run) and the unlisted
// program never runs, before and after a restart.
func TestWorkerConfigServesOnlyTheFilesHandlers(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	operator := db.Pool(t, "jobq_operator", 2)
	ctx := context.Background()
	dir, out := t.TempDir(), t.TempDir()
	markerScript(t, filepath.Join(dir, "welcome.sh"), out, "welcome")
	markerScript(t, filepath.Join(dir, "thumbs.sh"), out, "thumbs")
	markerScript(t, filepath.Join(dir, "unused.sh"), out, "unused")
	evil := filepath.Join(dir, "unlisted.sh") // on disk, executable, beside the others: not in the file
	markerScript(t, evil, out, "unlisted")
	config := filepath.Join(dir, "worker.toml")
	require.NoError(t, os.WriteFile(config, []byte(`
[worker]
concurrency = 2

[handlers.send-welcome-email]
command = ["./welcome.sh"]

[handlers.thumbs]
command = ["./thumbs.sh"]

[handlers.unused-name]
command = ["./unused.sh"]
`), 0o600))

	c := jobq.NewClient(admin)
	for _, task := range []string{"send-welcome-email", "resize-image", "wipe-disk"} {
		require.NoError(t, c.DefineTask(ctx, jobq.TaskDefinition{Name: task}))
	}
	setHandler := func(task, handler string) {
		t.Helper()
		_, err := operator.Exec(ctx, `SELECT jobq.set_task_handler($1, $2)`, task, handler)
		require.NoError(t, err)
	}
	setHandler("resize-image", "thumbs")
	setHandler("wipe-disk", "unlisted") // a name the file does not list

	// --check with the database names what each handler would serve.
	code, stdout, stderr := runCLI(t, "worker", "--check", "--config", config, "--database-url", db.URL("worker_runtime"))
	require.Equal(t, 0, code, stdout+stderr)
	require.Equal(t, "handler send-welcome-email (command) serves: send-welcome-email\n"+
		"handler thumbs (command) serves: resize-image\n"+
		"warning: handler unused-name (command) serves no task: no declared task has this handler name\n"+
		"ok: 3 handlers\n", stdout)

	w := startWorker(t, nil, "--database-url", db.URL("worker_runtime"), "--config", config)
	waitStarted(t, w)
	require.Len(t, w.Lines("handler serves tasks"), 2)
	unused := w.Lines("handler serves no task: no declared task has this handler name (jobq.set_task_handler, or a task of this name)")
	require.Len(t, unused, 1)
	require.Equal(t, "unused-name", unused[0]["handler"])

	// The unlisted task's job comes first in the queue; the served ones after it.
	wipe := enqueue(t, c, "wipe-disk", nil, jobq.EnqueueOptions{})
	welcome := enqueue(t, c, "send-welcome-email", nil, jobq.EnqueueOptions{})
	resize := enqueue(t, c, "resize-image", nil, jobq.EnqueueOptions{})
	waitUntil(t, waitCeiling, "the served jobs succeeded", func() bool {
		s1, _ := liveOrFinished(t, admin, welcome)
		s2, _ := liveOrFinished(t, admin, resize)
		return s1 == "succeeded" && s2 == "succeeded"
	})
	require.ElementsMatch(t, []string{"welcome-" + strconv.FormatInt(welcome, 10), "thumbs-" + strconv.FormatInt(resize, 10)}, markers(t, out),
		"each served task ran its handler's command, once")
	notClaimed := func(id int64) {
		t.Helper()
		state, attempt := liveOrFinished(t, admin, id)
		require.Equal(t, "queued", state, "the job of a task this worker does not serve is never claimed by it")
		require.Zero(t, attempt)
	}
	notClaimed(wipe)
	notServed := func(want int) {
		t.Helper()
		waitUntil(t, waitCeiling, "not served: "+strconv.Itoa(want), func() bool {
			return queryInt(t, admin, `SELECT not_served FROM jobq.queue_not_served(ARRAY['default'])`) == want
		})
	}
	notServed(1)

	// An operator points a served task at a name the file does not list, and anyone able to
	// write jobq.tasks (here the superuser) writes a program's path as a handler name: after a
	// restart neither task is served, and nothing but the file's commands ever ran.
	setHandler("send-welcome-email", "unlisted")
	setHandler("ping", "thumbs") // a built-in task keeps its own handler
	_, err := admin.Exec(ctx, `UPDATE jobq.tasks SET handler = $1 WHERE name = 'resize-image'`, evil)
	require.NoError(t, err)
	w.Signal(syscall.SIGTERM)
	require.Equal(t, 0, w.Wait(waitCeiling))

	w = startWorker(t, nil, "--database-url", db.URL("worker_runtime"), "--config", config)
	waitStarted(t, w)
	require.Empty(t, w.Lines("handler serves tasks"))
	require.Len(t, w.Lines("task is built in: its handler name is ignored"), 1)
	require.Len(t, w.Lines("handler serves no task: no declared task has this handler name (jobq.set_task_handler, or a task of this name)"), 3)
	welcome2 := enqueue(t, c, "send-welcome-email", nil, jobq.EnqueueOptions{})
	resize2 := enqueue(t, c, "resize-image", nil, jobq.EnqueueOptions{})
	// A ping enqueued last runs (the built-in, not thumbs.sh): the worker claims, and passes the
	// three jobs over.
	ping := enqueue(t, c, "ping", nil, jobq.EnqueueOptions{})
	waitUntil(t, waitCeiling, "ping succeeded", func() bool {
		s, _ := liveOrFinished(t, admin, ping)
		return s == "succeeded"
	})
	notClaimed(wipe)
	notClaimed(welcome2)
	notClaimed(resize2)
	notServed(3)
	for _, m := range markers(t, out) {
		require.False(t, strings.HasPrefix(m, "unlisted") || strings.HasPrefix(m, "unused"), "an unlisted program ran: %s", m)
	}
	require.Len(t, markers(t, out), 2)
}

// runCheck runs `jobq worker --check` as a process with the test's environment less its
// database URLs (so it checks offline), and returns its exit status and standard output.
func runCheck(t *testing.T, args ...string) (int, string) {
	t.Helper()
	p := proctest.Start(t, jobqBinary(t), nil, append([]string{"worker", "--check"}, args...)...)
	code := p.Wait(waitCeiling)
	return code, p.Logs.String()
}

// --check without a database names every problem of the file and exits 2; a worker started
// with the same file refuses to start with the same lines, before it connects.
func TestWorkerCheckNamesEveryProblem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	config := filepath.Join(dir, "worker.toml")
	require.NoError(t, os.WriteFile(config, []byte(`
[worker]
concurrency = 0
sentry_dsn = "https://key@sentry.example/1"

[handlers.ping]
command = ["/bin/true"]

[handlers.charge-card]
url = "http://user:password@payments.internal/jobs"
secret_env = "PAYMENTS_SECRET"

[handlers.report]
command = ["report-generator-that-is-not-installed"]
`), 0o600))
	code, stdout := runCheck(t, "--config", config)
	require.Equal(t, 2, code)
	want := []string{
		config + `: [handlers.charge-card] url: holds a user or password: put the secret in the variable secret_env names`,
		config + `: [handlers.charge-card] secret_env: PAYMENTS_SECRET is not set in the worker's environment`,
		config + `: [handlers.ping] "ping" is a built-in task of this worker: name the handler otherwise`,
		config + `: [handlers.report] command: "report-generator-that-is-not-installed" not found in PATH (` + os.Getenv("PATH") + `)`,
		config + `: [worker] sentry_dsn: a secret: set it in the environment (JOBQ_WORKER_SENTRY_DSN), never in the file`,
		`--concurrency must be at least 1`,
	}
	require.Equal(t, strings.Join(want, "\n")+"\n", stdout)
	require.NotContains(t, stdout, "password@")

	w := proctest.Start(t, jobqBinary(t), nil, "worker", "--database-url", "postgres://worker_runtime@127.0.0.1:1/none", "--config", config)
	require.Equal(t, 2, w.Wait(waitCeiling))
	for _, line := range want {
		require.Contains(t, w.Stderr.String(), "jobq worker: "+line+"\n")
	}

	ok := filepath.Join(dir, "ok.toml")
	require.NoError(t, os.WriteFile(ok, []byte("[handlers.report]\ncommand = [\"/bin/true\"]\n"), 0o600))
	code, stdout = runCheck(t, "--config", ok)
	require.Equal(t, 0, code, stdout)
	require.Equal(t, "ok: 1 handlers\n", stdout)
}

// A worker whose file has handlers but that may not ask jobq.served_tasks (a schema without it,
// a role without the right) stops at start with the reason, exit 1, instead of waiting forever
// or serving nothing in silence. A database that does not answer is waited for, as the runner's
// start-up waits.
func TestWorkerConfigStopsWhenItCannotAskWhichTasksItServes(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	_, err := admin.Exec(context.Background(), `REVOKE EXECUTE ON FUNCTION jobq.served_tasks(text[]) FROM worker_runtime`)
	require.NoError(t, err)
	config := filepath.Join(t.TempDir(), "worker.toml")
	require.NoError(t, os.WriteFile(config, []byte("[handlers.report]\ncommand = [\"/bin/true\"]\n"), 0o600))
	w := proctest.Start(t, jobqBinary(t), nil, "worker", "--database-url", db.URL("worker_runtime"), "--config", config, "--health-addr", "")
	require.Equal(t, 1, w.Wait(waitCeiling))
	require.Contains(t, w.Stderr.String(), "permission denied for function served_tasks")
	require.Contains(t, w.Stderr.String(), "jobq migrate up")
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...: the state follows the last ')'.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	return !strings.HasPrefix(strings.TrimSpace(rest), "Z")
}

// readPids reads the pids a command wrote to path ("" while it has not).
func readPids(t *testing.T, path string) []int {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil || !strings.HasSuffix(string(body), "\n") {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(body)) {
		pid, err := strconv.Atoi(f)
		require.NoError(t, err)
		pids = append(pids, pid)
	}
	return pids
}

// Issue 30, item 7, through jobq worker and its file: kill -9 of a worker while a command handler
// runs kills the command and the child it started (its whole process group), and the job runs
// again exactly once, on another worker, after its lease.
func TestWorkerConfigKill9KillsTheCommandsGroupAndTheJobRunsOnceMore(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	dir, runs := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run.sh"), []byte(`#!/bin/sh
cat > /dev/null
echo "$JOBQ_ATTEMPT" >> "$RUNS/$JOBQ_JOB_ID"
if [ "$JOBQ_ATTEMPT" = 1 ]; then
  sleep 300 &
  echo $$ $! > "$RUNS/pids"
  wait
fi
`), 0o755))
	config := filepath.Join(dir, "worker.toml")
	require.NoError(t, os.WriteFile(config, []byte(`
[worker]
lease = "2s"

[handlers.long-report]
command = ["./run.sh"]
inherit_env = ["PATH", "RUNS"]
`), 0o600))
	require.NoError(t, jobq.NewClient(admin).DefineTask(context.Background(), jobq.TaskDefinition{Name: "long-report"}))
	env := []string{"RUNS=" + runs}

	// worker-a never leads: worker-b's maintain rescues the job as soon as its lease expires.
	a := startWorker(t, env, "--database-url", db.URL("worker_runtime"), "--config", config, "--worker-id", "worker-a", "--no-leader")
	waitStarted(t, a)
	id := enqueue(t, jobq.NewClient(admin), "long-report", nil, jobq.EnqueueOptions{})
	var pids []int
	waitUntil(t, waitCeiling, "the command and its child run", func() bool {
		pids = readPids(t, filepath.Join(runs, "pids"))
		return len(pids) == 2
	})
	require.True(t, alive(pids[0]) && alive(pids[1]))
	a.Signal(syscall.SIGKILL)
	a.Wait(waitCeiling)
	waitUntil(t, waitCeiling, "the command and its child are gone", func() bool { return !alive(pids[0]) && !alive(pids[1]) })

	startWorker(t, env, "--database-url", db.URL("worker_runtime"), "--config", config, "--worker-id", "worker-b")
	waitUntil(t, waitCeiling, "the job succeeded on worker-b", func() bool {
		state, _ := liveOrFinished(t, admin, id)
		return state == "succeeded"
	})
	state, attempt := liveOrFinished(t, admin, id)
	require.Equal(t, "succeeded", state)
	require.Equal(t, 2, attempt, "it ran exactly once more")
	body, err := os.ReadFile(filepath.Join(runs, strconv.FormatInt(id, 10)))
	require.NoError(t, err)
	require.Equal(t, "1\n2\n", string(body), "attempt 1 on worker-a, attempt 2 on worker-b, nothing else")
}

// SIGTERM to a worker whose command handler runs past --shutdown-grace: the command's group gets
// SIGTERM, then SIGKILL after the file's kill_grace when it ignores it; the job is handed back
// with its attempt unused and the worker exits 0.
func TestWorkerConfigSIGTERMStopsTheCommandThenKillsIt(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	dir, runs := t.TempDir(), t.TempDir()
	// The shell ignores SIGTERM (it notes it); each sleep of its loop dies of it.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stubborn.sh"), []byte(`#!/bin/sh
cat > /dev/null
trap 'echo term >> "$RUNS/signals"' TERM
echo $$ > "$RUNS/pids"
while :; do sleep 0.2; done
`), 0o755))
	config := filepath.Join(dir, "worker.toml")
	require.NoError(t, os.WriteFile(config, []byte(`
[worker]
shutdown_grace = "1s"

[handlers.stubborn]
command = ["./stubborn.sh"]
inherit_env = ["PATH", "RUNS"]
kill_grace = "2s"
`), 0o600))
	require.NoError(t, jobq.NewClient(admin).DefineTask(context.Background(), jobq.TaskDefinition{Name: "stubborn"}))
	w := startWorker(t, []string{"RUNS=" + runs}, "--database-url", db.URL("worker_runtime"), "--config", config)
	waitStarted(t, w)
	id := enqueue(t, jobq.NewClient(admin), "stubborn", nil, jobq.EnqueueOptions{})
	var pids []int
	waitUntil(t, waitCeiling, "the command runs", func() bool {
		pids = readPids(t, filepath.Join(runs, "pids"))
		return len(pids) == 1
	})
	w.Signal(syscall.SIGTERM)
	require.Equal(t, 0, w.Wait(waitCeiling), "a clean drain")
	require.False(t, alive(pids[0]), "killed after ignoring SIGTERM")
	signals, err := os.ReadFile(filepath.Join(runs, "signals"))
	require.NoError(t, err)
	require.Contains(t, string(signals), "term", "it got SIGTERM first")
	state, attempt := liveOrFinished(t, admin, id)
	require.Equal(t, "queued", state, "handed back")
	require.Equal(t, 0, attempt, "the attempt is not counted")
}
