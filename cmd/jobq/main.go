// Command jobq installs, runs and operates jobq.
//
//	jobq bootstrap        create the roles (as a superuser); idempotent
//	jobq migrate up       apply the schema migrations (as jobq_migrator); --dry-run prints them
//	jobq migrate down     roll back the newest migration
//	jobq migrate status   list the migrations and whether each is applied
//	jobq migrate validate exit 1 while migrations or function files are pending
//	jobq sandbox -- CMD   run CMD against a throwaway local cluster, bootstrapped and migrated
//	jobq worker           run the job runner with the built-in tasks (ping, exec)
//	jobq jobs|dead|workers|leader|schedules|settings|audit ...   operate the queue (docs/cli.md)
//	jobq dashboard        serve the web dashboard (docs/dashboard.md)
//	jobq doctor           check roles, grants, RLS, search_path pins, schema drift, settings, leader lease
//	jobq stats            per-queue counts, lag and wait/run times (jobq.stats)
//	jobq config           the effective configuration and where each value came from
//	jobq version          the module version and VCS commit of this binary
//
// Commands, flags and environment variables are parsed by kong; `jobq help CMD` and `-h` on every
// command print the help. Connection URLs come from --database-url or the environment; see each
// command's -h.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/jobqdev/jobq/internal/cliconf"
	"github.com/jobqdev/jobq/migrate"
	"github.com/jobqdev/jobq/worker"
)

// cli is the command tree.
type cli struct {
	Bootstrap bootstrapCmd `cmd:"" help:"Create jobq's roles; run as a superuser before migrate."`
	Migrate   migrateCmd   `cmd:"" help:"Apply, roll back, list or validate the schema migrations (as jobq_migrator)."`
	Sandbox   sandboxCmd   `cmd:"" help:"Run CMD against a throwaway local PostgreSQL, bootstrapped and migrated."`
	Worker    workerCmd    `cmd:"" help:"Run jobs: claim, run handlers, complete / fail (as worker_runtime)."`

	Jobs      jobsCmd      `cmd:"" group:"operate" help:"List, show, retry, cancel or delete jobs (live and finished)."`
	Dead      deadCmd      `cmd:"" group:"operate" help:"List dead jobs or queue them again."`
	Batches   batchesCmd   `cmd:"" group:"operate" help:"List batches of jobs or show one: its state, counts and callbacks."`
	Workers   workersCmd   `cmd:"" group:"operate" help:"List the registered workers; drain, resume or detach one."`
	Queues    queuesCmd    `cmd:"" group:"operate" help:"List the queues; pause or resume one."`
	Leader    leaderCmd    `cmd:"" group:"operate" help:"Show the leadership: holder, epoch, lease; demote the leader."`
	Schedules schedulesCmd `cmd:"" group:"operate" help:"List the cron schedules; pause, resume or run one now."`
	Settings  settingsCmd  `cmd:"" group:"operate" help:"List, read or change the engine's settings."`
	Audit     auditCmd     `cmd:"" group:"operate" help:"Read the audit log of operator actions."`
	Stats     statsCmd     `cmd:"" group:"operate" help:"Per queue (and store): jobs by state, lag, dead and succeeded counts, wait and run times (jobq.stats)."`
	Dashboard dashboardCmd `cmd:"" group:"operate" help:"Serve the web dashboard (read-only until a person signs in with their own database login)."`
	Compact   compactCmd   `cmd:"" group:"operate" help:"Give jobq's tables back their size after a long transaction (as the tables' owner; jobq.upkeep_advice)."`
	Doctor    doctorCmd    `cmd:"" group:"operate" help:"Check roles, grants, row level security, search_path pins, schema drift, settings and the leader lease; exit 1 on a problem."`
	Version   versionCmd   `cmd:"" help:"Print the module version and VCS commit of this binary."`
	Codegen   codegenCmd   `cmd:"" help:"Write a TypeScript or Python module of typed payloads, enqueue and errors from jobq.tasks (docs/clients.md)."`
	Config    configCmd    `cmd:"" help:"Print the effective configuration of a command line (or of every command) and where each value came from."`

	VersionFlag kong.VersionFlag `name:"version" help:"Print jobq's version and commit and exit."`
}

// env is what every command's Run receives.
type env struct {
	ctx            context.Context
	stdout, stderr io.Writer
	// conf is the configuration resolver of this command line: Getenv for the variables that
	// are no flag (passwords), with their old names.
	conf *cliconf.Resolver
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// exitStatus is an exit status a command chose itself (worker, sandbox).
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// kongExit carries kong's exit request (after -h) out of Parse.
type kongExit int

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// newResolver is the configuration resolver of one command line: deprecation warnings go to
// stderr; --config files of jobq worker are read as the worker reads them.
func newResolver(stderr io.Writer) *cliconf.Resolver {
	return &cliconf.Resolver{Stderr: stderr, Prefix: "jobq: ", Load: worker.LoadWorkerTable}
}

// vars are the kong variables of the defaults the tree states by reference (worker.Vars and jobq
// worker's own).
func vars() kong.Vars {
	v := worker.Vars()
	v["version"] = versionLine()
	v["migrate_lock_wait"] = migrate.DefaultLockWait.String()
	for k, val := range execVars() {
		v[k] = val
	}
	return v
}

// newParser builds the kong parser writing to stdout and stderr, with a configuration resolver of
// its own; exit receives kong's exit requests (help).
func newParser(c *cli, stdout, stderr io.Writer) (*kong.Kong, error) {
	return newParserWith(c, newResolver(stderr), stdout, stderr)
}

// newParserWith is newParser with the configuration resolver res, which the caller reads after
// Parse (Source, Getenv).
func newParserWith(c *cli, res *cliconf.Resolver, stdout, stderr io.Writer) (*kong.Kong, error) {
	return kong.New(c,
		kong.Name("jobq"),
		kong.Description("A PostgreSQL-native job queue: install it, run its workers and operate it.\n\nOperator commands connect with --database-url or $JOBQ_DATABASE_URL, else libpq's PG* variables, as a login that is a member of jobq_operator. See docs/cli.md."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(kongExit(code)) }),
		kong.ExplicitGroups([]kong.Group{{Key: "operate", Title: "Operate (as a member of jobq_operator):"}}),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Help(lowerUsageHelp),
		vars(),
		kong.Resolvers(res),
		kong.Bind(res),
	)
}

// lowerUsageHelp prints kong's help with the usage line as jobq has always spelt it ("usage:").
func lowerUsageHelp(options kong.HelpOptions, ctx *kong.Context) error {
	var buf bytes.Buffer
	orig := ctx.Stdout
	ctx.Stdout = &buf
	err := kong.DefaultHelpPrinter(options, ctx)
	ctx.Stdout = orig
	out := buf.String()
	if strings.HasPrefix(out, "Usage:") {
		out = "usage:" + strings.TrimPrefix(out, "Usage:")
	}
	_, werr := io.WriteString(orig, out)
	return errors.Join(err, werr)
}

// run executes one command and returns the process exit code: 0, 1 on an error, 2 on a usage
// error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	c := &cli{}
	res := newResolver(stderr)
	parser, err := newParserWith(c, res, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "jobq:", err)
		return 1
	}
	if len(args) == 0 {
		printHelp(parser, stderr)
		return 2
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		// jobq help CMD... is CMD... --help.
		args = append(append([]string{}, args[1:]...), "--help")
	}
	if !strings.HasPrefix(args[0], "-") && !isCommand(parser, args[0]) {
		fmt.Fprintf(stderr, "jobq: unknown command %q\n\n", args[0])
		printHelp(parser, stderr)
		return 2
	}
	defer func() {
		if r := recover(); r != nil {
			k, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			code = int(k)
		}
	}()
	kctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintln(stderr, "jobq:", err)
		var perr *kong.ParseError
		if errors.As(err, &perr) && perr.Context != nil {
			kctx = perr.Context
		}
		fmt.Fprintf(stderr, "Run \"%s\" for its arguments and flags.\n", strings.Join(append([]string{"jobq", "help"}, commandPath(kctx)...), " "))
		return 2
	}
	err = kctx.Run(&env{ctx: ctx, stdout: stdout, stderr: stderr, conf: res})
	return exitCode(err, stderr)
}

// exitCode prints err and maps it to the exit status.
func exitCode(err error, stderr io.Writer) int {
	var status exitStatus
	var usageErr usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, &usageErr):
		fmt.Fprintln(stderr, "jobq:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "jobq:", err)
		return 1
	}
}

// commandPath is the words of the command kong got to, without arguments.
func commandPath(kctx *kong.Context) []string {
	var words []string
	if kctx == nil {
		return words
	}
	for _, p := range kctx.Path {
		if p.Command != nil {
			words = append(words, p.Command.Name)
		}
	}
	return words
}

// isCommand reports whether name is a top-level command.
func isCommand(k *kong.Kong, name string) bool {
	for _, n := range k.Model.Children {
		if n.Name == name {
			return true
		}
	}
	return false
}

// printHelp prints the top-level help to w.
func printHelp(k *kong.Kong, w io.Writer) {
	k.Stdout = w
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(kongExit); !ok {
				panic(r)
			}
		}
	}()
	_, _ = k.Parse([]string{"--help"})
}

// firstEnv returns the first non-empty value among flagValue and the named variables.
//
// Deprecated: give the flag an env tag (JOBQ_...) and its old names an oldenv tag
// (internal/cliconf), which warns when an old name is read. Left for jobq compact's fallback.
func firstEnv(flagValue string, names ...string) string {
	if flagValue != "" {
		return flagValue
	}
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}
