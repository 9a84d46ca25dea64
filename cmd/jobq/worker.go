package main

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/alecthomas/kong"

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
or a bad --config file. Each flag's value comes from the command line, else its JOBQ_WORKER_
variable, else the [worker] table of --config, else its default (docs/configuration.md; jobq config
worker prints them).

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
         every variable of a database URL or a DSN (JOBQ_*DATABASE_URL, JOBQ_WORKER_SENTRY_DSN
         and their old names, but DATABASE_URL, the application's own). Without
         --exec-command the task is neither declared nor served (its jobs fail with
         JOB.UNKNOWN_TASK and retry).
`

// workerCmd is jobq worker: the common worker flags (worker.Flags) and the exec task's.
type workerCmd struct {
	worker.Flags `embed:""`
	Exec         execFlags `embed:""`
}

// Help is the long help of jobq worker.
func (c *workerCmd) Help() string { return workerUsage }

func (c *workerCmd) Run(e *env) error {
	return exitStatus(worker.Run(e.ctx, newWorkerProgram(&c.Exec), &c.Flags, e.stdout, e.stderr))
}

// execFlags are the flags of jobq worker's exec task.
type execFlags struct {
	// Command is the shell command the exec task runs. Default "": no exec task.
	Command string `name:"exec-command" env:"JOBQ_WORKER_EXEC_COMMAND" oldenv:"WORKER_EXEC_COMMAND" placeholder:"CMD" help:"shell command the exec task runs"`
	// Timeout is the longest run of one exec job. Default runner.DefaultExecTimeout.
	Timeout time.Duration `name:"exec-timeout" env:"JOBQ_WORKER_EXEC_TIMEOUT" oldenv:"WORKER_EXEC_TIMEOUT" default:"${worker_exec_timeout}" help:"longest run of one exec job"`
}

// execVars are the kong variables of execFlags' defaults.
func execVars() kong.Vars {
	return kong.Vars{"worker_exec_timeout": runner.DefaultExecTimeout.String()}
}

// workerProgram is jobq worker as a program of its own (worker.Main parses its exec flags).
func workerProgram() worker.Program {
	return newWorkerProgram(&execFlags{})
}

// newWorkerProgram is the common worker process with the built-in tasks ping and exec, ex its exec
// flags.
func newWorkerProgram(ex *execFlags) worker.Program {
	return worker.Program{
		Name:  "jobq worker",
		Usage: workerUsage,
		Flags: ex,
		Vars:  execVars(),
		Configure: func(cfg *runner.Config, env worker.Env) error {
			if ex.Timeout <= 0 {
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

// builtinTasks are the declarations of the built-in tasks this worker serves: ping, and exec when
// a command is configured. Both are system tasks without a payload contract (any JSON object).
func builtinTasks(ex *execFlags) []jobq.TaskDefinition {
	defs := []jobq.TaskDefinition{{
		Name: "ping", Scope: jobq.ScopeSystem,
		Description: "jobq worker built-in: completes at once (smoke test).",
	}}
	if ex.Command != "" {
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
	if ex.Command == "" {
		return nil
	}
	h, err := runner.Exec(runner.ExecConfig{
		Command: []string{"/bin/sh", "-c", ex.Command},
		Timeout: ex.Timeout,
		Env:     execEnv(),
	})
	if err != nil {
		return err
	}
	r.Handle("exec", h)
	return nil
}

// execEnv is the worker's environment without its secrets: commands get no database URL or DSN
// they were not given on purpose (secretEnv).
func execEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !secretEnv[name] {
			env = append(env, kv)
		}
	}
	return env
}

// secretEnv are the variables that hold a database URL or a DSN: the worker's, the wake-up's, the
// operator commands', the installers', under their JOBQ_ names and their old ones; not
// DATABASE_URL, the application's own variable by convention, which a command may need.
var secretEnv = map[string]bool{
	"JOBQ_DATABASE_URL": true, "JOBQ_WORKER_DATABASE_URL": true, "JOBQ_WORKER_WAKEUP_DATABASE_URL": true,
	"JOBQ_WORKER_SENTRY_DSN": true, "JOBQ_MIGRATE_DATABASE_URL": true, "JOBQ_BOOTSTRAP_DATABASE_URL": true,
	"JOBQ_DASHBOARD_DATABASE_URL": true, "JOBQ_OWNER_DATABASE_URL": true,
	// Old names, still read this release.
	"WORKER_DATABASE_URL": true, "JOBQ_WAKEUP_DATABASE_URL": true, "WAKEUP_DATABASE_URL": true,
	"SENTRY_DSN": true, "JOBQ_SENTRY_DSN": true, "DATABASE_URL_MIGRATOR": true, "DATABASE_URL_ADMIN": true,
	"JOBQ_DATABASE_URL_MIGRATOR": true, "JOBQ_DATABASE_URL_ADMIN": true,
}
