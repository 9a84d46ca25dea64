package worker

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/jobqdev/jobq/internal/cliconf"
	"github.com/jobqdev/jobq/runner"
)

// Flags are the settings every worker process has, as kong flags. Each has the environment
// variable JOBQ_WORKER_ + its flag name in upper snake case (JOBQ_WORKER_CONCURRENCY, ...;
// --worker-id is JOBQ_WORKER_ID), and all but the secrets (the database URLs, the Sentry DSN) a
// key of the configuration file's [worker] table (concurrency, queues, ...): the flag wins, then
// the variable, then the file, then the default (docs/configuration.md). The names of earlier
// releases (WORKER_CONCURRENCY, SENTRY_DSN, ...) are still read for this release, each with a
// deprecation warning. The worker never reads JOBQ_DATABASE_URL, the operator commands' URL, so
// an operator login in the environment cannot become the worker's role. The defaults are those
// of runner.Config (runner.DefaultConcurrency, ...); Lease and PollInterval default to the
// database's settings default_lease and poll_interval (jobq.settings).
type Flags struct {
	// DatabaseURL is a worker_runtime URL; required.
	DatabaseURL string `name:"database-url" env:"JOBQ_WORKER_DATABASE_URL" oldenv:"WORKER_DATABASE_URL" secret:"" placeholder:"URL" help:"worker_runtime URL of the database; never the migrator's"`
	// Concurrency is the most jobs run at once. Default runner.DefaultConcurrency.
	Concurrency int `name:"concurrency" env:"JOBQ_WORKER_CONCURRENCY" oldenv:"WORKER_CONCURRENCY" default:"${worker_concurrency}" help:"most jobs run at once"`
	// Queues are the queues served, comma-separated, in priority order. Default runner.DefaultQueue.
	Queues string `name:"queues" env:"JOBQ_WORKER_QUEUES" oldenv:"WORKER_QUEUES" default:"${worker_queue}" help:"comma-separated queues to serve, in priority order"`
	// Lease is the lease per claim and heartbeat. Default 0: the database's setting default_lease.
	Lease time.Duration `name:"lease" env:"JOBQ_WORKER_LEASE" oldenv:"WORKER_LEASE" setting:"default_lease" help:"lease per claim and heartbeat; 0 = the database's setting default_lease"`
	// PollInterval is how often to claim without a notification. Default 0: the database's
	// setting poll_interval.
	PollInterval time.Duration `name:"poll-interval" env:"JOBQ_WORKER_POLL_INTERVAL" oldenv:"WORKER_POLL_INTERVAL" setting:"poll_interval" help:"how often to claim without a notification; 0 = the database's setting poll_interval"`
	// HeartbeatInterval is how often to renew held leases. Default 0: a third of the lease.
	HeartbeatInterval time.Duration `name:"heartbeat-interval" env:"JOBQ_WORKER_HEARTBEAT_INTERVAL" oldenv:"WORKER_HEARTBEAT_INTERVAL" help:"how often to renew held leases; 0 = a third of the lease"`
	// ClaimAhead: claim ahead of free slots while handlers return at least this often; negative =
	// only for free slots. Default runner.DefaultClaimAhead.
	ClaimAhead time.Duration `name:"claim-ahead" env:"JOBQ_WORKER_CLAIM_AHEAD" oldenv:"WORKER_CLAIM_AHEAD" default:"${worker_claim_ahead}" help:"claim ahead of free slots while handlers return at least this often; a job waits ahead at most 10x this (min 1s); negative = claim only for free slots"`
	// RescanInterval is how often to look for passed-over jobs; negative = every claim from the
	// head. Default runner.DefaultRescanInterval.
	RescanInterval time.Duration `name:"rescan-interval" env:"JOBQ_WORKER_RESCAN_INTERVAL" oldenv:"WORKER_RESCAN_INTERVAL" default:"${worker_rescan_interval}" help:"claims start where the last ones got to; this often, ask whether they passed over a due job (late commit, past run_at) and if so claim from the head; negative = every claim from the head"`
	// ShutdownGrace is how long running jobs may finish after SIGTERM. Default
	// runner.DefaultShutdownGrace.
	ShutdownGrace time.Duration `name:"shutdown-grace" env:"JOBQ_WORKER_SHUTDOWN_GRACE" oldenv:"WORKER_SHUTDOWN_GRACE" default:"${worker_shutdown_grace}" help:"how long running jobs may finish after SIGTERM before they are handed back"`
	// HealthAddr is the address of /healthz, /readyz and /metrics. Default DefaultHealthAddr;
	// "" = do not serve.
	HealthAddr string `name:"health-addr" env:"JOBQ_WORKER_HEALTH_ADDR" oldenv:"WORKER_HEALTH_ADDR" keepempty:"" default:"${worker_health_addr}" placeholder:"HOST:PORT" help:"address of /healthz, /readyz and /metrics; empty = do not serve"`
	// SentryDSN: one Sentry event per dead job. Default "": no Sentry.
	SentryDSN string `name:"sentry-dsn" env:"JOBQ_WORKER_SENTRY_DSN" oldenv:"JOBQ_SENTRY_DSN,SENTRY_DSN" secret:"" placeholder:"DSN" help:"Sentry DSN: one event per dead job; empty = off"`
	// WorkerID is this worker's name in locked_by. Default "": host-pid-random.
	WorkerID string `name:"worker-id" env:"JOBQ_WORKER_ID" oldenv:"WORKER_ID" placeholder:"NAME" help:"name of this worker in locked_by; empty = host-pid-random"`
	// LogLevel is debug, info, warn or error. Default info.
	LogLevel string `name:"log-level" env:"JOBQ_WORKER_LOG_LEVEL" oldenv:"WORKER_LOG_LEVEL" default:"info" placeholder:"LEVEL" help:"debug, info, warn or error"`
	// Once: stop once no job is due and none runs (runner.Config.Once). Default false.
	Once bool `name:"once" env:"JOBQ_WORKER_ONCE" oldenv:"WORKER_ONCE" help:"drain what is due, then exit 0: stop once a claim finds no due job while none runs (for cron-driven deployments)"`
	// MaxUnwritten: results waiting to be written beyond which the worker claims nothing.
	// Default 0: ten times Concurrency, at least runner.MinMaxUnwrittenResults.
	MaxUnwritten int `name:"max-unwritten-results" env:"JOBQ_WORKER_MAX_UNWRITTEN_RESULTS" oldenv:"WORKER_MAX_UNWRITTEN_RESULTS" help:"results waiting to be written (database slow or away) beyond which the worker claims nothing; 0 = ten times --concurrency, at least ${worker_min_max_unwritten}"`
	// NoLeader: never run jobq.maintain. Default false.
	NoLeader bool `name:"no-leader" env:"JOBQ_WORKER_NO_LEADER" oldenv:"WORKER_NO_LEADER" help:"never take the leadership, so never run jobq.maintain (cron slots, lost workers, retention); it still sweeps expired leases"`
	// Wakeup is notify or wal; see runner.Config.Wakeup. Default notify.
	Wakeup string `name:"wakeup" env:"JOBQ_WORKER_WAKEUP" oldenv:"WORKER_WAKEUP" default:"${worker_wakeup}" placeholder:"notify|wal" help:"how to learn of new jobs between polls: notify (LISTEN) or wal (logical replication as jobq_waker; needs the setting wakeup wal or both)"`
	// WakeupDatabaseURL is the jobq_waker URL of the WAL wake-up's replication connection
	// (runner.Config.WakeupURL), used only with --wakeup wal. Default "": the host, port and
	// database of --database-url with user jobq_waker and no password.
	WakeupDatabaseURL string `name:"wakeup-database-url" env:"JOBQ_WORKER_WAKEUP_DATABASE_URL" oldenv:"JOBQ_WAKEUP_DATABASE_URL,WAKEUP_DATABASE_URL" secret:"" placeholder:"URL" help:"jobq_waker URL of the replication connection of --wakeup wal; empty = the host and database of --database-url as user jobq_waker, no password"`
	// ConfigPath is the configuration file (docs/worker-config.md). Default "": none.
	ConfigPath string `name:"config" env:"JOBQ_WORKER_CONFIG" oldenv:"WORKER_CONFIG" configfile:"worker" placeholder:"FILE" help:"TOML file: a [worker] table of these flags' values (the flags and the environment win) and [handlers.<name>] tables (docs/worker-config.md)"`
	// Check: check the flags and the file, print every problem and exit (2 when any, else 0);
	// no job runs.
	Check bool `name:"check" nofile:"" help:"check the flags and the --config file, print every problem, exit 2 if any (0 and \"ok: N handlers\" if none); connects only when a database URL is set, to list the tasks each handler would serve"`

	// File is the configuration file read from ConfigPath; nil without one.
	File *File `kong:"-"`

	// fileProblems are the problems the resolver found in the [worker] table (AfterApply).
	fileProblems []string
}

// Vars are the kong variables of Flags' defaults: give them (kong.Vars) to the parser of a
// command tree that embeds Flags. Each default is stated once, in package runner or here.
func Vars() kong.Vars {
	return kong.Vars{
		"worker_concurrency":       strconv.Itoa(runner.DefaultConcurrency),
		"worker_queue":             runner.DefaultQueue,
		"worker_claim_ahead":       runner.DefaultClaimAhead.String(),
		"worker_rescan_interval":   runner.DefaultRescanInterval.String(),
		"worker_shutdown_grace":    runner.DefaultShutdownGrace.String(),
		"worker_health_addr":       DefaultHealthAddr,
		"worker_wakeup":            string(runner.WakeupNotify),
		"worker_min_max_unwritten": strconv.Itoa(runner.MinMaxUnwrittenResults),
	}
}

// AfterApply keeps the problems the resolver found in the --config file's [worker] table (a
// key that is no flag, a secret, a value the flag refuses) for Run.
func (f *Flags) AfterApply(kctx *kong.Context, res *cliconf.Resolver) error {
	f.fileProblems = res.Problems(kctx)
	return nil
}

// QueueList returns Queues as a list, without empty entries.
func (f *Flags) QueueList() []string {
	var qs []string
	for _, q := range strings.Split(f.Queues, ",") {
		if q = strings.TrimSpace(q); q != "" {
			qs = append(qs, q)
		}
	}
	return qs
}

// EnvPrefix is the prefix of every jobq environment variable.
const EnvPrefix = "JOBQ_"

// DefaultHealthAddr is where a worker serves /healthz, /readyz and /metrics unless told otherwise:
// this machine only (the metrics name every queue and task), and another port than the
// dashboard's 127.0.0.1:8080, so that a worker and a dashboard start side by side. A container
// or a scraper on another host sets --health-addr (docker-compose.yml: ":8080").
const DefaultHealthAddr = "127.0.0.1:8081"

// LoadWorkerTable is the cliconf.FileLoader of the [worker] table: the flag values of the file
// at path. Its problems are reported by Run, which reads the whole file.
func LoadWorkerTable(path, table string) (map[string]string, []string) {
	f, _ := LoadFile(path, nil, os.LookupEnv)
	if f == nil || table != "worker" {
		return nil, nil
	}
	return f.Worker, nil
}

// NewResolver returns the configuration resolver of a worker process: JOBQ_WORKER_ variables,
// their old names (with a warning on stderr prefixed by name) and the [worker] table of --config.
func NewResolver(name string, stderr io.Writer) *cliconf.Resolver {
	return &cliconf.Resolver{Stderr: stderr, Prefix: name + ": ", Load: LoadWorkerTable}
}

// kongExit carries kong's exit request (after -h) out of Parse.
type kongExit int

// parser is the kong parser of prog's flags, f embedding prog.Flags.
func parser(prog Program, f *Flags, res *cliconf.Resolver, stdout, stderr io.Writer) (*kong.Kong, error) {
	opts := []kong.Option{
		kong.Name(prog.Name),
		kong.Description(prog.Usage),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(kongExit(code)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		Vars(),
		kong.Resolvers(res),
		kong.Bind(res),
	}
	if prog.Flags != nil {
		opts = append(opts, kong.Embed(prog.Flags))
	}
	if prog.Vars != nil {
		opts = append(opts, prog.Vars)
	}
	return kong.New(f, opts...)
}

// parse parses args with kong. help is true after -h (printed to stdout).
func parse(prog Program, args []string, stdout, stderr io.Writer) (f *Flags, help bool, err error) {
	f = &Flags{}
	k, err := parser(prog, f, NewResolver(prog.Name, stderr), stdout, stderr)
	if err != nil {
		return nil, false, err
	}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(kongExit); !ok {
				panic(r)
			}
			f, help, err = nil, true, nil
		}
	}()
	if _, err := k.Parse(args); err != nil {
		return nil, false, UsageError{err.Error()}
	}
	return f, false, nil
}

// ParseFlags parses args, the environment and the --config file into Flags, with prog's own
// flags (warnings and help to stderr). It returns a UsageError naming every problem (one per
// line) for anything wrong; with --check, it returns the Flags and a *ConfigError listing the
// problems instead.
func ParseFlags(prog Program, args []string, stderr io.Writer) (*Flags, error) {
	f, help, err := parse(prog, args, stderr, stderr)
	if err != nil {
		return nil, err
	}
	if help {
		return nil, UsageError{"help requested"}
	}
	problems := f.Problems(prog)
	if len(problems) > 0 {
		if f.Check {
			return f, &ConfigError{Problems: problems}
		}
		return nil, UsageError{strings.Join(problems, "\n")}
	}
	return f, nil
}

// Problems reads the --config file (setting f.File) and returns every problem of the file and of
// the flags, each a line.
func (f *Flags) Problems(prog Program) []string {
	var problems []string
	if f.ConfigPath != "" {
		file, fileProblems := LoadFile(f.ConfigPath, prog.BuiltinTasks, os.LookupEnv)
		problems = append(problems, fileProblems...)
		problems = append(problems, f.fileProblems...)
		f.File = file
	}
	return append(problems, f.problems()...)
}

// problems are what is wrong with the flags once parsed, each a line.
func (f *Flags) problems() []string {
	var p []string
	if f.DatabaseURL == "" && !f.Check {
		p = append(p, "needs --database-url or JOBQ_WORKER_DATABASE_URL (a worker_runtime URL; never the migrator's)")
	}
	if f.Concurrency < 1 {
		p = append(p, "--concurrency must be at least 1")
	}
	if f.Wakeup != string(runner.WakeupNotify) && f.Wakeup != string(runner.WakeupWAL) {
		p = append(p, fmt.Sprintf("--wakeup (or JOBQ_WORKER_WAKEUP) must be %s or %s, got %q", runner.WakeupNotify, runner.WakeupWAL, f.Wakeup))
	}
	if f.Lease < 0 || f.PollInterval < 0 || f.HeartbeatInterval < 0 || f.ShutdownGrace <= 0 {
		p = append(p, "--lease, --poll-interval and --heartbeat-interval must not be negative; --shutdown-grace must be positive")
	}
	return p
}
