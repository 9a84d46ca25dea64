package worker

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jobqdev/jobq/runner"
)

// Flags are the settings every worker process has. Each has a flag and an environment
// variable V (WORKER_CONCURRENCY, SENTRY_DSN, ...) with its JOBQ_ equivalent JOBQ_V
// (JOBQ_WORKER_CONCURRENCY, JOBQ_SENTRY_DSN, ...), and all but the secrets (the database URLs,
// the Sentry DSN) a key of the configuration file's [worker] table (concurrency, queues, ...):
// the flag wins, then JOBQ_V, then V, then the file, then the default. The worker
// never reads JOBQ_DATABASE_URL, the operator commands' URL, so an operator login in the
// environment cannot become the worker's role. The defaults are those of runner.Config unless stated.
type Flags struct {
	DatabaseURL       string        // --database-url, $WORKER_DATABASE_URL: a worker_runtime URL; required
	Concurrency       int           // --concurrency, $WORKER_CONCURRENCY: most jobs at once
	Queues            string        // --queues, $WORKER_QUEUES: comma-separated, in priority order
	Lease             time.Duration // --lease, $WORKER_LEASE: 0 = the setting default_lease
	PollInterval      time.Duration // --poll-interval, $WORKER_POLL_INTERVAL: 0 = the setting poll_interval
	HeartbeatInterval time.Duration // --heartbeat-interval, $WORKER_HEARTBEAT_INTERVAL: 0 = a third of the lease
	ShutdownGrace     time.Duration // --shutdown-grace, $WORKER_SHUTDOWN_GRACE
	ClaimAhead        time.Duration // --claim-ahead, $WORKER_CLAIM_AHEAD: negative = only for free slots
	RescanInterval    time.Duration // --rescan-interval, $WORKER_RESCAN_INTERVAL: how often to look for passed-over jobs; negative = every claim from the head
	HealthAddr        string        // --health-addr, $WORKER_HEALTH_ADDR: default DefaultHealthAddr; "" = do not serve
	SentryDSN         string        // --sentry-dsn, $SENTRY_DSN: "" = no Sentry
	WorkerID          string        // --worker-id, $WORKER_ID: "" = host-pid-random
	LogLevel          string        // --log-level, $WORKER_LOG_LEVEL: default "info"
	NoLeader          bool          // --no-leader, $WORKER_NO_LEADER: never run jobq.maintain
	MaxUnwritten      int           // --max-unwritten-results, $WORKER_MAX_UNWRITTEN_RESULTS: 0 = 10 × concurrency, at least 1000
	Once              bool          // --once, $WORKER_ONCE: stop once no job is due and none runs (runner.Config.Once)
	Wakeup            string        // --wakeup, $WORKER_WAKEUP: notify (the default) or wal; see runner.Config.Wakeup
	// WakeupDatabaseURL is --wakeup-database-url, $WAKEUP_DATABASE_URL: the jobq_waker URL of the
	// WAL wake-up's replication connection (runner.Config.WakeupURL), used only with --wakeup wal.
	// Default "": the host, port and database of --database-url with user jobq_waker and no password.
	WakeupDatabaseURL string
	// ConfigPath is --config, $WORKER_CONFIG: the configuration file (docs/worker-config.md).
	// Default "": none.
	ConfigPath string
	// Check is --check: check the flags and the file, print every problem and exit (2 when
	// any, else 0); no job runs.
	Check bool
	// File is the configuration file read from ConfigPath; nil without one.
	File *File
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

// EnvPrefix is the prefix of the JOBQ_ equivalent of every worker variable: JOBQ_ + its name.
const EnvPrefix = "JOBQ_"

// lookupEnv returns the value of JOBQ_+variable, else of variable, and the name it came from.
// An empty variable counts as unset unless emptyIsSet.
func lookupEnv(variable string, emptyIsSet bool) (value, from string, ok bool) {
	for _, name := range []string{EnvPrefix + variable, variable} {
		if v, set := os.LookupEnv(name); set && (v != "" || emptyIsSet) {
			return v, name, true
		}
	}
	return "", "", false
}

// FlagSet is a flag.FlagSet whose flags each have an environment variable, applied after
// parsing to the flags not given (so -h never prints a value from the environment: a database
// URL holds a password).
type FlagSet struct {
	*flag.FlagSet
	env map[string]string
}

// String defines a string flag with its environment variable.
func (fs *FlagSet) String(p *string, name, variable, def, usage string) {
	fs.StringVar(p, name, def, usage+" ($"+EnvPrefix+variable+" or $"+variable+")")
	fs.env[name] = variable
}

// Duration defines a duration flag with its environment variable.
func (fs *FlagSet) Duration(p *time.Duration, name, variable string, def time.Duration, usage string) {
	fs.DurationVar(p, name, def, usage+" ($"+EnvPrefix+variable+" or $"+variable+")")
	fs.env[name] = variable
}

// Int defines an int flag with its environment variable.
func (fs *FlagSet) Int(p *int, name, variable string, def int, usage string) {
	fs.IntVar(p, name, def, usage+" ($"+EnvPrefix+variable+" or $"+variable+")")
	fs.env[name] = variable
}

// Bool defines a bool flag with its environment variable.
func (fs *FlagSet) Bool(p *bool, name, variable string, def bool, usage string) {
	fs.BoolVar(p, name, def, usage+" ($"+EnvPrefix+variable+" or $"+variable+")")
	fs.env[name] = variable
}

// DefaultHealthAddr is where a worker serves /healthz, /readyz and /metrics unless told otherwise:
// this machine only (the metrics name every queue and task), and another port than the
// dashboard's 127.0.0.1:8080, so that a worker and a dashboard start side by side. A container
// or a scraper on another host sets --health-addr (docker-compose.yml: ":8080").
const DefaultHealthAddr = "127.0.0.1:8081"

// ParseFlags parses args, the environment and the --config file into Flags, with prog's own
// flags. It returns flag.ErrHelp after printing the help for -h, and a UsageError naming every
// problem (one per line) for anything wrong; with --check, it returns the Flags and a
// *ConfigError listing the problems instead, so that Main prints them all.
func ParseFlags(prog Program, args []string, stderr io.Writer) (*Flags, error) {
	fs := &FlagSet{FlagSet: flag.NewFlagSet(prog.Name, flag.ContinueOnError), env: map[string]string{}}
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s [flags]\n\n%s", prog.Name, prog.Usage)
		if prog.Usage != "" && !strings.HasSuffix(prog.Usage, "\n") {
			fmt.Fprintln(stderr)
		}
		fmt.Fprintln(stderr, "\nEvery flag can also be set by the environment variable named in its description; the flag wins.")
		fs.PrintDefaults()
	}
	f := &Flags{}
	fs.String(&f.DatabaseURL, "database-url", "WORKER_DATABASE_URL", "", "worker_runtime URL of the database; never the migrator's")
	fs.Int(&f.Concurrency, "concurrency", "WORKER_CONCURRENCY", runner.DefaultConcurrency, "most jobs run at once")
	fs.String(&f.Queues, "queues", "WORKER_QUEUES", runner.DefaultQueue, "comma-separated queues to serve, in priority order")
	fs.Duration(&f.Lease, "lease", "WORKER_LEASE", 0, "lease per claim and heartbeat; 0 = the setting default_lease, 30s as shipped")
	fs.Duration(&f.PollInterval, "poll-interval", "WORKER_POLL_INTERVAL", 0, "how often to claim without a notification; 0 = the setting poll_interval, 1s as shipped")
	fs.Duration(&f.HeartbeatInterval, "heartbeat-interval", "WORKER_HEARTBEAT_INTERVAL", 0, "how often to renew held leases; 0 = a third of the lease")
	fs.Duration(&f.ClaimAhead, "claim-ahead", "WORKER_CLAIM_AHEAD", runner.DefaultClaimAhead,
		"claim ahead of free slots while handlers return at least this often; a job waits ahead at most 10x this (min 1s); negative = claim only for free slots")
	fs.Duration(&f.RescanInterval, "rescan-interval", "WORKER_RESCAN_INTERVAL", runner.DefaultRescanInterval,
		"claims start where the last ones got to; this often, ask whether they passed over a due job (late commit, past run_at) and if so claim from the head; negative = every claim from the head")
	fs.Duration(&f.ShutdownGrace, "shutdown-grace", "WORKER_SHUTDOWN_GRACE", runner.DefaultShutdownGrace,
		"how long running jobs may finish after SIGTERM before they are handed back")
	fs.String(&f.HealthAddr, "health-addr", "WORKER_HEALTH_ADDR", DefaultHealthAddr, "address of /healthz, /readyz and /metrics; empty = do not serve")
	fs.String(&f.SentryDSN, "sentry-dsn", "SENTRY_DSN", "", "Sentry DSN: one event per dead job; empty = off")
	fs.String(&f.WorkerID, "worker-id", "WORKER_ID", "", "name of this worker in locked_by; empty = host-pid-random")
	fs.String(&f.LogLevel, "log-level", "WORKER_LOG_LEVEL", "info", "debug, info, warn or error")
	fs.Bool(&f.Once, "once", "WORKER_ONCE", false, "drain what is due, then exit 0: stop once a claim finds no due job while none runs (for cron-driven deployments)")
	fs.Int(&f.MaxUnwritten, "max-unwritten-results", "WORKER_MAX_UNWRITTEN_RESULTS", 0,
		"results waiting to be written (database slow or away) beyond which the worker claims nothing; 0 = ten times --concurrency, at least 1000")
	fs.Bool(&f.NoLeader, "no-leader", "WORKER_NO_LEADER", false, "never take the leadership, so never run jobq.maintain (cron slots, lost workers, retention); it still sweeps expired leases")
	fs.String(&f.Wakeup, "wakeup", "WORKER_WAKEUP", string(runner.WakeupNotify),
		"how to learn of new jobs between polls: notify (LISTEN) or wal (logical replication as jobq_waker; needs the setting wakeup wal or both)")
	fs.String(&f.WakeupDatabaseURL, "wakeup-database-url", "WAKEUP_DATABASE_URL", "",
		"jobq_waker URL of the replication connection of --wakeup wal; empty = the host and database of --database-url as user jobq_waker, no password")
	fs.String(&f.ConfigPath, "config", "WORKER_CONFIG", "", "TOML file: a [worker] table of these flags' values (the flags and the environment win) and [handlers.<name>] tables (docs/worker-config.md)")
	fs.BoolVar(&f.Check, "check", false, "check the flags and the --config file, print every problem, exit 2 if any (0 and \"ok: N handlers\" if none); connects only when a database URL is set, to list the tasks each handler would serve")
	if prog.Flags != nil {
		prog.Flags(fs)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, UsageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return nil, UsageError{fmt.Sprintf("takes no arguments, got %q", fs.Args())}
	}
	given := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	for name, variable := range fs.env {
		// An empty variable counts as unset, but for --health-addr, where empty means "off".
		v, from, ok := lookupEnv(variable, name == "health-addr")
		if given[name] || !ok {
			continue
		}
		if err := fs.Set(name, v); err != nil {
			return nil, UsageError{fmt.Sprintf("%s=%q: %v", from, v, err)}
		}
		given[name] = true
	}
	var problems []string
	if f.ConfigPath != "" {
		file, fileProblems := LoadFile(f.ConfigPath, prog.BuiltinTasks, os.LookupEnv)
		problems = append(problems, fileProblems...)
		if file != nil {
			problems = append(problems, applyFile(fs, file, given)...)
			f.File = file
		}
	}
	problems = append(problems, f.problems()...)
	if len(problems) > 0 {
		if f.Check {
			// --check prints them all; Main knows.
			return f, &ConfigError{Problems: problems}
		}
		return nil, UsageError{strings.Join(problems, "\n")}
	}
	return f, nil
}

// problems are what is wrong with the flags once parsed, each a line.
func (f *Flags) problems() []string {
	var p []string
	if f.DatabaseURL == "" && !f.Check {
		p = append(p, "needs --database-url, JOBQ_WORKER_DATABASE_URL or WORKER_DATABASE_URL (a worker_runtime URL; never the migrator's)")
	}
	if f.Concurrency < 1 {
		p = append(p, "--concurrency must be at least 1")
	}
	if f.Wakeup != string(runner.WakeupNotify) && f.Wakeup != string(runner.WakeupWAL) {
		p = append(p, fmt.Sprintf("--wakeup (or WORKER_WAKEUP) must be %s or %s, got %q", runner.WakeupNotify, runner.WakeupWAL, f.Wakeup))
	}
	if f.Lease < 0 || f.PollInterval < 0 || f.HeartbeatInterval < 0 || f.ShutdownGrace <= 0 {
		p = append(p, "--lease, --poll-interval and --heartbeat-interval must not be negative; --shutdown-grace must be positive")
	}
	return p
}
