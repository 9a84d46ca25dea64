package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pressly/goose/v3"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/migrate"
)

type bootstrapCmd struct {
	DatabaseURL string `name:"database-url" env:"JOBQ_BOOTSTRAP_DATABASE_URL" oldenv:"DATABASE_URL_ADMIN,DATABASE_URL" secret:"" placeholder:"URL" help:"superuser URL of the application database"`
}

// Help is the long help of jobq bootstrap.
func (c *bootstrapCmd) Help() string {
	return `Creates jobq's roles and grants them what they need on the database (bootstrap/*.sql).
Idempotent. Needs a superuser (or CREATEROLE) connection. Passwords are read from
JOBQ_MIGRATOR_PASSWORD, JOBQ_WORKER_RUNTIME_PASSWORD, JOBQ_WAKER_PASSWORD (jobq_waker, the
replication role of --wakeup wal) and JOBQ_DASHBOARD_PASSWORD; unset leaves a role's password as
it is.`
}

func (c *bootstrapCmd) Run(e *env) error {
	ctx, stdout := e.ctx, e.stdout
	url := &c.DatabaseURL
	dsn := *url
	if dsn == "" {
		return usageError{"bootstrap needs --database-url or JOBQ_BOOTSTRAP_DATABASE_URL"}
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("bootstrap: connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	err = migrate.Bootstrap(ctx, conn, migrate.BootstrapOptions{
		MigratorPassword:      os.Getenv("JOBQ_MIGRATOR_PASSWORD"),
		WorkerRuntimePassword: e.conf.Getenv("JOBQ_WORKER_RUNTIME_PASSWORD", "WORKER_RUNTIME_PASSWORD"),
		WakerPassword:         os.Getenv("JOBQ_WAKER_PASSWORD"),
		DashboardPassword:     os.Getenv("JOBQ_DASHBOARD_PASSWORD"),
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "jobq bootstrap: roles and database grants are in place")
	return nil
}

type migrateCmd struct {
	Verb        string        `arg:"" optional:"" help:"up, down, status, validate or script"`
	DryRun      bool          `name:"dry-run" help:"with up: print the SQL of the pending upgrade (one transaction) instead of applying it"`
	LockTimeout time.Duration `name:"lock-timeout" placeholder:"DURATION" help:"with up: how long one attempt may wait for the locks of the jobq tables (default and ceiling: half of the server's deadlock_timeout)"`
	LockWait    time.Duration `name:"lock-wait" default:"${migrate_lock_wait}" placeholder:"DURATION" help:"with up: how long to go on retrying, with backoff, while live transactions hold those locks"`
	DatabaseURL string        `name:"database-url" env:"JOBQ_MIGRATE_DATABASE_URL" oldenv:"DATABASE_URL_MIGRATOR,DATABASE_URL" secret:"" placeholder:"URL" help:"jobq_migrator URL"`
	Release     string        `name:"release" placeholder:"VERSION" help:"with script: the version the script is labelled with (default: this binary's)"`
	JSON        bool          `name:"json" help:"with status: print JSON ({\"migrations\": [{\"path\", \"state\", \"applied_at\"}], \"pending_functions\"}) instead of lines"`
}

// Help is the long help of jobq migrate.
func (c *migrateCmd) Help() string {
	return `usage: jobq migrate up|down|status|validate [--dry-run] [--database-url URL]
       jobq migrate script [--release VERSION] > jobq--VERSION.sql

Applies the embedded jobq migrations and function files as jobq_migrator, in one
transaction: callers see the old schema and functions or the new ones, never a mix. Before
any DDL it locks the jobq tables in the engine's order, each attempt bounded below the
server's deadlock_timeout (--lock-timeout), and retries with backoff for --lock-wait while
live transactions hold them; nothing is changed until it commits. Run jobq bootstrap first:
up refuses, changing nothing, while a role or grant of bootstrap/ is missing, and names
the step. Two installers at once are safe: they take turns on an advisory lock.
validate changes nothing and exits 1 while a migration or a function file is pending.
script prints, without a database, this release as one SQL file for psql (the SQL install of
make dist): for a database that bootstrap/ prepared and that has no jobq yet; it refuses
missing roles (JQ301) and an installed jobq (JQ302), and gives the schema up gives.`
}

func (c *migrateCmd) Run(e *env) error {
	ctx, stdout, stderr := e.ctx, e.stdout, e.stderr
	verb, dryRun, url := c.Verb, &c.DryRun, &c.DatabaseURL
	if verb == "" {
		return usageError{"migrate needs up, down or status (or validate); see jobq help migrate"}
	}
	if verb != "up" && verb != "down" && verb != "status" && verb != "validate" && verb != "script" {
		return usageError{fmt.Sprintf("migrate: unknown verb %q (up, down, status, validate, script)", verb)}
	}
	if verb == "script" {
		release := c.Release
		if release == "" {
			release = strings.Trim(buildVersion().Version, "()") // "(devel)" outside make dist
		}
		return migrate.WriteInstallScript(stdout, migrate.Embedded(), release)
	}
	if c.Release != "" {
		return usageError{"--release goes with migrate script"}
	}
	if c.JSON && verb != "status" {
		return usageError{"--json goes with migrate status"}
	}
	if *dryRun && verb != "up" {
		return usageError{"--dry-run goes with migrate up"}
	}
	dsn := *url
	if dsn == "" {
		return usageError{"migrate needs --database-url or JOBQ_MIGRATE_DATABASE_URL"}
	}
	m, err := migrate.OpenWith(ctx, dsn, migrate.Options{
		LockTimeout: c.LockTimeout,
		LockWait:    c.LockWait,
		Logf:        func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) },
	})
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
		fmt.Fprintf(stderr, "jobq migrate: %d function file(s) printed (one transaction with the migrations)\n", len(files))
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
	case verb == "validate":
		return migrateValidate(ctx, m, stdout)
	case verb == "status":
		st, err := m.Status(ctx)
		if err != nil {
			return err
		}
		if c.JSON {
			return migrateStatusJSON(ctx, m, st, stdout)
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

// migrationState is one migration in migrate status --json.
type migrationState struct {
	Path      string     `json:"path"`
	State     string     `json:"state"` // applied or pending
	AppliedAt *time.Time `json:"applied_at"`
}

// migrateStatusJSON prints every migration's state and the function files still pending.
func migrateStatusJSON(ctx context.Context, m *migrate.Migrator, st []*goose.MigrationStatus, stdout io.Writer) error {
	files, err := m.PendingFunctions(ctx)
	if err != nil {
		return err
	}
	out := struct {
		Migrations       []migrationState `json:"migrations"`
		PendingFunctions []string         `json:"pending_functions"`
	}{Migrations: []migrationState{}, PendingFunctions: []string{}}
	for _, s := range st {
		ms := migrationState{Path: s.Source.Path, State: "pending"}
		if !s.AppliedAt.IsZero() {
			at := s.AppliedAt.UTC()
			ms.State, ms.AppliedAt = "applied", &at
		}
		out.Migrations = append(out.Migrations, ms)
	}
	for _, f := range files {
		out.PendingFunctions = append(out.PendingFunctions, "functions/"+f.Name)
	}
	return writeJSON(stdout, out)
}

// migrateValidate lists what is pending and fails while anything is.
func migrateValidate(ctx context.Context, m *migrate.Migrator, stdout io.Writer) error {
	st, err := m.Status(ctx)
	if err != nil {
		return err
	}
	files, err := m.PendingFunctions(ctx)
	if err != nil {
		return err
	}
	pending := 0
	for _, s := range st {
		if s.State == goose.StatePending {
			fmt.Fprintf(stdout, "pending migration %s\n", s.Source.Path)
			pending++
		}
	}
	for _, f := range files {
		fmt.Fprintf(stdout, "pending functions/%s\n", f.Name)
	}
	if pending > 0 || len(files) > 0 {
		return fmt.Errorf("migrate validate: %d migration(s) and %d function file(s) pending; run jobq migrate up", pending, len(files))
	}
	fmt.Fprintln(stdout, "jobq migrate: the schema is up to date")
	return nil
}
