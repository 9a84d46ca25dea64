// Package localpg starts and stops throwaway PostgreSQL clusters in a temporary folder on a free
// loopback port, for tests, the sandbox command, the demo and the benchmarks.
//
// PostgreSQL refuses to run as root; when the process is root, initdb and the server run as the
// "postgres" OS user (which Debian's packages create), and the folder is handed to that user.
// Authentication is "trust" on 127.0.0.1 only: a cluster from this package is never for
// production.
package localpg

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
)

// Options configure Start. The zero value is a cluster in a new temporary folder on a free port,
// with the binaries found by FindBinDir and settings tuned for fast tests.
type Options struct {
	// BinDir holds initdb, pg_ctl and postgres; "" = FindBinDir().
	BinDir string
	// Port to listen on; 0 = a free port.
	Port int
	// Settings are extra postgresql.conf lines (name -> value). They override the defaults,
	// which turn fsync off for speed; set "fsync" to "on" for durable benchmarks.
	Settings map[string]string
	// HBA are pg_hba.conf lines placed before the default ones (which trust every local
	// connection), so they take precedence: e.g. password authentication for some logins.
	HBA []string
}

// Cluster is a running (or stopped) throwaway cluster.
type Cluster struct {
	Dir    string // the temporary folder: data/ and the log are inside
	Port   int
	BinDir string
	cred   *syscall.Credential
}

// FindBinDir returns the folder holding initdb and pg_ctl: $JOBQ_PG_BINDIR, else
// `pg_config --bindir`, else the newest /usr/lib/postgresql/*/bin, else the folder of initdb on
// PATH.
func FindBinDir() (string, error) {
	if d := os.Getenv("JOBQ_PG_BINDIR"); d != "" {
		return d, nil
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		d := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("localpg: no PostgreSQL server binaries found (install postgresql-15, or set JOBQ_PG_BINDIR)")
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// FreePort asks the kernel for a free TCP port on 127.0.0.1.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Start creates a cluster in a new temporary folder and starts it. Call Remove when done.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	binDir := opts.BinDir
	if binDir == "" {
		var err error
		if binDir, err = FindBinDir(); err != nil {
			return nil, err
		}
	}
	port := opts.Port
	if port == 0 {
		var err error
		if port, err = FreePort(); err != nil {
			return nil, fmt.Errorf("localpg: free port: %w", err)
		}
	}
	return start(ctx, opts, binDir, port, opts.Port == 0)
}

// start is Start on port; chosen: the port was chosen here, and another may be chosen when it
// turns out to be taken.
func start(ctx context.Context, opts Options, binDir string, port int, chosen bool) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "jobq-pg-")
	if err != nil {
		return nil, fmt.Errorf("localpg: %w", err)
	}
	c := &Cluster{Dir: dir, Port: port, BinDir: binDir}
	if os.Geteuid() == 0 {
		if c.cred, err = postgresCredential(); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		if err := chownTree(dir, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	if err := c.run(ctx, "initdb", "-D", c.dataDir(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--locale=C"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := c.writeConf(opts.Settings); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := c.prependHBA(opts.HBA); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		err := c.Start(ctx)
		if err == nil {
			return c, nil
		}
		// A port FreePort found free can be taken before the server binds it: it is one of the
		// ephemeral ports, which every outgoing connection of the machine draws from. When this
		// function chose it, it chooses another and starts again.
		if !chosen || attempt == 5 || !c.portTaken() {
			os.RemoveAll(dir)
			return nil, err
		}
		if c.Port, err = FreePort(); err == nil {
			err = c.appendConf(fmt.Sprintf("port = %d\n", c.Port))
		}
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("localpg: another port: %w", err)
		}
	}
}

// portTaken reports whether the server's last start failed because its port was in use.
func (c *Cluster) portTaken() bool {
	log, err := os.ReadFile(c.LogFile())
	return err == nil && bytes.Contains(log, []byte("Address already in use"))
}

// appendConf appends lines to postgresql.conf (a later setting wins over an earlier one).
func (c *Cluster) appendConf(lines string) error {
	f, err := os.OpenFile(filepath.Join(c.dataDir(), "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	defer f.Close()
	_, err = f.WriteString(lines)
	return err
}

func (c *Cluster) dataDir() string { return filepath.Join(c.Dir, "data") }

// LogFile is the server log.
func (c *Cluster) LogFile() string { return filepath.Join(c.Dir, "server.log") }

func (c *Cluster) writeConf(extra map[string]string) error {
	settings := map[string]string{
		"listen_addresses":        "'127.0.0.1'",
		"port":                    strconv.Itoa(c.Port),
		"unix_socket_directories": "'" + c.Dir + "'",
		"fsync":                   "off",
		"full_page_writes":        "off",
		"max_connections":         "300",
		"shared_buffers":          "256MB",
		"log_min_messages":        "warning",
		"wal_level":               "logical",
		"max_replication_slots":   "10",
		"max_wal_senders":         "10",
	}
	for k, v := range extra {
		settings[k] = v
	}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString("\n# written by jobq's localpg: a throwaway cluster\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s = %s\n", k, settings[k])
	}
	f, err := os.OpenFile(filepath.Join(c.dataDir(), "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	defer f.Close()
	_, err = f.Write(b.Bytes())
	return err
}

// prependHBA puts lines before the existing rules of pg_hba.conf (the first matching rule wins).
func (c *Cluster) prependHBA(lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	path := filepath.Join(c.dataDir(), "pg_hba.conf")
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	body := "# added by jobq's localpg\n" + strings.Join(lines, "\n") + "\n\n" + string(old)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		return fmt.Errorf("localpg: %w", err)
	}
	if c.cred != nil {
		return os.Chown(path, int(c.cred.Uid), int(c.cred.Gid))
	}
	return nil
}

// Start starts the server (again, after Stop) and waits until it accepts connections.
func (c *Cluster) Start(ctx context.Context) error {
	return c.run(ctx, "pg_ctl", "start", "-D", c.dataDir(), "-l", c.LogFile(), "-w", "-t", "60")
}

// Stop stops the server (fast shutdown: open sessions are ended) and waits for it.
func (c *Cluster) Stop(ctx context.Context) error {
	return c.run(ctx, "pg_ctl", "stop", "-D", c.dataDir(), "-m", "fast", "-w", "-t", "60")
}

// Crash stops the server as a crash would (immediate shutdown: no checkpoint, sessions cut; the
// next Start runs crash recovery) and waits for it.
func (c *Cluster) Crash(ctx context.Context) error {
	return c.run(ctx, "pg_ctl", "stop", "-D", c.dataDir(), "-m", "immediate", "-w", "-t", "60")
}

// Remove stops the server if it runs and deletes the folder.
func (c *Cluster) Remove() error {
	if _, err := os.Stat(filepath.Join(c.dataDir(), "postmaster.pid")); err == nil {
		_ = c.run(context.Background(), "pg_ctl", "stop", "-D", c.dataDir(), "-m", "immediate", "-w", "-t", "60")
	}
	return os.RemoveAll(c.Dir)
}

// URL is a connection URL for user to database db over TCP on 127.0.0.1.
func (c *Cluster) URL(user, db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", user, c.Port, db)
}

func (c *Cluster) run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.BinDir, name), args...)
	cmd.Dir = c.Dir
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	// The server must outlive a cancelled context of whoever started it.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	out, err := cmd.CombinedOutput()
	if err != nil {
		logTail := ""
		if b, rerr := os.ReadFile(c.LogFile()); rerr == nil {
			logTail = tail(string(b), 2000)
		}
		return fmt.Errorf("localpg: %s %s: %w\n%s\n%s", name, strings.Join(args, " "), err, out, logTail)
	}
	return nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

func postgresCredential() (*syscall.Credential, error) {
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("localpg: running as root needs the OS user postgres (installed with the postgresql packages): %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func chownTree(dir string, uid, gid int) error {
	return filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chown(p, uid, gid)
	})
}

// WaitReady waits until the server accepts TCP connections or ctx ends.
func (c *Cluster) WaitReady(ctx context.Context) error {
	for {
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", c.Port), time.Second)
		if err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
