package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
	"github.com/jobqdev/jobq/worker"
)

const workerUsage = `Runs jobs as worker_runtime: LISTENs for new jobs (or, with --wakeup wal, reads the logical
messages of enqueue from a temporary replication slot as jobq_waker) and polls, claims them,
runs their handlers, renews their leases and writes their results, all through the jobq SQL engine. Registers in
jobq.workers and heartbeats it: jobq.drain_worker stops its claims (held jobs finish),
jobq.resume_worker restarts them, jobq.detach_worker stops them for good; setting changes
(jobq.set_setting) apply at the next heartbeat. Unless --no-leader, competes for the leadership:
the leader runs jobq.maintain (cron slots, lost workers, rescue of expired leases, retention)
every maintain_interval, fenced by its epoch. Serves /healthz, /readyz and /metrics on
--health-addr. SIGTERM or SIGINT stops claiming and lets running jobs
finish for --shutdown-grace, then hands the rest back to the queue; a second signal stops at once.
With --once it drains what is due and exits 0 (for cron-driven deployments).
Exit status: 0 after a clean drain, 1 on an error (WORKER.UNSAFE_ROLE among them), 2 on bad flags
or a bad --config file.

With --config FILE (or JOBQ_WORKER_CONFIG) it also runs the handlers the file names: each
[handlers.<name>] table is a command or an HTTP endpoint (docs/worker-config.md). At start the
worker asks jobq.served_tasks which declared tasks use those names (jobq.tasks.handler, else the
task's own name) and serves exactly those: the database supplies names, never a command or a URL.
--check checks the flags and the file, prints every problem and exits 2 (0 and "ok: N handlers"
when none); with a database URL set it also lists the tasks each handler would serve.

Built-in tasks, declared in jobq.tasks at start (system tasks, any JSON object as payload):
  ping   completes at once (smoke test)
  exec   runs --exec-command with /bin/sh -c, the payload as JSON on standard input and
         JOBQ_JOB_ID, JOBQ_TASK, JOBQ_QUEUE, JOBQ_ATTEMPT, JOBQ_MAX_ATTEMPTS, JOBQ_STORE_ID in its
         environment; exit status 0 completes the job, anything else fails the attempt with the
         tail of the output kept in last_error. The command's environment is the worker's less
         WORKER_DATABASE_URL, WAKEUP_DATABASE_URL, SENTRY_DSN, DATABASE_URL_MIGRATOR,
         DATABASE_URL_ADMIN, their JOBQ_ equivalents and JOBQ_DATABASE_URL. Without
         --exec-command the task is neither declared nor served (its jobs fail with
         JOB.UNKNOWN_TASK and retry).
`

// execFlags are the flags of jobq worker's exec task.
type execFlags struct {
	command string
	timeout time.Duration
}

// workerProgram is jobq worker: the common worker process with the built-in tasks ping and exec.
func workerProgram() worker.Program {
	ex := &execFlags{}
	return worker.Program{
		Name:  "jobq worker",
		Usage: workerUsage,
		Flags: func(fs *worker.FlagSet) {
			fs.String(&ex.command, "exec-command", "WORKER_EXEC_COMMAND", "", "shell command the exec task runs")
			fs.Duration(&ex.timeout, "exec-timeout", "WORKER_EXEC_TIMEOUT", runner.DefaultExecTimeout, "longest run of one exec job")
		},
		Configure: func(cfg *runner.Config, env worker.Env) error {
			if ex.timeout <= 0 {
				return worker.UsageError{Msg: "--exec-timeout must be positive"}
			}
			cfg.Tasks = builtinTasks(ex)
			return nil
		},
		Setup: func(ctx context.Context, r *runner.Runner, env worker.Env) error {
			return registerBuiltins(r, ex, env.Log)
		},
		BuiltinTasks: []string{"ping", "exec"},
	}
}

// cmdWorker runs the job runner as a process and returns its exit status.
func cmdWorker(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return worker.Main(ctx, workerProgram(), args, stdout, stderr)
}

// builtinTasks are the declarations of the built-in tasks this worker serves: ping, and exec when
// a command is configured. Both are system tasks without a payload contract (any JSON object).
func builtinTasks(ex *execFlags) []jobq.TaskDefinition {
	defs := []jobq.TaskDefinition{{
		Name: "ping", Scope: jobq.ScopeSystem,
		Description: "jobq worker built-in: completes at once (smoke test).",
	}}
	if ex.command != "" {
		defs = append(defs, jobq.TaskDefinition{
			Name: "exec", Scope: jobq.ScopeSystem,
			Description: "jobq worker built-in: runs --exec-command with the payload as JSON on standard input.",
		})
	}
	return defs
}

// registerBuiltins registers ping and, when a command is configured, exec.
func registerBuiltins(r *runner.Runner, ex *execFlags, log *slog.Logger) error {
	r.HandleFunc("ping", func(ctx context.Context, job *jobq.Job) error {
		log.Info("pong", "jobId", job.ID)
		return nil
	})
	if ex.command == "" {
		return nil
	}
	h, err := runner.Exec(runner.ExecConfig{
		Command: []string{"/bin/sh", "-c", ex.command},
		Timeout: ex.timeout,
		Env:     execEnv(),
	})
	if err != nil {
		return err
	}
	r.Handle("exec", h)
	return nil
}

// execEnv is the worker's environment without its secrets: commands get no database URL or DSN
// they were not given on purpose.
func execEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == worker.EnvPrefix+"DATABASE_URL" { // the operator commands' URL
			continue
		}
		switch strings.TrimPrefix(name, worker.EnvPrefix) {
		case "WORKER_DATABASE_URL", "WAKEUP_DATABASE_URL", "SENTRY_DSN", "DATABASE_URL_MIGRATOR", "DATABASE_URL_ADMIN":
			continue
		}
		env = append(env, kv)
	}
	return env
}
