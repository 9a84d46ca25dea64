package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// cluster is the throwaway PostgreSQL cluster every scenario runs against. The harness starts
// its own (rather than `jobq sandbox`) so that pg_stat_statements can be preloaded; the settings
// are otherwise those of jobq's sandbox: fsync off, wal_level logical, trust on loopback.
type cluster struct {
	dir    string
	port   int
	binDir string
	cred   *syscall.Credential
}

// clusterSettings are the postgresql.conf lines of the bench cluster.
func clusterSettings(dir string, port int) map[string]string {
	return map[string]string{
		"listen_addresses":            "'127.0.0.1'",
		"port":                        strconv.Itoa(port),
		"unix_socket_directories":     "'" + dir + "'",
		"fsync":                       "off",
		"full_page_writes":            "off",
		"max_connections":             "300",
		"shared_buffers":              "256MB",
		"log_min_messages":            "warning",
		"wal_level":                   "logical",
		"max_replication_slots":       "10",
		"max_wal_senders":             "10",
		"max_wal_size":                "4GB",
		"shared_preload_libraries":    "'pg_stat_statements'",
		"pg_stat_statements.track":    "top",
		"pg_stat_statements.max":      "5000",
		"track_io_timing":             "off",
		"log_autovacuum_min_duration": "-1",
	}
}

// startCluster creates a cluster in a new temporary folder and starts it. When the harness runs
// as root, initdb and the server run as the OS user postgres.
func startCluster(ctx context.Context, binDir string) (*cluster, error) {
	port, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("free port: %w", err)
	}
	dir, err := os.MkdirTemp("", "jobq-bench-pg-")
	if err != nil {
		return nil, fmt.Errorf("cluster folder: %w", err)
	}
	c := &cluster{dir: dir, port: port, binDir: binDir}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root needs the OS user postgres: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("chown cluster folder: %w", err)
		}
	}
	if err := c.run(ctx, "initdb", "-D", c.dataDir(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--locale=C"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := c.writeConf(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := c.run(ctx, "pg_ctl", "start", "-D", c.dataDir(), "-l", c.logFile(), "-w", "-t", "60"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

func (c *cluster) dataDir() string { return filepath.Join(c.dir, "data") }

func (c *cluster) logFile() string { return filepath.Join(c.dir, "server.log") }

// url is a connection URL for user to database db.
func (c *cluster) url(user, db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", user, c.port, db)
}

func (c *cluster) writeConf() error {
	settings := clusterSettings(c.dir, c.port)
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString("\n# written by jobq's bench harness: a throwaway cluster\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s = %s\n", k, settings[k])
	}
	f, err := os.OpenFile(filepath.Join(c.dataDir(), "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("postgresql.conf: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(b.Bytes()); err != nil {
		return fmt.Errorf("postgresql.conf: %w", err)
	}
	return nil
}

// remove stops the server at once and deletes the folder.
func (c *cluster) remove() error {
	if _, err := os.Stat(filepath.Join(c.dataDir(), "postmaster.pid")); err == nil {
		_ = c.run(context.Background(), "pg_ctl", "stop", "-D", c.dataDir(), "-m", "immediate", "-w", "-t", "60")
	}
	return os.RemoveAll(c.dir)
}

func (c *cluster) run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.binDir, name), args...)
	cmd.Dir = c.dir
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	// The server must outlive a cancelled context of the harness until remove stops it.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	out, err := cmd.CombinedOutput()
	if err != nil {
		logTail := ""
		if b, rerr := os.ReadFile(c.logFile()); rerr == nil {
			logTail = lastChars(string(b), 2000)
		}
		return fmt.Errorf("%s %s: %w\n%s\n%s", name, strings.Join(args, " "), err, out, logTail)
	}
	return nil
}

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

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
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
