package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq/internal/localpg"
	"github.com/jobqdev/jobq/migrate"
	"github.com/jobqdev/jobq/pgtap"
)

// sandboxDB is the database the sandbox creates, bootstraps and migrates.
const sandboxDB = "jobq"

// sandboxTemplate is the copy of sandboxDB, taken before COMMAND runs, that each Go test clones
// (internal/dbtest). Not sandboxDB itself: what COMMAND runs writes there (pg_prove advances its
// sequences; the docs test commits jobs and failed attempts), and a clone would inherit it.
const sandboxTemplate = "jobq_template"

// sandboxCmd is jobq sandbox: COMMAND and its arguments, flags included, after the first word or
// after --.
type sandboxCmd struct {
	Command []string `arg:"" passthrough:"" placeholder:"COMMAND [ARG...]" help:"the command to run, and its arguments"`
}

// Help is the long help of jobq sandbox.
func (c *sandboxCmd) Help() string {
	return `Starts a throwaway PostgreSQL cluster in a temporary folder on a free loopback port, creates
database "jobq", applies bootstrap and the migrations (and CREATE EXTENSION pgtap when pgTAP is
installed), installs the pgTAP suites' test-only fixtures (schema jobq_test, pgtap/jobq_test.pgsql),
runs COMMAND with these variables set, then stops the cluster and deletes it:

  JOBQ_BOOTSTRAP_DATABASE_URL superuser postgres
  JOBQ_MIGRATE_DATABASE_URL   jobq_migrator
  JOBQ_WORKER_DATABASE_URL    worker_runtime
  PGHOST PGPORT PGUSER PGDATABASE   for psql and pg_prove (superuser)
  JOBQ_TEST_DATABASE_URL      superuser, database "jobq_template": a copy of "jobq" taken before
                              COMMAND runs, which the Go tests clone for each test
  and, for one more release, the old names DATABASE_URL_ADMIN, DATABASE_URL_MIGRATOR,
  WORKER_DATABASE_URL and DATABASE_URL (superuser); see docs/configuration.md.
The exit status is COMMAND's. For development and tests only: trust authentication.`
}

func (c *sandboxCmd) Run(e *env) error {
	if len(c.Command) > 0 && c.Command[0] == "--" {
		c.Command = c.Command[1:]
	}
	if len(c.Command) == 0 {
		return usageError{"sandbox needs a COMMAND to run: jobq sandbox [--] COMMAND [ARG...]"}
	}
	return exitStatus(runSandbox(e.ctx, c.Command, e.stdout, e.stderr))
}

// sandboxEnv are the variables COMMAND gets for a cluster: the JOBQ_ names, and the old names a
// child of an earlier release reads (kept for one release).
func sandboxEnv(cluster *localpg.Cluster) []string {
	admin := cluster.URL("postgres", sandboxDB)
	migrator := cluster.URL("jobq_migrator", sandboxDB)
	worker := cluster.URL("worker_runtime", sandboxDB)
	return []string{
		"JOBQ_BOOTSTRAP_DATABASE_URL=" + admin,
		"JOBQ_MIGRATE_DATABASE_URL=" + migrator,
		"JOBQ_WORKER_DATABASE_URL=" + worker,
		"PGHOST=127.0.0.1", fmt.Sprintf("PGPORT=%d", cluster.Port), "PGUSER=postgres", "PGDATABASE=" + sandboxDB,
		"JOBQ_TEST_DATABASE_URL=" + cluster.URL("postgres", sandboxTemplate),
		// Old names, read by children of an earlier release: exported for one more release.
		"DATABASE_URL_ADMIN=" + admin,
		"DATABASE_URL_MIGRATOR=" + migrator,
		"WORKER_DATABASE_URL=" + worker,
		"DATABASE_URL=" + admin,
	}
}

// runSandbox runs args against a throwaway cluster and returns the exit status.
func runSandbox(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cluster, err := localpg.Start(ctx, localpg.Options{})
	if err != nil {
		fmt.Fprintln(stderr, "jobq sandbox:", err)
		return 1
	}
	defer func() {
		if err := cluster.Remove(); err != nil {
			fmt.Fprintln(stderr, "jobq sandbox: remove cluster:", err)
		}
	}()
	if err := prepareSandbox(ctx, cluster); err != nil {
		fmt.Fprintln(stderr, "jobq sandbox:", err)
		return 1
	}
	fmt.Fprintf(stderr, "jobq sandbox: PostgreSQL on 127.0.0.1:%d, database %s (folder %s)\n", cluster.Port, sandboxDB, cluster.Dir)

	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	cmd.Env = append(os.Environ(), sandboxEnv(cluster)...)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "jobq sandbox:", err)
		return 1
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = cmd.Process.Signal(os.Interrupt)
		err = <-done
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exitErr):
		return exitErr.ExitCode()
	default:
		fmt.Fprintln(stderr, "jobq sandbox:", err)
		return 1
	}
}

// prepareSandbox creates the database, bootstraps it, applies the migrations as the migrator and
// installs the pgTAP fixtures (schema jobq_test, owned by the superuser) as the superuser.
func prepareSandbox(ctx context.Context, cluster *localpg.Cluster) error {
	admin, err := pgx.Connect(ctx, cluster.URL("postgres", "postgres"))
	if err != nil {
		return err
	}
	_, err = admin.Exec(ctx, "CREATE DATABASE "+sandboxDB)
	admin.Close(ctx)
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, cluster.URL("postgres", sandboxDB))
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := migrate.Bootstrap(ctx, conn, migrate.BootstrapOptions{}); err != nil {
		return err
	}
	m, err := migrate.Open(ctx, cluster.URL("jobq_migrator", sandboxDB))
	if err != nil {
		return err
	}
	_, err = m.Up(ctx)
	if cerr := m.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	_, err = conn.Exec(ctx, `DO $$ BEGIN
		IF EXISTS (SELECT 1 FROM pg_catalog.pg_available_extensions WHERE name = 'pgtap') THEN
			CREATE EXTENSION IF NOT EXISTS pgtap;
		END IF;
	END $$`)
	if err != nil {
		return err
	}
	// The simple protocol runs the file's statements as one script, as psql -f would.
	if err := conn.PgConn().Exec(ctx, pgtap.Fixtures).Close(); err != nil {
		return err
	}
	// The tests' template: a copy taken now, while nothing has run (a template must have no
	// other connection, this one included).
	if err := conn.Close(ctx); err != nil {
		return err
	}
	admin, err = pgx.Connect(ctx, cluster.URL("postgres", "postgres"))
	if err != nil {
		return err
	}
	defer admin.Close(context.WithoutCancel(ctx))
	_, err = admin.Exec(ctx, "CREATE DATABASE "+sandboxTemplate+" TEMPLATE "+sandboxDB)
	return err
}
