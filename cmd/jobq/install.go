package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/migrate"
)

func cmdBootstrap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bootstrap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("database-url", "", "superuser URL of the application database (default $DATABASE_URL_ADMIN, then $DATABASE_URL)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: jobq bootstrap [--database-url URL]

Creates jobq's roles and grants them what they need on the database (bootstrap/*.sql).
Idempotent. Needs a superuser (or CREATEROLE) connection. Passwords are read from
JOBQ_MIGRATOR_PASSWORD, WORKER_RUNTIME_PASSWORD and JOBQ_WAKER_PASSWORD (jobq_waker, the
replication role of --wakeup wal); unset leaves a role's password as it is.`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("bootstrap takes no arguments, got %q", fs.Args())}
	}
	dsn := firstEnv(*url, "DATABASE_URL_ADMIN", "DATABASE_URL")
	if dsn == "" {
		return usageError{"bootstrap needs --database-url or DATABASE_URL_ADMIN / DATABASE_URL"}
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("bootstrap: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	err = migrate.Bootstrap(ctx, conn, migrate.BootstrapOptions{
		MigratorPassword:      os.Getenv("JOBQ_MIGRATOR_PASSWORD"),
		WorkerRuntimePassword: os.Getenv("WORKER_RUNTIME_PASSWORD"),
		WakerPassword:         os.Getenv("JOBQ_WAKER_PASSWORD"),
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "jobq bootstrap: roles and database grants are in place")
	return nil
}

func cmdMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	url := fs.String("database-url", "", "jobq_migrator URL (default $DATABASE_URL_MIGRATOR, then $DATABASE_URL)")
	dryRun := fs.Bool("dry-run", false, "with up: print the SQL of the pending migrations instead of applying it")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: jobq migrate up|down|status [--dry-run] [--database-url URL]

Applies the embedded jobq migrations as jobq_migrator. Run jobq bootstrap first.
Two installers at once are safe: goose holds an advisory lock for the whole run.`)
		fs.PrintDefaults()
	}
	if len(args) == 0 {
		fs.Usage()
		return usageError{"migrate needs up, down or status"}
	}
	verb := args[0]
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("migrate %s takes no further arguments, got %q", verb, fs.Args())}
	}
	if verb != "up" && verb != "down" && verb != "status" {
		return usageError{fmt.Sprintf("migrate: unknown verb %q (up, down, status)", verb)}
	}
	if *dryRun && verb != "up" {
		return usageError{"--dry-run goes with migrate up"}
	}
	dsn := firstEnv(*url, "DATABASE_URL_MIGRATOR", "DATABASE_URL")
	if dsn == "" {
		return usageError{"migrate needs --database-url or DATABASE_URL_MIGRATOR / DATABASE_URL"}
	}
	m, err := migrate.Open(ctx, dsn)
	if err != nil {
		var jerr *jobq.Error
		if errors.As(err, &jerr) && jerr.Hint != "" {
			return fmt.Errorf("%w\nhint: %s", err, jerr.Hint)
		}
		return err
	}
	defer m.Close()

	switch {
	case verb == "up" && *dryRun:
		files, err := m.PendingFunctions(ctx)
		if err != nil {
			return err
		}
		n, err := m.WritePending(ctx, stdout)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "jobq migrate: %d pending migration(s) printed, nothing applied\n", n)
		fmt.Fprintf(stderr, "jobq migrate: %d function file(s) printed\n", len(files))
	case verb == "up":
		res, err := m.Up(ctx)
		for _, r := range res {
			fmt.Fprintf(stdout, "applied %s (%s)\n", r.Source.Path, r.Duration.Round(1e6))
		}
		for _, f := range m.FunctionsApplied() {
			fmt.Fprintf(stdout, "applied functions/%s\n", f)
		}
		if err != nil {
			return err
		}
		if len(res) == 0 && len(m.FunctionsApplied()) == 0 {
			fmt.Fprintln(stdout, "jobq migrate: already up to date")
		}
	case verb == "down":
		r, err := m.Down(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "rolled back %s\n", r.Source.Path)
	case verb == "status":
		st, err := m.Status(ctx)
		if err != nil {
			return err
		}
		for _, s := range st {
			at := "pending"
			if !s.AppliedAt.IsZero() {
				at = "applied " + s.AppliedAt.UTC().Format("2006-01-02 15:04:05Z")
			}
			fmt.Fprintf(stdout, "%-28s %s\n", s.Source.Path, at)
		}
	}
	return nil
}
