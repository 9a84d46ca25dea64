package salon

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/jobqdev/jobq/migrate"
)

// Migrations are the salon's own goose migrations (sql/), applied after jobq's.
//
//go:embed sql/*.sql
var Migrations embed.FS

// bootstrapFiles create the salon's cluster-scope role, after jobq's bootstrap.
//
//go:embed bootstrap/*.sql
var bootstrapFiles embed.FS

// VersionTable is where goose records the salon's applied migrations; jobq's are in
// jobq.goose_db_version.
const VersionTable = "public.salon_goose_db_version"

// Bootstrap applies jobq's bootstrap and then the salon's (role salon_api) on conn, a superuser
// connection to the application database. It is idempotent. Empty passwords leave a role's
// password as it is.
func Bootstrap(ctx context.Context, conn *pgx.Conn, jobqPasswords migrate.BootstrapOptions, apiPassword string) error {
	if err := migrate.Bootstrap(ctx, conn, jobqPasswords); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "SELECT pg_catalog.set_config('salon.api_password', $1, false)", apiPassword); err != nil {
		return fmt.Errorf("salon bootstrap: %w", err)
	}
	defer func() { _, _ = conn.Exec(context.WithoutCancel(ctx), "RESET salon.api_password") }()
	names, err := fs.Glob(bootstrapFiles, "bootstrap/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		body, err := fs.ReadFile(bootstrapFiles, name)
		if err != nil {
			return err
		}
		if err := conn.PgConn().Exec(ctx, string(body)).Close(); err != nil {
			return fmt.Errorf("salon bootstrap %s: %w", name, err)
		}
	}
	return nil
}

// Migrate applies jobq's migrations and then the salon's on the database of migratorURL, which
// logs in as jobq_migrator. It returns the versions applied by each. Two at once are safe: each
// goose run holds an advisory lock.
func Migrate(ctx context.Context, migratorURL string) (jobqApplied, salonApplied []int64, err error) {
	m, err := migrate.Open(ctx, migratorURL)
	if err != nil {
		return nil, nil, err
	}
	res, err := m.Up(ctx)
	m.Close()
	if err != nil {
		return nil, nil, err
	}
	for _, r := range res {
		jobqApplied = append(jobqApplied, r.Source.Version)
	}

	cfg, err := pgx.ParseConfig(migratorURL)
	if err != nil {
		return jobqApplied, nil, err
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	p, err := provider(db)
	if err != nil {
		return jobqApplied, nil, err
	}
	res, err = p.Up(ctx)
	if err != nil {
		return jobqApplied, nil, fmt.Errorf("salon migrate: %w", err)
	}
	for _, r := range res {
		salonApplied = append(salonApplied, r.Source.Version)
	}
	return jobqApplied, salonApplied, nil
}

func provider(db *sql.DB) (*goose.Provider, error) {
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 600))
	if err != nil {
		return nil, err
	}
	sub, err := fs.Sub(Migrations, "sql")
	if err != nil {
		return nil, err
	}
	return goose.NewProvider(goose.DialectPostgres, db, sub,
		goose.WithSessionLocker(locker),
		goose.WithTableName(VersionTable),
		goose.WithDisableGlobalRegistry(true),
	)
}
