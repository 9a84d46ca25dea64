package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jobqdev/jobq/internal/localpg"
)

// cluster is the throwaway PostgreSQL cluster every scenario runs against: jobq's own
// localpg (the cluster of jobq sandbox and the tests: fsync off, wal_level logical, trust on
// loopback, run as the OS user postgres under root) with pg_stat_statements preloaded, which the
// sandbox does not do, and room for the benchmarks' WAL.
type cluster struct {
	*localpg.Cluster
	dir  string
	port int
}

// benchSettings are the postgresql.conf lines the bench adds to localpg's.
var benchSettings = map[string]string{
	"max_wal_size": "4GB",
	// The writes-per-job meter reads the WAL of a drain after it (pg_walinspect): keep it.
	"wal_keep_size":               "2GB",
	"shared_preload_libraries":    "'pg_stat_statements'",
	"pg_stat_statements.track":    "top",
	"pg_stat_statements.max":      "5000",
	"track_io_timing":             "off",
	"log_autovacuum_min_duration": "-1",
}

// startCluster creates a cluster in a new temporary folder and starts it.
func startCluster(ctx context.Context, binDir string) (*cluster, error) {
	c, err := localpg.Start(ctx, localpg.Options{BinDir: binDir, Settings: benchSettings})
	if err != nil {
		return nil, err
	}
	return &cluster{Cluster: c, dir: c.Dir, port: c.Port}, nil
}

// url is a connection URL for user to database db.
func (c *cluster) url(user, db string) string { return c.URL(user, db) }

// remove stops the server at once and deletes the folder.
func (c *cluster) remove() error { return c.Remove() }

// createDatabase creates database name, dropping an existing one first.
func (c *cluster) createDatabase(ctx context.Context, name string) error {
	conn, err := pgx.Connect(ctx, c.url("postgres", "postgres"))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	ident := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+ident); err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// dropDatabase drops database name, ending its sessions.
func (c *cluster) dropDatabase(ctx context.Context, name string) error {
	conn, err := pgx.Connect(ctx, c.url("postgres", "postgres"))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// installJobq creates database name and installs jobq in it the documented way: jobq bootstrap
// as the superuser, then jobq migrate up as jobq_migrator. It also creates pg_stat_statements
// there, so the hot spots of the engine can be read.
func (c *cluster) installJobq(ctx context.Context, env *environment, name string) error {
	if err := c.createDatabase(ctx, name); err != nil {
		return err
	}
	steps := [][]string{
		{"bootstrap", "--database-url", c.url("postgres", name)},
		{"migrate", "up", "--database-url", c.url("jobq_migrator", name)},
	}
	for _, args := range steps {
		cmd := exec.CommandContext(ctx, env.jobqBin, args...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("jobq %s on %s: %w\n%s", args[0], name, err, lastChars(string(out), 2000))
		}
	}
	return execSQL(ctx, c.url("postgres", name), "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
}

// execSQL runs statements on a new connection to url.
func execSQL(ctx context.Context, url string, statements ...string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, s := range statements {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", firstLine(s), err)
		}
	}
	return nil
}

// queryFloat runs a query that returns one numeric value.
func queryFloat(ctx context.Context, conn *pgx.Conn, sql string, args ...any) (float64, error) {
	var v *float64
	if err := conn.QueryRow(ctx, sql, args...).Scan(&v); err != nil {
		return 0, fmt.Errorf("%s: %w", firstLine(sql), err)
	}
	if v == nil {
		return 0, fmt.Errorf("%s: NULL", firstLine(sql))
	}
	return *v, nil
}

// findPgBinDir returns the folder of initdb, pg_ctl and pgbench: $JOBQ_PG_BINDIR, else the
// newest /usr/lib/postgresql/*/bin that has them.
func findPgBinDir() (string, error) {
	if d := os.Getenv("JOBQ_PG_BINDIR"); d != "" {
		return d, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi > vj
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pgbench")); err == nil {
			if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
				return d, nil
			}
		}
	}
	return "", errors.New("no PostgreSQL server binaries with pgbench found (install postgresql-15, or set JOBQ_PG_BINDIR)")
}

func lastChars(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// waitFor polls cond every interval until it returns true, an error, or timeout passes.
func waitFor(ctx context.Context, timeout, interval time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not done after %s", what, timeout)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", what, ctx.Err())
		case <-time.After(interval):
		}
	}
}
