// Package migrate installs jobq into a database: the cluster-scope bootstrap (roles), then the
// embedded goose migrations of the jobq schema's tables, then its function files.
//
// The order is fixed: Bootstrap runs as a superuser, then Up runs as jobq_migrator. Open refuses,
// changing nothing, a database whose bootstrap lacks a role or grant the migrations need
// (ErrBootstrapMissing, naming the step), and two Up calls at once are safe: Up holds a PostgreSQL
// session advisory lock for the whole run. Up applies the pending migrations and every file of
// sql/functions/ whose content changed (all of them after a migration) in ONE transaction, after
// locking every jobq table in the engine's order under a bound below deadlock_timeout, and retries
// that transaction with backoff while live transactions hold the locks (upgrade.go).
package migrate

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/bootstrap"
	jobqsql "github.com/jobqdev/jobq/sql"
)

// VersionTable is where goose records the applied migrations. It lives in the jobq schema, so
// the schema and its history are owned, and dropped, together.
const VersionTable = "jobq.goose_db_version"

// RequiredRoles are the roles bootstrap creates and the migrations grant to.
var RequiredRoles = []string{"jobq_migrator", "worker_runtime", "worker_fanout_owner", "jobq_app", "jobq_app_gate", "jobq_operator", "jobq_viewer", "jobq_dashboard", "jobq_waker"}

// BootstrapOptions carry the passwords Bootstrap sets. An empty password leaves the role's
// password as it is (a new role then has none).
type BootstrapOptions struct {
	MigratorPassword      string
	WorkerRuntimePassword string
	// WakerPassword is the password of jobq_waker, the REPLICATION role of the WAL wake-up
	// (runner.WakeupWAL). It can decode every row change of the database, so treat it as a
	// credential that reads all data.
	WakerPassword string
	// DashboardPassword is the password of jobq_dashboard, the read-only login of
	// `jobq dashboard` (a member of jobq_viewer: it reads every store's jobs and changes nothing).
	DashboardPassword string
}

// Bootstrap applies bootstrap/*.sql in name order on conn, which must be a superuser (or
// CREATEROLE) connection to the application database. It is idempotent.
func Bootstrap(ctx context.Context, conn *pgx.Conn, opts BootstrapOptions) error {
	for setting, value := range map[string]string{
		"jobq.migrator_password":       opts.MigratorPassword,
		"jobq.worker_runtime_password": opts.WorkerRuntimePassword,
		"jobq.waker_password":          opts.WakerPassword,
		"jobq.dashboard_password":      opts.DashboardPassword,
	} {
		if _, err := conn.Exec(ctx, "SELECT pg_catalog.set_config($1, $2, false)", setting, value); err != nil {
			return fmt.Errorf("bootstrap: %w", err)
		}
	}
	defer func() {
		// Do not leave passwords in a session the caller keeps using.
		_, _ = conn.Exec(context.WithoutCancel(ctx), "RESET jobq.migrator_password; RESET jobq.worker_runtime_password; RESET jobq.waker_password; RESET jobq.dashboard_password")
	}()
	names, err := fs.Glob(bootstrap.Files, "*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		body, err := fs.ReadFile(bootstrap.Files, name)
		if err != nil {
			return err
		}
		if err := conn.PgConn().Exec(ctx, string(body)).Close(); err != nil {
			return fmt.Errorf("bootstrap %s: %w", name, err)
		}
	}
	return nil
}

// MissingRoles returns the RequiredRoles that do not exist in the cluster of conn.
func MissingRoles(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx,
		`SELECT r FROM unnest($1::text[]) AS r WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles p WHERE p.rolname = r) ORDER BY r`,
		RequiredRoles)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var missing []string
	for rows.Next() {
		var r string
		if err := rows.Scan(&r); err != nil {
			return nil, err
		}
		missing = append(missing, r)
	}
	return missing, rows.Err()
}

// Migrator applies the embedded migrations and function files to one database.
type Migrator struct {
	db       *sql.DB
	provider *goose.Provider
	src      Source
	opts     Options
	// functionsApplied are the function files the last Up applied.
	functionsApplied []string
}

// migrateLock is the session advisory lock Up and Down hold for their whole run.
const migrateLock = `SELECT pg_catalog.pg_advisory_lock(pg_catalog.hashtext('jobq.migrate'))`
const migrateUnlock = `SELECT pg_catalog.pg_advisory_unlock(pg_catalog.hashtext('jobq.migrate'))`

// Open connects to databaseURL (which should log in as jobq_migrator) and prepares the goose
// provider for the migrations and function files this binary embeds. Close it when done. It
// refuses, changing nothing, a database whose bootstrap is missing or incomplete
// (ErrBootstrapMissing, naming the role or grant and the bootstrap step that makes it).
func Open(ctx context.Context, databaseURL string) (*Migrator, error) {
	return OpenWith(ctx, databaseURL, Options{})
}

// OpenWith is Open with options: another source (the sql/ of an earlier release, for upgrade
// tests), the lock bounds of Up and a progress log.
func OpenWith(ctx context.Context, databaseURL string, opts Options) (*Migrator, error) {
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return nil, fmt.Errorf("migrate: database URL: %w", err)
	}
	db := stdlib.OpenDB(*cfg)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate: connect: %w", err)
	}
	m := &Migrator{db: db, src: Embedded(), opts: opts}
	if opts.Source != nil {
		m.src = *opts.Source
	}
	if err := m.checkBootstrap(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// No goose locker: Up and Down take their own session lock (migrateLock). Up applies the
	// migrations itself (one transaction with the function files, see upgrade.go); goose lists
	// them, reports their status and runs Down.
	m.provider, err = goose.NewProvider(goose.DialectPostgres, db, m.src.Migrations,
		goose.WithTableName(VersionTable),
		goose.WithDisableGlobalRegistry(true),
	)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return m, nil
}

// installPreamble creates, when missing, the jobq schema and goose's version table in it (with
// goose's own layout and its version-0 row), under a transaction-scoped advisory lock so that
// installers starting together take turns. It checks before creating, so it needs no CREATE right
// on a database that already has both. `migrate up --dry-run` prints it first, so its output is
// self-contained.
const installPreamble = `SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtext('jobq.install'));
DO $preamble$
BEGIN
    IF pg_catalog.to_regnamespace('jobq') IS NULL THEN
        CREATE SCHEMA jobq;
    END IF;
    IF pg_catalog.to_regclass('jobq.goose_db_version') IS NULL THEN
        CREATE TABLE jobq.goose_db_version (
            id integer PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY,
            version_id bigint NOT NULL,
            is_applied boolean NOT NULL,
            tstamp timestamp NOT NULL DEFAULT now()
        );
        INSERT INTO jobq.goose_db_version (version_id, is_applied) VALUES (0, true);
    END IF;
END
$preamble$;
`

// prepare runs installPreamble (one simple-protocol batch: one implicit transaction).
func (m *Migrator) prepare(ctx context.Context) error {
	if _, err := m.db.ExecContext(ctx, installPreamble); err != nil {
		return fmt.Errorf("migrate: create schema jobq (is bootstrap/002_database.sql applied to this database?): %w", jobq.FromDB(err))
	}
	return nil
}

// installed reports whether goose's version table exists, without creating anything.
func (m *Migrator) installed(ctx context.Context) (bool, error) {
	var exists bool
	err := m.db.QueryRowContext(ctx, `SELECT pg_catalog.to_regclass('jobq.goose_db_version') IS NOT NULL`).Scan(&exists)
	return exists, err
}

// Close closes the connection.
func (m *Migrator) Close() error { return m.db.Close() }

// locked runs fn while this session holds migrateLock on a connection of its own, which fn gets.
func (m *Migrator) locked(ctx context.Context, fn func(conn *sql.Conn) error) error {
	conn, err := m.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, migrateLock); err != nil {
		return fmt.Errorf("migrate: take the migration lock: %w", err)
	}
	defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), migrateUnlock) }()
	return fn(conn)
}

// Up upgrades the database to this binary's schema in ONE transaction: the pending migrations,
// then every function file whose content changed (every file when a migration is pending), after
// taking the locks of every jobq table in the engine's order (see upgrade.go and
// docs/upgrading.md). Callers see the old schema and functions or the new ones, never a mix. It
// returns the migrations it applied; FunctionsApplied names the files.
func (m *Migrator) Up(ctx context.Context) ([]*goose.MigrationResult, error) {
	var res []*goose.MigrationResult
	m.functionsApplied = nil
	err := m.locked(ctx, func(conn *sql.Conn) error {
		if err := refusePreSquash(ctx, conn, m.src); err != nil {
			return err
		}
		u, err := m.plan(ctx, conn)
		if err != nil {
			return err
		}
		if u.empty() {
			return nil
		}
		res, err = m.apply(ctx, conn, u)
		if err != nil {
			return err
		}
		for _, f := range u.files {
			m.functionsApplied = append(m.functionsApplied, f.Name)
		}
		return nil
	})
	return res, err
}

// ErrPreSquash is returned by Up for a development database installed before the migrations were
// squashed (its goose history goes past the newest migration and it has no jobq.function_files):
// it cannot be upgraded in place; drop its jobq schema and install again (docs/upgrading.md).
var ErrPreSquash = errors.New("this jobq schema was installed before the migrations were squashed; drop schema jobq and install again")

// refusePreSquash returns ErrPreSquash for such a database.
func refusePreSquash(ctx context.Context, conn *sql.Conn, src Source) error {
	latest, err := latestIn(src.Migrations)
	if err != nil {
		return err
	}
	installed := false
	if err := conn.QueryRowContext(ctx, `SELECT pg_catalog.to_regclass('jobq.goose_db_version') IS NOT NULL`).Scan(&installed); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if !installed {
		return nil
	}
	var applied int64
	var tracked bool
	err = conn.QueryRowContext(ctx, `SELECT coalesce(max(v.version_id), 0), pg_catalog.to_regclass('jobq.function_files') IS NOT NULL
		FROM jobq.goose_db_version v WHERE v.is_applied`).Scan(&applied, &tracked)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if applied > latest && !tracked {
		return fmt.Errorf("migrate: %w (goose history at %d, this binary's newest migration is %d)", ErrPreSquash, applied, latest)
	}
	return nil
}

// FunctionsApplied names the function files the last Up applied, in order.
func (m *Migrator) FunctionsApplied() []string { return m.functionsApplied }

// Down rolls back the newest applied migration and forgets which function files were applied, so
// the next Up applies them all again (a rolled-back table takes the functions that use it along).
func (m *Migrator) Down(ctx context.Context) (*goose.MigrationResult, error) {
	var res *goose.MigrationResult
	err := m.locked(ctx, func(conn *sql.Conn) error {
		if err := m.prepare(ctx); err != nil {
			return err
		}
		var err error
		res, err = m.provider.Down(ctx)
		if err != nil {
			return wrapGoose(err)
		}
		_, err = conn.ExecContext(ctx, `DO $$ BEGIN
			IF pg_catalog.to_regclass('jobq.function_files') IS NOT NULL THEN DELETE FROM jobq.function_files; END IF;
		END $$`)
		return err
	})
	return res, err
}

// Status lists every migration with whether it is applied. It changes nothing: on a database
// without jobq every migration is pending.
func (m *Migrator) Status(ctx context.Context) ([]*goose.MigrationStatus, error) {
	ok, err := m.installed(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	if !ok {
		var st []*goose.MigrationStatus
		for _, src := range m.provider.ListSources() {
			st = append(st, &goose.MigrationStatus{Source: src, State: goose.StatePending})
		}
		return st, nil
	}
	st, err := m.provider.Status(ctx)
	return st, wrapGoose(err)
}

// WritePending writes to w the SQL Up would run now, for a DBA to review or apply by hand
// (psql -v ON_ERROR_STOP=1 -f, as jobq_migrator): one transaction that takes the advisory lock of
// installers and creates the schema and the version table when missing, takes the locks of the
// jobq tables in the engine's order under a bound, applies each pending migration's Up section and
// records its version, then applies the changed function files and records their checksums. It
// returns the number of pending migrations and changes nothing.
func (m *Migrator) WritePending(ctx context.Context, w io.Writer) (int, error) {
	u, err := m.plan(ctx, m.db)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(w, "-- jobq: the pending upgrade, printed by jobq migrate up --dry-run: %d migration(s) and %d function file(s),\n"+
		"-- in one transaction, as jobq migrate up runs it (which retries the whole transaction when the\n"+
		"-- locks are not granted within the bound; see docs/upgrading.md).\n", len(u.migrations), len(u.files))
	if u.empty() {
		fmt.Fprintln(w, "-- nothing to apply")
		return 0, nil
	}
	for _, st := range u.steps() {
		if _, err := fmt.Fprintf(w, "-- %s\n%s\n\n", st.what, strings.TrimRight(st.sql, "\n")); err != nil {
			return 0, err
		}
	}
	return len(u.migrations), nil
}

// PendingFunctions returns the function files Up would apply now: every file when a migration is
// pending, else the files whose content differs from what jobq.function_files records. It changes
// nothing.
func (m *Migrator) PendingFunctions(ctx context.Context) ([]FunctionFile, error) {
	u, err := m.plan(ctx, m.db)
	if err != nil {
		return nil, err
	}
	return u.files, nil
}

// writeUpSection copies the lines between "-- +goose Up" and "-- +goose Down", dropping the
// goose annotations.
func writeUpSection(w io.Writer, body string) error {
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	inUp := false
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "-- +goose Up"):
			inUp = true
			continue
		case strings.HasPrefix(trimmed, "-- +goose Down"):
			return nil
		case strings.HasPrefix(trimmed, "-- +goose"):
			continue
		}
		if inUp {
			if _, err := fmt.Fprintln(w, line); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

// LatestVersion is the newest migration this binary embeds.
func LatestVersion() (int64, error) { return latestIn(jobqsql.Migrations) }

// latestIn is the newest migration at the root of fsys.
func latestIn(fsys fs.FS) (int64, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return 0, err
	}
	var latest int64
	for _, n := range names {
		v, err := goose.NumericComponent(n)
		if err != nil {
			return 0, err
		}
		latest = max(latest, v)
	}
	return latest, nil
}

// ErrSchemaTooNew is returned by CheckVersion when the database holds a breaking change newer than
// this binary knows (a row of jobq.breaking_changes above LatestVersion): running against it could
// break the engine's expectations.
var ErrSchemaTooNew = errors.New("the jobq schema holds a breaking change newer than this binary")

// ErrSchemaBehind is returned by CheckVersion when migrations are pending.
var ErrSchemaBehind = errors.New("the jobq schema is behind this binary; run jobq migrate up")

// CheckVersion tells whether a binary may run against the database, by the compatibility rule of
// docs/upgrading.md: a database behind the binary (a migration it embeds is not applied) is
// refused with ErrSchemaBehind; a database ahead of it is accepted unless it holds a breaking
// change (jobq.breaking_changes) newer than the binary, which is refused with ErrSchemaTooNew; so
// a rolling deploy keeps the old runners serving across every compatible upgrade. A database
// where a function file the binary embeds was never applied is behind too. A function file whose
// content differs is not: function files (sql/functions/) never break a caller, since a signature
// they remove or change comes with a breaking migration. It returns the applied version and needs
// only SELECT on the version table, jobq.function_files and jobq.breaking_changes, so runtime
// roles can call it.
func CheckVersion(ctx context.Context, q jobq.DB) (applied int64, err error) {
	latest, err := LatestVersion()
	if err != nil {
		return 0, err
	}
	err = q.QueryRow(ctx, `SELECT coalesce(max(version_id), 0) FROM `+VersionTable+` WHERE is_applied`).Scan(&applied)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", VersionTable, err)
	}
	if applied < latest {
		return applied, fmt.Errorf("%w: database at %d, binary expects %d", ErrSchemaBehind, applied, latest)
	}
	if missing, err := missingFunctionFiles(ctx, q); err != nil {
		return applied, err
	} else if len(missing) > 0 {
		return applied, fmt.Errorf("%w: function files %s were never applied", ErrSchemaBehind, strings.Join(missing, ", "))
	}
	if applied == latest {
		return applied, nil
	}
	var breaking int64
	err = q.QueryRow(ctx, `SELECT coalesce(max(b.version), 0) FROM jobq.breaking_changes b WHERE b.version > $1`, latest).Scan(&breaking)
	if err != nil {
		return applied, fmt.Errorf("read jobq.breaking_changes: %w", err)
	}
	if breaking > 0 {
		return applied, fmt.Errorf("%w: database at %d holds breaking change %d, binary knows %d", ErrSchemaTooNew, applied, breaking, latest)
	}
	return applied, nil
}

// missingFunctionFiles names the function files this binary embeds that jobq.function_files does
// not record: a database whose function files were never applied (or failed) is behind. A file
// whose content differs is not missing: function files never break a caller (see CheckVersion).
func missingFunctionFiles(ctx context.Context, q jobq.DB) ([]string, error) {
	files, err := FunctionFiles()
	if err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, `SELECT f.name FROM jobq.function_files f`)
	if err != nil {
		return nil, fmt.Errorf("read jobq.function_files: %w", err)
	}
	recorded, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("read jobq.function_files: %w", err)
	}
	have := map[string]bool{}
	for _, n := range recorded {
		have[n] = true
	}
	var missing []string
	for _, f := range files {
		if !have[f.Name] {
			missing = append(missing, f.Name)
		}
	}
	return missing, nil
}

func wrapGoose(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("migrate: %w", jobq.FromDB(err))
}
