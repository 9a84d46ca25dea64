// Command jobq installs and runs jobq.
//
//	jobq bootstrap        create the roles (as a superuser); idempotent
//	jobq migrate up       apply the schema migrations (as jobq_migrator); --dry-run prints them
//	jobq migrate down     roll back the newest migration
//	jobq migrate status   list the migrations and whether each is applied
//	jobq sandbox -- CMD   run CMD against a throwaway local cluster, bootstrapped and migrated
//	jobq worker           run the job runner with the built-in tasks (ping, exec)
//
// Connection URLs come from --database-url or the environment; see each command's -h.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: jobq <command> [flags]

commands:
  bootstrap          create jobq's roles; run as a superuser before migrate
  migrate up|down|status [--dry-run]
                     apply, roll back or list the schema migrations (as jobq_migrator)
  sandbox [--] CMD   run CMD against a throwaway local PostgreSQL, bootstrapped and migrated
  worker             run jobs: claim, run handlers, complete / fail (as worker_runtime)

Run "jobq <command> -h" for the flags of a command.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "bootstrap":
		err = cmdBootstrap(ctx, args[1:], stdout, stderr)
	case "migrate":
		err = cmdMigrate(ctx, args[1:], stdout, stderr)
	case "sandbox":
		return cmdSandbox(ctx, args[1:], stdout, stderr)
	case "worker":
		return cmdWorker(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "jobq: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		var usageErr usageError
		if errors.As(err, &usageErr) {
			fmt.Fprintln(stderr, "jobq:", err)
			return 2
		}
		fmt.Fprintln(stderr, "jobq:", err)
		return 1
	}
	return 0
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// firstEnv returns the first non-empty value among flagValue and the named variables.
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
