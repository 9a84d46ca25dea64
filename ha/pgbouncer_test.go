//go:build ha

package ha_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/localpg"
	"github.com/jobqdev/jobq/internal/proctest"
)

// TestPgBouncerTransactionMode runs two workers and an enqueuer through PgBouncer in transaction
// pooling mode (Debian's 1.18, which does not track prepared statements): with pgx's
// default_query_exec_mode=cache_describe every job runs exactly once; pgx's default (named
// prepared statements) fails with SQLSTATE 26000 as soon as a client's transaction lands on another
// server connection. Notifications do not cross a transaction pooler, so pickup falls back to the
// poll, unless the wake-up is --wakeup wal on a direct replication connection.
func TestPgBouncerTransactionMode(t *testing.T) {
	pgb, err := exec.LookPath("pgbouncer")
	if err != nil {
		pgb = "/usr/sbin/pgbouncer"
	}
	_, err = os.Stat(pgb)
	require.NoError(t, err, "pgbouncer is missing: install Debian's pgbouncer (make deps does)")
	ctx := context.Background()
	bin := jobqBin(t)

	cluster, err := localpg.Start(ctx, localpg.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cluster.Remove() })
	admin, err := pgx.Connect(ctx, cluster.URL("postgres", "postgres"))
	require.NoError(t, err)
	_, err = admin.Exec(ctx, "CREATE DATABASE jobq")
	require.NoError(t, err)
	admin.Close(ctx)
	for _, args := range [][]string{
		{"bootstrap", "--database-url", cluster.URL("postgres", "jobq")},
		{"migrate", "up", "--database-url", cluster.URL("jobq_migrator", "jobq")},
	} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		require.NoError(t, err, "jobq %s: %s", args[0], out)
	}

	port := startPgBouncer(t, pgb, cluster.Port)
	via := func(user, mode string) string {
		u := fmt.Sprintf("postgres://%s@127.0.0.1:%d/jobq", user, port)
		if mode != "" {
			u += "?default_query_exec_mode=" + mode
		}
		return u
	}

	// pgx's default caches named prepared statements per connection; PgBouncer 1.18 hands the
	// next transaction another server connection, which does not have them. Made certain here:
	// a second client holds the first server connection in a transaction (PgBouncer reuses the
	// most recent server first), so the first client's next query lands on a new one.
	t.Run("DefaultModeFails", func(t *testing.T) {
		c1, err := pgx.Connect(ctx, via("postgres", ""))
		require.NoError(t, err)
		defer c1.Close(ctx)
		_, err = c1.Exec(ctx, `SELECT jobq.queue_lag() FROM (SELECT $1::int) s`, 1)
		require.NoError(t, err)
		c2, err := pgx.Connect(ctx, via("postgres", ""))
		require.NoError(t, err)
		defer c2.Close(ctx)
		tx, err := c2.Begin(ctx)
		require.NoError(t, err)
		defer tx.Rollback(ctx)
		_, err = tx.Exec(ctx, "SELECT 1")
		require.NoError(t, err)
		_, err = c1.Exec(ctx, `SELECT jobq.queue_lag() FROM (SELECT $1::int) s`, 2)
		require.ErrorContains(t, err, "SQLSTATE 26000", "a named prepared statement does not follow the client to another server connection")

		// The same with cache_describe: unnamed statements, described once, work on any server
		// connection.
		c3, err := pgx.Connect(ctx, via("postgres", "cache_describe"))
		require.NoError(t, err)
		defer c3.Close(ctx)
		_, err = c3.Exec(ctx, `SELECT jobq.queue_lag() FROM (SELECT $1::int) s`, 1)
		require.NoError(t, err)
		require.NoError(t, tx.Rollback(ctx))
		tx, err = c2.Begin(ctx)
		require.NoError(t, err)
		_, err = tx.Exec(ctx, "SELECT 1")
		require.NoError(t, err)
		_, err = c3.Exec(ctx, `SELECT jobq.queue_lag() FROM (SELECT $1::int) s`, 2)
		require.NoError(t, err)
	})

	// Through the pooler with the poll and the LISTEN connection (which a transaction pooler
	// cannot keep), then with the wake-up of --wakeup wal, whose replication connection goes to
	// PostgreSQL directly (a pooler cannot carry replication).
	t.Run("CacheDescribeRunsEveryJobOnce", func(t *testing.T) {
		drainThroughPooler(ctx, t, bin, via, "notify", "")
	})
	t.Run("CacheDescribeWithWALWakeup", func(t *testing.T) {
		admin, err := pgx.Connect(ctx, cluster.URL("postgres", "jobq"))
		require.NoError(t, err)
		_, err = admin.Exec(ctx, `SELECT jobq.set_setting('wakeup', 'wal')`)
		require.NoError(t, err)
		_, err = admin.Exec(ctx, `TRUNCATE jobq.job_history`)
		require.NoError(t, err)
		admin.Close(ctx)
		drainThroughPooler(ctx, t, bin, via, "wal", cluster.URL("jobq_waker", "jobq"))
	})
}

func drainThroughPooler(ctx context.Context, t *testing.T, bin string, via func(user, mode string) string, wakeup, wakeupURL string) {
	{
		runs := filepath.Join(t.TempDir(), "runs")
		var ws []*proctest.Proc
		for range 2 {
			args := []string{"worker", "--database-url", via("worker_runtime", "cache_describe"), "--concurrency", "4",
				"--exec-command", `echo "$JOBQ_JOB_ID" >> "$RUNS"`, "--wakeup", wakeup}
			if wakeupURL != "" {
				args = append(args, "--wakeup-database-url", wakeupURL)
			}
			ws = append(ws, proctest.StartServing(t, bin, []string{"RUNS=" + runs}, args...))
		}
		for _, w := range ws {
			w.WaitStarted()
		}
		pool, err := pgxpool.New(ctx, via("postgres", "cache_describe"))
		require.NoError(t, err)
		defer pool.Close()
		const batch, singles = 500, 50
		_, err = pool.Exec(ctx, `SELECT jobq.enqueue('exec', jsonb_build_object('i', i)) FROM generate_series(1, $1::int) i`, batch)
		require.NoError(t, err)
		for i := range singles {
			_, err := pool.Exec(ctx, `SELECT jobq.enqueue('exec', jsonb_build_object('single', $1::int))`, i)
			require.NoError(t, err)
			time.Sleep(50 * time.Millisecond)
		}
		proctest.WaitUntil(t, ceiling, "every job finished", func() bool {
			var n int
			return pool.QueryRow(ctx, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded'`).Scan(&n) == nil && n == batch+singles
		})
		for _, w := range ws {
			w.Signal(syscall.SIGTERM)
		}
		for _, w := range ws {
			require.Equal(t, 0, w.Wait(time.Minute))
		}
		lines := readLines(t, runs)
		seen := map[string]int{}
		for _, l := range lines {
			seen[strings.TrimSpace(l)]++
		}
		dups := 0
		for _, k := range seen {
			dups += k - 1
		}
		var p50, p99 float64
		require.NoError(t, pool.QueryRow(ctx, `
			SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)
			FROM (SELECT extract(epoch FROM claimed_at - created_at) * 1000 AS ms FROM jobq.job_history
			      WHERE payload ? 'single') s`).Scan(&p50, &p99))
		warns := 0
		for _, w := range ws {
			warns += strings.Count(w.Logs.String(), `"level":"WARN"`) + strings.Count(w.Logs.String(), `"level":"ERROR"`)
		}
		t.Logf("through PgBouncer 1.18 (transaction mode, cache_describe, --wakeup %s): %d jobs, %d runs, %d duplicates, pickup of single jobs p50 %.0f ms p99 %.0f ms, %d warnings",
			wakeup, batch+singles, len(lines), dups, p50, p99, warns)
		require.Equal(t, batch+singles, len(seen))
		require.Zero(t, dups)
	}
}

// startPgBouncer starts pgbouncer in transaction mode in front of 127.0.0.1:pgPort (database jobq,
// trust) on a free port, as the postgres OS user when root, and stops it by PID when the test ends.
func startPgBouncer(t *testing.T, bin string, pgPort int) int {
	dir, err := os.MkdirTemp("", "jobq-pgbouncer-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ini := fmt.Sprintf(`[databases]
jobq = host=127.0.0.1 port=%d dbname=jobq
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
max_client_conn = 500
default_pool_size = 10
logfile = %s
`, pgPort, port, filepath.Join(dir, "users.txt"), filepath.Join(dir, "pgbouncer.log"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pgbouncer.ini"), []byte(ini), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "users.txt"), []byte("\"worker_runtime\" \"\"\n\"postgres\" \"\"\n"), 0o644))
	cmd := exec.Command(bin, filepath.Join(dir, "pgbouncer.ini"))
	if os.Geteuid() == 0 { // pgbouncer refuses to run as root
		u, err := user.Lookup("postgres")
		require.NoError(t, err)
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		require.NoError(t, os.Chown(dir, uid, gid))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
			t.Logf("pgbouncer.log:\n%s", tail(string(b), 4000))
		}
	})
	proctest.WaitUntil(t, time.Minute, "pgbouncer listening", func() bool {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return port
}
