// Command salon runs the salon reference application on jobq.
//
//	salon bootstrap   create jobq's roles and salon_api (as a superuser; JOBQ_BOOTSTRAP_DATABASE_URL)
//	salon migrate     apply jobq's migrations, then the salon's (as jobq_migrator; JOBQ_MIGRATE_DATABASE_URL)
//	salon worker      run the salon's jobs (as worker_runtime; JOBQ_WORKER_DATABASE_URL)
//	salon demo        everything above against a throwaway cluster (or DATABASE_URL), with a burst
//	                  of jobs, progress and a summary
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq/examples/salon"
	"github.com/jobqdev/jobq/examples/salon/demo"
	"github.com/jobqdev/jobq/migrate"
	"github.com/jobqdev/jobq/worker"
)

const usage = `usage: salon <command> [flags]

commands:
  bootstrap   create jobq's roles and salon_api; run as a superuser before migrate
              ($JOBQ_BOOTSTRAP_DATABASE_URL; passwords from JOBQ_MIGRATOR_PASSWORD, JOBQ_WORKER_RUNTIME_PASSWORD,
              JOBQ_WAKER_PASSWORD, SALON_API_PASSWORD)
  migrate     apply jobq's migrations, then the salon's, as jobq_migrator ($JOBQ_MIGRATE_DATABASE_URL)
  worker      run the salon's jobs as worker_runtime ($JOBQ_WORKER_DATABASE_URL); -h for its flags
  demo        start a throwaway PostgreSQL (or use $DATABASE_URL, a superuser URL), install, add
              stores with data, run the worker on a burst of jobs, print a summary; -h for flags
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "bootstrap":
		return report(stderr, "salon bootstrap", cmdBootstrap(ctx, args[1:], stdout, stderr))
	case "migrate":
		return report(stderr, "salon migrate", cmdMigrate(ctx, args[1:], stdout, stderr))
	case "worker":
		return worker.Main(ctx, salon.Program(nil), args[1:], stdout, stderr)
	case "demo":
		return demo.Main(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "salon: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}

// report prints err and returns the exit status: 0, 2 for a usage error, 1 otherwise.
func report(stderr io.Writer, name string, err error) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	var usage worker.UsageError
	if errors.As(err, &usage) {
		return 2
	}
	return 1
}

// urlFlag parses the only flag of bootstrap and migrate, falling back to the variables named.
func urlFlag(name string, args []string, stderr io.Writer, help string, variables ...string) (string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("database-url", "", fmt.Sprintf("database URL (default $%s)", variables[0]))
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s [--database-url URL]\n\n%s\n", name, help)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", err
		}
		return "", worker.UsageError{Msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return "", worker.UsageError{Msg: fmt.Sprintf("takes no arguments, got %q", fs.Args())}
	}
	if *url != "" {
		return *url, nil
	}
	for _, v := range variables {
		if s := os.Getenv(v); s != "" {
			return s, nil
		}
	}
	return "", worker.UsageError{Msg: fmt.Sprintf("needs --database-url or %s", variables[0])}
}

func cmdBootstrap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	url, err := urlFlag("salon bootstrap", args, stderr,
		"Creates jobq's roles and the salon's (salon_api) as a superuser. Idempotent.", "JOBQ_BOOTSTRAP_DATABASE_URL", "DATABASE_URL_ADMIN")
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	err = salon.Bootstrap(ctx, conn, migrate.BootstrapOptions{
		MigratorPassword:      os.Getenv("JOBQ_MIGRATOR_PASSWORD"),
		WorkerRuntimePassword: firstSet("JOBQ_WORKER_RUNTIME_PASSWORD", "WORKER_RUNTIME_PASSWORD"),
		WakerPassword:         os.Getenv("JOBQ_WAKER_PASSWORD"),
	}, os.Getenv("SALON_API_PASSWORD"))
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "salon bootstrap: roles and grants are in place")
	return nil
}

func cmdMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	url, err := urlFlag("salon migrate", args, stderr,
		"Applies jobq's migrations, then the salon's, as jobq_migrator. Run salon bootstrap first.", "JOBQ_MIGRATE_DATABASE_URL", "DATABASE_URL_MIGRATOR")
	if err != nil {
		return err
	}
	jobqApplied, salonApplied, err := salon.Migrate(ctx, url)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "salon migrate: applied %d jobq and %d salon migrations\n", len(jobqApplied), len(salonApplied))
	return nil
}

// firstSet returns the value of the first variable of names that is set and not empty.
func firstSet(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}
