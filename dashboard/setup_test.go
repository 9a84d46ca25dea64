package dashboard_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/dashboard"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/localpg"
	"github.com/jobqdev/jobq/internal/proctest"
	"github.com/jobqdev/jobq/migrate"
)

// The logins of the tests. The first three sign in with a password (scram-sha-256 in the
// cluster's pg_hba.conf); dash_trusted is let in by trust authentication, which the dashboard
// must refuse.
const (
	alicePassword = "alice-Secret-7431"
	bobPassword   = "bob-Secret-1187"
	staffPassword = "staff-Secret-5520"
	storeA        = "aaaaaaaa-0000-4000-8000-00000000000a"
	storeB        = "bbbbbbbb-0000-4000-8000-00000000000b"
)

// env is a migrated database on a cluster of the test's own (its pg_hba.conf checks the sign-in
// logins' passwords), a dashboard served by httptest, and the log it wrote.
type env struct {
	cluster *localpg.Cluster
	admin   *pgx.Conn     // superuser
	worker  *pgxpool.Pool // worker_runtime
	reader  *pgxpool.Pool // jobq_dashboard
	dash    *dashboard.Dashboard
	server  *httptest.Server
	logs    *proctest.LineBuffer
}

// newEnv starts everything; opts may adjust the dashboard's options.
func newEnv(t *testing.T, adjust func(*dashboard.Options)) *env {
	t.Helper()
	ctx := dbtest.Ctx(t)
	c := dbtest.StartClusterWith(t, localpg.Options{HBA: []string{
		"host all dash_alice,dash_bob,dash_staff 127.0.0.1/32 scram-sha-256",
	}})
	dbtest.CreateDatabase(t, c, "jobq")
	admin := dbtest.Connect(t, c.URL("postgres", "jobq"))
	if err := migrate.Bootstrap(ctx, admin, migrate.BootstrapOptions{}); err != nil {
		t.Fatalf("bootstrap: %v", err)
	}
	m, err := migrate.Open(ctx, c.URL("jobq_migrator", "jobq"))
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if _, err := m.Up(ctx); err != nil {
		t.Fatalf("migrate up: %v", err)
	}
	m.Close()
	mustExec(t, admin, `
		CREATE ROLE dash_alice LOGIN PASSWORD '`+alicePassword+`' IN ROLE jobq_operator;
		CREATE ROLE dash_bob LOGIN PASSWORD '`+bobPassword+`' IN ROLE jobq_operator;
		CREATE ROLE dash_staff LOGIN PASSWORD '`+staffPassword+`' IN ROLE jobq_app;
		CREATE ROLE dash_trusted LOGIN IN ROLE jobq_operator;
		SELECT jobq.bind_store('dash_staff', '`+storeA+`');
		SELECT jobq.define_task('mail', queue => 'emails', description => 'sends one e-mail');
		SELECT jobq.define_task('report', queue => 'reports');
		SELECT jobq.define_task('sync', scope => 'store', queue => 'stores');
		SELECT jobq.schedule('nightly-report', '0 3 * * *', 'report', timezone => 'Asia/Tokyo');`)

	e := &env{cluster: c, admin: admin, logs: &proctest.LineBuffer{}}
	e.worker = pool(t, c.URL("worker_runtime", "jobq"))
	e.reader = pool(t, c.URL("jobq_dashboard", "jobq"))
	e.dash, e.server = e.serve(t, adjust)
	return e
}

// serve starts one more dashboard on the env's database (its own sessions and limits).
func (e *env) serve(t *testing.T, adjust func(*dashboard.Options)) (*dashboard.Dashboard, *httptest.Server) {
	t.Helper()
	signIn, err := pgx.ParseConfig(e.cluster.URL("jobq_dashboard", "jobq"))
	if err != nil {
		t.Fatal(err)
	}
	opts := dashboard.Options{
		Reader: e.reader, SignIn: signIn, Refresh: 500 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(e.logs, nil)), Version: "test",
	}
	if adjust != nil {
		adjust(&opts)
	}
	d, err := dashboard.New(dbtest.Ctx(t), opts)
	if err != nil {
		t.Fatalf("dashboard.New: %v", err)
	}
	t.Cleanup(d.Close)
	srv := httptest.NewServer(d)
	t.Cleanup(srv.Close)
	return d, srv
}

func pool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	p, err := pgxpool.New(dbtest.Ctx(t), url)
	if err != nil {
		t.Fatalf("pool %s: %v", url, err)
	}
	t.Cleanup(p.Close)
	return p
}

func mustExec(t *testing.T, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(dbtest.Ctx(t), sql, args...); err != nil {
		t.Fatalf("%s: %v", strings.TrimSpace(sql), err)
	}
}

func queryInt(t *testing.T, conn *pgx.Conn, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := conn.QueryRow(dbtest.Ctx(t), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// enqueue adds a job as the superuser and returns its id.
func (e *env) enqueue(t *testing.T, task, queue, store string, maxAttempts int) int64 {
	t.Helper()
	var storeArg any
	if store != "" {
		storeArg = store
	}
	return queryInt(t, e.admin, `SELECT jobq.enqueue($1, '{"to":"someone@example.com"}', queue => $2, store_id => $3::uuid, max_attempts => $4)`,
		task, queue, storeArg, maxAttempts)
}

// kill makes job id dead: a worker claims it and fails it for good.
func (e *env) kill(t *testing.T, queue string, n int) {
	t.Helper()
	ctx := dbtest.Ctx(t)
	c := jobq.NewClient(e.worker)
	jobs, err := c.Claim(ctx, "test-killer", []string{queue}, n, 30*time.Second)
	if err != nil || len(jobs) != n {
		t.Fatalf("claim %d from %s: %d jobs, %v", n, queue, len(jobs), err)
	}
	var fs []jobq.Failure
	for _, j := range jobs {
		fs = append(fs, jobq.Failure{Lease: j.Lease(), Error: "smtp: 550 mailbox unavailable", ErrorCode: "MAIL.REJECTED", Fatal: true})
	}
	if _, err := c.Fail(ctx, fs); err != nil {
		t.Fatalf("fail: %v", err)
	}
}

// chromium returns Debian's chromium, failing the test when it is missing: browser tests never
// skip (make test installs it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium on PATH: install Debian's chromium (make deps does)")
	return ""
}

var _ = context.Background
