// Package dbtest gives each Go test its own copy of a migrated jobq database, so tests that claim,
// rescue or time-travel cannot see each other's jobs.
//
// `make test` runs the tests inside `jobq sandbox`, which sets JOBQ_TEST_DATABASE_URL to a superuser
// connection of a bootstrapped and migrated database. New clones that database (used only as a
// template, never connected to by tests) and drops the clone when the test ends. When no URL is
// set the test fails: a test that needs PostgreSQL never skips.
package dbtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq/bootstrap"
)

// TemplateURLEnv names the variables read, in order, for the template database's superuser URL.
var TemplateURLEnv = []string{"JOBQ_TEST_DATABASE_URL", "JOBQ_BOOTSTRAP_DATABASE_URL", "DATABASE_URL_ADMIN"}

// DB is one test's private database.
type DB struct {
	Name     string
	adminURL *url.URL
}

// TemplateURL returns the superuser URL of the migrated template database, failing t when none is
// configured.
func TemplateURL(t testing.TB) string {
	t.Helper()
	for _, name := range TemplateURLEnv {
		if v := os.Getenv(name); v != "" {
			return v
		}
	}
	t.Fatalf("dbtest: no database: set %s (make test does this through jobq sandbox)", strings.Join(TemplateURLEnv, " or "))
	return ""
}

// New creates a fresh database cloned from the template and drops it when t ends.
func New(t testing.TB) *DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tmpl, err := url.Parse(TemplateURL(t))
	if err != nil {
		t.Fatalf("dbtest: template URL: %v", err)
	}
	templateName := strings.TrimPrefix(tmpl.Path, "/")
	name := fmt.Sprintf("jobq_test_%d_%06d", time.Now().UnixNano()%1e9, rand.IntN(1e6))

	maint := *tmpl
	maint.Path = "/postgres"
	admin, err := pgx.Connect(ctx, maint.String())
	if err != nil {
		t.Fatalf("dbtest: connect to the server: %v", err)
	}
	defer admin.Close(context.Background())
	for attempt := 0; ; attempt++ {
		_, err = admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", pgx.Identifier{name}.Sanitize(), pgx.Identifier{templateName}.Sanitize()))
		var pgErr *pgconn.PgError
		// 55006: the template is briefly in use (another package's clone); try again.
		if err != nil && errors.As(err, &pgErr) && pgErr.Code == "55006" && attempt < 50 {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		break
	}
	if err != nil {
		t.Fatalf("dbtest: clone %s: %v", templateName, err)
	}
	// A clone does not inherit the template's database-level grants: apply them again.
	d := &DB{Name: name, adminURL: tmpl}
	conn, err := pgx.Connect(ctx, d.URL(tmpl.User.Username()))
	if err != nil {
		t.Fatalf("dbtest: connect to %s: %v", name, err)
	}
	grants, err := bootstrap.Files.ReadFile("002_database.sql")
	if err == nil {
		err = conn.PgConn().Exec(ctx, string(grants)).Close()
	}
	conn.Close(ctx)
	if err != nil {
		t.Fatalf("dbtest: database grants on %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c, err := pgx.Connect(ctx, maint.String())
		if err != nil {
			t.Errorf("dbtest: drop %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, fmt.Sprintf("DROP DATABASE %s WITH (FORCE)", pgx.Identifier{name}.Sanitize())); err != nil {
			t.Errorf("dbtest: drop %s: %v", name, err)
		}
	})
	return d
}

// URL returns a URL that logs in to this database as user (a LOGIN role such as postgres,
// worker_runtime or jobq_migrator).
func (d *DB) URL(user string) string {
	u := *d.adminURL
	u.Path = "/" + d.Name
	u.User = url.User(user)
	return u.String()
}

// Pool opens a pool on this database for role, closed when t ends. A LOGIN role logs in as
// itself; the NOLOGIN roles jobq_app and jobq_operator log in as postgres and SET ROLE, which
// holds for every connection of the pool. maxConns 0 keeps pgxpool's default.
func (d *DB) Pool(t testing.TB, role string, maxConns int32) *pgxpool.Pool {
	t.Helper()
	login := role
	if role == "jobq_app" || role == "jobq_operator" {
		login = "postgres"
	}
	cfg, err := pgxpool.ParseConfig(d.URL(login))
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	if maxConns > 0 {
		cfg.MaxConns = maxConns
	}
	if login != role {
		cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
			_, err := c.Exec(ctx, "SET ROLE "+pgx.Identifier{role}.Sanitize())
			return err
		}
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("dbtest: pool for %s: %v", role, err)
	}
	t.Cleanup(pool.Close)
	return pool
}
