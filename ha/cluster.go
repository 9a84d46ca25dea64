// Package ha starts a throwaway high-availability PostgreSQL cluster for jobq's failure tests: one
// etcd and three PostgreSQL 15 nodes under Patroni, on free loopback ports in a temporary folder,
// with jobq bootstrapped and migrated on the leader. It installs nothing: Debian's patroni and
// etcd-server packages (make deps) provide the binaries, and a missing one is an error that says
// so. Every process it starts is recorded by PID and killed by Close, also after a failed test and
// on SIGINT or SIGTERM.
//
// The timings are small but valid for Patroni (loop_wait + 2 × retry_timeout ≤ ttl): ttl 12 s,
// loop_wait 2 s, retry_timeout 5 s, so a failover takes about ttl plus one loop. Authentication is
// trust on 127.0.0.1 and fsync is off: a cluster from this package is never for production.
package ha

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Database is the database Start creates and installs jobq into.
const Database = "jobq"

// Options configure Start.
type Options struct {
	// JobqBin is the jobq binary that runs bootstrap and migrate up (required).
	JobqBin string
	// PGBinDir holds postgres, initdb and pg_rewind; "" = /usr/lib/postgresql/15/bin.
	PGBinDir string
	// SynchronousMode turns on Patroni's synchronous_mode: a commit returns once one replica has
	// it, and only that replica may be promoted.
	SynchronousMode bool
	// TTL, LoopWait and RetryTimeout are Patroni's (seconds); 0 = 12, 2 and 5.
	TTL, LoopWait, RetryTimeout int
	// Logf reports progress; nil = nothing.
	Logf func(format string, args ...any)
}

// Node is one Patroni member and its PostgreSQL.
type Node struct {
	Name    string
	PGPort  int
	APIPort int
	Dir     string // config, data/ and patroni.log
	cmd     *exec.Cmd
	done    chan struct{}
	frozen  []int
}

// DataDir is the node's PostgreSQL data directory.
func (n *Node) DataDir() string { return filepath.Join(n.Dir, "data") }

// Cluster is a running etcd and three Patroni nodes.
type Cluster struct {
	Dir      string
	EtcdPort int
	Nodes    []*Node
	opts     Options
	cred     *syscall.Credential
	etcd     *exec.Cmd
	etcdDone chan struct{}
	peerPort int
	tracked  []*os.Process
	mu       sync.Mutex
	closed   bool
}

var (
	liveMu sync.Mutex
	live   = map[*Cluster]bool{}
	sigMu  sync.Once
)

// onSignal tears every live cluster down when the process is interrupted, then exits 130: a
// test stopped with Ctrl-C leaves no postmaster behind.
func onSignal() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		liveMu.Lock()
		cs := make([]*Cluster, 0, len(live))
		for c := range live {
			cs = append(cs, c)
		}
		liveMu.Unlock()
		for _, c := range cs {
			_ = c.Close()
		}
		os.Exit(130)
	}()
}

// Requirements returns an error naming each missing binary (patroni, etcd, PostgreSQL 15).
func Requirements(pgBinDir string) error {
	if pgBinDir == "" {
		pgBinDir = "/usr/lib/postgresql/15/bin"
	}
	var missing []string
	for _, b := range []string{"patroni", "patronictl", "etcd"} {
		if _, err := exec.LookPath(b); err != nil {
			missing = append(missing, b)
		}
	}
	for _, b := range []string{"postgres", "initdb", "pg_rewind", "pg_basebackup"} {
		if _, err := os.Stat(filepath.Join(pgBinDir, b)); err != nil {
			missing = append(missing, filepath.Join(pgBinDir, b))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("ha: missing %s: install Debian's patroni, etcd-server and postgresql-15 (make deps does)", strings.Join(missing, ", "))
	}
	return nil
}

func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Start starts etcd and three Patroni nodes, waits for a leader and two replicas streaming from
// it (one of them synchronous with SynchronousMode: WaitHealthy), then creates database jobq on
// the leader, runs jobq bootstrap and jobq migrate up through the multi-host URL, and waits until
// every node, read on its own, has jobq's schema (WaitJobq). On error everything started is torn
// down.
func Start(ctx context.Context, opts Options) (c *Cluster, err error) {
	if opts.PGBinDir == "" {
		opts.PGBinDir = "/usr/lib/postgresql/15/bin"
	}
	if opts.TTL == 0 {
		opts.TTL, opts.LoopWait, opts.RetryTimeout = 12, 2, 5
	}
	if opts.LoopWait+2*opts.RetryTimeout > opts.TTL {
		return nil, fmt.Errorf("ha: loop_wait + 2 × retry_timeout must not exceed ttl")
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	if opts.JobqBin == "" {
		return nil, errors.New("ha: Options.JobqBin is required")
	}
	if err := Requirements(opts.PGBinDir); err != nil {
		return nil, err
	}
	sigMu.Do(onSignal)
	dir, err := os.MkdirTemp("", "jobq-ha-")
	if err != nil {
		return nil, err
	}
	c = &Cluster{Dir: dir, opts: opts}
	liveMu.Lock()
	live[c] = true
	liveMu.Unlock()
	defer func() {
		if err != nil {
			_ = c.Close()
			c = nil
		}
	}()
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root: everything runs as Debian's postgres user.
		u, err := user.Lookup("postgres")
		if err != nil {
			return c, fmt.Errorf("ha: running as root needs the postgres OS user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			return c, err
		}
	}
	ports, err := freePorts(8)
	if err != nil {
		return c, err
	}
	c.EtcdPort = ports[0]
	if err := c.startEtcd(ports[1]); err != nil {
		return c, err
	}
	for i := range 3 {
		n := &Node{Name: fmt.Sprintf("node%d", i+1), PGPort: ports[2+2*i], APIPort: ports[3+2*i],
			Dir: filepath.Join(dir, fmt.Sprintf("node%d", i+1))}
		if err := c.mkdir(n.Dir); err != nil {
			return c, err
		}
		c.Nodes = append(c.Nodes, n)
	}
	for i, n := range c.Nodes {
		if err := c.writeConfig(n); err != nil {
			return c, err
		}
		if err := c.StartNode(n); err != nil {
			return c, err
		}
		if i == 0 {
			// The first node bootstraps the cluster; the others join it as replicas.
			if _, err := c.WaitLeader(ctx, nil, 90*time.Second); err != nil {
				return c, err
			}
		}
	}
	if err := c.WaitHealthy(ctx, 120*time.Second); err != nil {
		return c, err
	}
	return c, c.installJobq(ctx)
}

func (c *Cluster) mkdir(d string) error {
	if err := os.MkdirAll(d, 0o700); err != nil {
		return err
	}
	if c.cred != nil {
		return os.Chown(d, int(c.cred.Uid), int(c.cred.Gid))
	}
	return nil
}

func (c *Cluster) command(logFile string, name string, args ...string) (*exec.Cmd, error) {
	f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Dir = c.Dir
	// Its own process group, so that Close kills what it forks (pg_basebackup, pg_rewind) too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: c.cred}
	cmd.Env = append(os.Environ(), "HOME="+c.Dir)
	return cmd, nil
}

func (c *Cluster) startEtcd(peerPort int) error {
	data := filepath.Join(c.Dir, "etcd")
	if err := c.mkdir(data); err != nil {
		return err
	}
	client := fmt.Sprintf("http://127.0.0.1:%d", c.EtcdPort)
	peer := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	cmd, err := c.command(filepath.Join(c.Dir, "etcd.log"), "etcd", "--name", "etcd1", "--data-dir", data,
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "etcd1="+peer, "--initial-cluster-state", "new",
		"--heartbeat-interval", "100", "--election-timeout", "1000")
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("ha: start etcd: %w", err)
	}
	c.mu.Lock()
	c.etcd, c.etcdDone, c.peerPort = cmd, make(chan struct{}), peerPort
	done := c.etcdDone
	c.mu.Unlock()
	go func() { _ = cmd.Wait(); close(done) }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(client + "/health")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if bytes.Contains(body, []byte(`"true"`)) {
				c.opts.Logf("etcd on 127.0.0.1:%d (pid %d)", c.EtcdPort, cmd.Process.Pid)
				return nil
			}
		}
		select {
		case <-done:
			return fmt.Errorf("ha: etcd exited; see %s", filepath.Join(c.Dir, "etcd.log"))
		case <-time.After(100 * time.Millisecond):
		}
	}
	return errors.New("ha: etcd not healthy within 30s")
}

// StopEtcd kills etcd (SIGKILL) and waits for it to exit; its data stays for StartEtcd.
func (c *Cluster) StopEtcd() error {
	c.mu.Lock()
	cmd, done := c.etcd, c.etcdDone
	c.mu.Unlock()
	if cmd == nil {
		return nil
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
	c.mu.Lock()
	c.etcd = nil
	c.mu.Unlock()
	return nil
}

// StartEtcd starts etcd again on the same ports and data.
func (c *Cluster) StartEtcd() error {
	peer, err := c.etcdPeerPort()
	if err != nil {
		return err
	}
	return c.startEtcd(peer)
}

func (c *Cluster) etcdPeerPort() (int, error) {
	// The peer port is in the first start's command line.
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.peerPort == 0 {
		return 0, errors.New("ha: etcd peer port unknown")
	}
	return c.peerPort, nil
}

func (c *Cluster) writeConfig(n *Node) error {
	sync := "false"
	if c.opts.SynchronousMode {
		sync = "true"
	}
	hba := `
    - local all all trust
    - local replication all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust`
	conf := fmt.Sprintf(`scope: jobq-ha
namespace: /jobq-ha/
name: %[1]s
log:
  level: INFO
restapi:
  listen: 127.0.0.1:%[2]d
  connect_address: 127.0.0.1:%[2]d
etcd3:
  hosts: 127.0.0.1:%[3]d
bootstrap:
  dcs:
    ttl: %[4]d
    loop_wait: %[5]d
    retry_timeout: %[6]d
    maximum_lag_on_failover: 1048576
    synchronous_mode: %[7]s
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        wal_level: logical
        wal_log_hints: 'on'
        full_page_writes: 'on'
        fsync: 'off'
        max_connections: 200
        max_wal_senders: 10
        max_replication_slots: 10
        hot_standby: 'on'
        wal_keep_size: 256MB
  initdb:
    - encoding: UTF8
    - locale: C
    - auth: trust
postgresql:
  listen: 127.0.0.1:%[8]d
  connect_address: 127.0.0.1:%[8]d
  data_dir: %[9]s
  bin_dir: %[10]s
  pgpass: %[11]s
  authentication:
    superuser:
      username: postgres
      password: postgres
    replication:
      username: replicator
      password: replicator
  parameters:
    unix_socket_directories: '%[12]s'
    log_min_messages: warning
  pg_hba:%[13]s
`, n.Name, n.APIPort, c.EtcdPort, c.opts.TTL, c.opts.LoopWait, c.opts.RetryTimeout, sync,
		n.PGPort, n.DataDir(), c.opts.PGBinDir, filepath.Join(n.Dir, "pgpass"), n.Dir, hba)
	path := filepath.Join(n.Dir, "patroni.yml")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return err
	}
	if c.cred != nil {
		return os.Chown(path, int(c.cred.Uid), int(c.cred.Gid))
	}
	return nil
}

// StartNode starts the node's Patroni (which starts its PostgreSQL).
func (c *Cluster) StartNode(n *Node) error {
	cmd, err := c.command(filepath.Join(n.Dir, "patroni.log"), "patroni", filepath.Join(n.Dir, "patroni.yml"))
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("ha: start patroni %s: %w", n.Name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	c.mu.Lock()
	n.cmd, n.done = cmd, done
	c.mu.Unlock()
	c.opts.Logf("patroni %s: postgres 127.0.0.1:%d, REST 127.0.0.1:%d (pid %d)", n.Name, n.PGPort, n.APIPort, cmd.Process.Pid)
	return nil
}

// PostmasterPID reads the node's postmaster.pid; 0 when PostgreSQL is not running.
func (n *Node) PostmasterPID() int {
	b, err := os.ReadFile(filepath.Join(n.DataDir(), "postmaster.pid"))
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	// A stale file (after a kill -9) may name a PID that the system gave to another process
	// since: only a live process named postgres counts.
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if pid <= 0 || err != nil || strings.TrimSpace(string(comm)) != "postgres" || !alive(pid) {
		return 0
	}
	return pid
}

// KillPostmaster sends SIGKILL to the node's postmaster only (its backends notice and exit; Patroni
// keeps running) and returns the PID it killed.
func (c *Cluster) KillPostmaster(n *Node) (int, error) {
	pid := n.PostmasterPID()
	if pid == 0 {
		return 0, fmt.Errorf("ha: %s has no running postmaster", n.Name)
	}
	return pid, syscall.Kill(pid, syscall.SIGKILL)
}

// KillNode sends SIGKILL to the node's Patroni, its postmaster and every child, as a machine that
// loses power, and waits until they are gone. StartNode brings the node back.
func (c *Cluster) KillNode(n *Node) error {
	ps := n.procs()
	if len(ps) == 0 {
		return fmt.Errorf("ha: %s runs nothing", n.Name)
	}
	for _, p := range ps {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	if n.done != nil {
		<-n.done
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, p := range ps {
		for alive(p) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}

// procs lists the node's live processes: Patroni and what it forked, the postmaster and its
// children (PostgreSQL's children each call setsid, so a process group does not hold them: the
// list walks /proc by parent PID).
func (n *Node) procs() []int {
	var roots []int
	if n.cmd != nil && n.cmd.Process != nil && alive(n.cmd.Process.Pid) {
		roots = append(roots, n.cmd.Process.Pid)
	}
	if pm := n.PostmasterPID(); pm > 0 {
		roots = append(roots, pm)
	}
	return descendants(roots)
}

// descendants returns roots and every live process below them.
func descendants(roots []int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, state := procStat(pid); state != 0 && state != 'Z' {
			children[ppid] = append(children[ppid], pid)
		}
	}
	seen := map[int]bool{}
	var out []int
	var walk func(int)
	walk = func(p int) {
		if seen[p] {
			return
		}
		seen[p] = true
		out = append(out, p)
		for _, ch := range children[p] {
			walk(ch)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	return out
}

// procStat reads a process's parent PID and state letter from /proc (state 0: no such process).
func procStat(pid int) (ppid int, state byte) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+4 >= len(b) {
		return 0, 0
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 2 {
		return 0, 0
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0][0]
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	_, st := procStat(pid)
	return st != 0 && st != 'Z'
}

// Freeze stops the whole node with SIGSTOP, as a machine that hangs: Patroni, the postmaster and
// every backend. Thaw resumes it.
func (c *Cluster) Freeze(n *Node) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Twice: a process forked while the first pass ran is stopped by the second.
	for range 2 {
		for _, p := range n.procs() {
			if err := syscall.Kill(p, syscall.SIGSTOP); err == nil && !contains(n.frozen, p) {
				n.frozen = append(n.frozen, p)
			}
		}
	}
	return nil
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Thaw resumes a frozen node with SIGCONT.
func (c *Cluster) Thaw(n *Node) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range n.frozen {
		_ = syscall.Kill(p, syscall.SIGCONT)
	}
	n.frozen = nil
	return nil
}

// Track adds a process that uses the cluster (a worker, a dashboard) to those Close kills, so
// that an interrupted test leaves none behind.
func (c *Cluster) Track(p *os.Process) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tracked = append(c.tracked, p)
}

// Close kills every process the cluster started and every tracked one, by PID (SIGKILL, and
// SIGCONT for a frozen node), waits for the cluster's, and removes the folder. Safe to call twice.
func (c *Cluster) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	liveMu.Lock()
	delete(live, c)
	liveMu.Unlock()
	for _, p := range c.tracked {
		_ = p.Kill() // an exited process answers an error: nothing to do
	}
	for _, n := range c.Nodes {
		ps := n.procs()
		for _, p := range ps {
			_ = syscall.Kill(p, syscall.SIGKILL)
			_ = syscall.Kill(p, syscall.SIGCONT)
		}
		if n.done != nil {
			select {
			case <-n.done:
			case <-time.After(10 * time.Second):
			}
		}
		// The postmaster and its children are not ours to wait for: poll until they are gone
		// before removing their folder.
		deadline := time.Now().Add(10 * time.Second)
		for _, p := range ps {
			for alive(p) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	_ = c.StopEtcd()
	if os.Getenv("JOBQ_HA_KEEP") != "" {
		c.opts.Logf("kept %s (JOBQ_HA_KEEP)", c.Dir)
		return nil
	}
	return os.RemoveAll(c.Dir)
}

// URL is the multi-host URL of database jobq as user: every node, read-write sessions only, so a
// client always reaches the current primary.
func (c *Cluster) URL(user string) string {
	hosts := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		hosts[i] = fmt.Sprintf("127.0.0.1:%d", n.PGPort)
	}
	return fmt.Sprintf("postgres://%s@%s/%s?target_session_attrs=read-write&connect_timeout=3", user, strings.Join(hosts, ","), Database)
}

// NodeURL is the URL of database jobq on one node, whatever its role.
func (c *Cluster) NodeURL(n *Node, user string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?connect_timeout=3", user, n.PGPort, Database)
}

// Member is one entry of Patroni's GET /cluster.
type Member struct {
	Name     string `json:"name"`
	Role     string `json:"role"` // leader, replica, sync_standby
	State    string `json:"state"`
	Timeline int    `json:"timeline"`
	Lag      any    `json:"lag"`
}

// Members asks any reachable node's REST API for the cluster's members.
func (c *Cluster) Members(ctx context.Context) ([]Member, error) {
	var last error
	for _, n := range c.Nodes {
		var body struct {
			Members []Member `json:"members"`
		}
		if err := c.api(ctx, n, "GET", "/cluster", nil, &body); err != nil {
			last = err
			continue
		}
		return body.Members, nil
	}
	return nil, last
}

func (c *Cluster) api(ctx context.Context, n *Node, method, path string, in, out any) error {
	// GET /cluster answers at once; POST /switchover answers once the new leader runs.
	timeout := 2 * time.Second
	if method != "GET" {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var body io.Reader
	if in != nil {
		b, _ := json.Marshal(in)
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, fmt.Sprintf("http://127.0.0.1:%d%s", n.APIPort, path), body)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("ha: %s %s on %s: %d %s", method, path, n.Name, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// Node returns the node named name.
func (c *Cluster) Node(name string) *Node {
	for _, n := range c.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// WaitLeader waits until Patroni reports a running leader other than not (nil: any) that accepts
// writes, and returns it.
func (c *Cluster) WaitLeader(ctx context.Context, not *Node, timeout time.Duration) (*Node, error) {
	deadline := time.Now().Add(timeout)
	for {
		if ms, err := c.Members(ctx); err == nil {
			for _, m := range ms {
				if m.Role == "leader" && m.State == "running" && (not == nil || m.Name != not.Name) {
					if n := c.Node(m.Name); n != nil && c.writable(ctx, n) {
						return n, nil
					}
				}
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("ha: no leader within %s", timeout)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (c *Cluster) writable(ctx context.Context, n *Node) bool {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres", n.PGPort))
	if err != nil {
		return false
	}
	defer conn.Close(context.Background())
	var ro bool
	return conn.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&ro) == nil && !ro
}

// WaitHealthy waits until the cluster is whole: one running leader, and every other member a
// replica (one of them sync_standby under SynchronousMode) that streams from that leader now.
//
// Patroni's GET /cluster alone does not say so in the version Debian ships (3.0.2): a replica's
// state there is PostgreSQL's ("running" once it accepts read-only connections), also while it
// replays from no leader at all or from a timeline the leader left; only from Patroni 3.0.4 on is
// a streaming replica's state "streaming" ("in archive recovery" when it is not). So a replica
// counts when Patroni reports it running or streaming on the leader's timeline with a known lag
// (a number of bytes, not "unknown": it published its WAL position), AND the leader's
// pg_stat_replication has its walsender in state streaming for it (Patroni names the
// connection after the member). A replica that is merely up is not enough: the switchover
// scenario once began against replicas that followed nothing and had no jobq database.
func (c *Cluster) WaitHealthy(ctx context.Context, timeout time.Duration) error {
	return poll(ctx, timeout, "cluster not healthy", func() error { return c.health(ctx) })
}

// poll calls check every 200 ms until it returns nil, and fails with what it last returned,
// prefixed with what, once timeout has passed.
func poll(ctx context.Context, timeout time.Duration, what string, check func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("ha: %s within %s: %w", what, timeout, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (%s: %v)", ctx.Err(), what, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// health is nil when the cluster is whole now (WaitHealthy's rule), else why not, naming the
// member.
func (c *Cluster) health(ctx context.Context) error {
	ms, err := c.Members(ctx)
	if err != nil {
		return err
	}
	var leader *Member
	for i, m := range ms {
		if m.Role == "leader" {
			if leader != nil {
				return fmt.Errorf("two leaders: %+v", ms)
			}
			leader = &ms[i]
		}
	}
	if leader == nil || leader.State != "running" {
		return fmt.Errorf("no running leader: %+v", ms)
	}
	ln := c.Node(leader.Name)
	if ln == nil {
		return fmt.Errorf("leader %q is not a node of this cluster", leader.Name)
	}
	walsenders, err := c.streaming(ctx, ln)
	if err != nil {
		return fmt.Errorf("leader %s: pg_stat_replication: %v", ln.Name, err)
	}
	replicas, syncs := 0, 0
	for _, m := range ms {
		if m.Name == leader.Name {
			continue
		}
		switch {
		case m.Role != "replica" && m.Role != "sync_standby":
			return fmt.Errorf("%s: role %q, not a replica", m.Name, m.Role)
		case m.State != "running" && m.State != "streaming":
			return fmt.Errorf("%s: state %q, neither running nor streaming", m.Name, m.State)
		case m.Timeline != 0 && leader.Timeline != 0 && m.Timeline != leader.Timeline:
			return fmt.Errorf("%s: timeline %d, the leader %s is on %d", m.Name, m.Timeline, leader.Name, leader.Timeline)
		}
		if _, known := m.Lag.(float64); !known {
			return fmt.Errorf("%s: lag %v, not known", m.Name, m.Lag)
		}
		if !walsenders[m.Name] {
			return fmt.Errorf("%s: no walsender of the leader %s streams to it (pg_stat_replication)", m.Name, leader.Name)
		}
		replicas++
		if m.Role == "sync_standby" {
			syncs++
		}
	}
	if replicas != len(c.Nodes)-1 {
		return fmt.Errorf("%d replicas of %d: %+v", replicas, len(c.Nodes)-1, ms)
	}
	if c.opts.SynchronousMode && syncs < 1 {
		return fmt.Errorf("no sync_standby under synchronous_mode: %+v", ms)
	}
	return nil
}

// streaming is the set of application names the node's walsenders stream to now.
func (c *Cluster) streaming(ctx context.Context, n *Node) (map[string]bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres", n.PGPort))
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, "SELECT application_name FROM pg_catalog.pg_stat_replication WHERE state = 'streaming'")
	if err != nil {
		return nil, err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	set := make(map[string]bool, len(names))
	for _, name := range names {
		set[name] = true
	}
	return set, nil
}

// WaitJobq waits until every node serves database jobq with the leader's schema: the newest
// applied migration of jobq.goose_db_version, read on each node itself (read-only on a replica),
// equals the leader's, and the runtime roles exist. Start calls it before returning, and the
// scenarios before each one: a replica that lacks jobq fails here, by name, instead of in
// whichever scenario first reaches it.
func (c *Cluster) WaitJobq(ctx context.Context, timeout time.Duration) error {
	return poll(ctx, timeout, "jobq's schema not on every node", func() error { return c.jobqEverywhere(ctx) })
}

func (c *Cluster) jobqEverywhere(ctx context.Context) error {
	leader := c.Leader(ctx)
	if leader == nil {
		return errors.New("no leader")
	}
	want, err := c.schemaVersion(ctx, leader)
	if err != nil {
		return fmt.Errorf("%s (leader): %w", leader.Name, err)
	}
	for _, n := range c.Nodes {
		if n == leader {
			continue
		}
		got, err := c.schemaVersion(ctx, n)
		if err != nil {
			return fmt.Errorf("%s (replica): %w", n.Name, err)
		}
		if got != want {
			return fmt.Errorf("%s (replica): jobq schema at migration %d, the leader %s at %d", n.Name, got, leader.Name, want)
		}
	}
	return nil
}

// schemaVersion is the newest applied migration of jobq on the node, read there.
func (c *Cluster) schemaVersion(ctx context.Context, n *Node) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.NodeURL(n, "postgres"))
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.Background())
	var v int64
	var roles bool
	err = conn.QueryRow(ctx, `SELECT (SELECT coalesce(max(version_id), 0) FROM jobq.goose_db_version WHERE is_applied),
		to_regrole('jobq_migrator') IS NOT NULL AND to_regrole('worker_runtime') IS NOT NULL`).Scan(&v, &roles)
	if err != nil {
		return 0, err
	}
	if v == 0 {
		return 0, errors.New("jobq.goose_db_version holds no applied migration")
	}
	if !roles {
		return 0, errors.New("the roles jobq_migrator and worker_runtime are missing")
	}
	return v, nil
}

// Leader returns the node Patroni names leader now (nil: none).
func (c *Cluster) Leader(ctx context.Context) *Node {
	ms, err := c.Members(ctx)
	if err != nil {
		return nil
	}
	for _, m := range ms {
		if m.Role == "leader" {
			return c.Node(m.Name)
		}
	}
	return nil
}

// Switchover asks Patroni (REST API, as patronictl switchover does) to hand the leadership from
// leader to candidate now.
//
// Patroni answers 503 "Switchover failed" and keeps its leader when the candidate is not ready
// to take over yet (a replica still replaying what the leader just wrote: jobq's install, a
// rejoin); Switchover then asks again, once a second, for up to 30 s, while leader still leads.
func (c *Cluster) Switchover(ctx context.Context, leader, candidate *Node) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := c.api(ctx, leader, "POST", "/switchover", map[string]string{"leader": leader.Name, "candidate": candidate.Name}, nil)
		if err == nil || !strings.Contains(err.Error(), ": 503 ") || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Second):
		}
		if l := c.Leader(ctx); l == nil || l.Name != leader.Name {
			return fmt.Errorf("%w (and %s no longer leads)", err, leader.Name)
		}
		c.opts.Logf("switchover: %v; asking again", err)
	}
}

func (c *Cluster) installJobq(ctx context.Context) error {
	leader, err := c.WaitLeader(ctx, nil, 30*time.Second)
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres", leader.PGPort))
	if err != nil {
		return err
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+Database)
	conn.Close(context.Background())
	if err != nil {
		return err
	}
	for _, args := range [][]string{
		{"bootstrap", "--database-url", c.URL("postgres")},
		{"migrate", "up", "--database-url", c.URL("jobq_migrator")},
	} {
		cmd := exec.CommandContext(ctx, c.opts.JobqBin, args...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("ha: jobq %s: %w\n%s", strings.Join(args[:len(args)-2], " "), err, out)
		}
	}
	c.opts.Logf("jobq installed on %s (leader)", leader.Name)
	if err := c.WaitJobq(ctx, 2*time.Minute); err != nil {
		return err
	}
	c.opts.Logf("jobq's schema read on every node")
	return nil
}
