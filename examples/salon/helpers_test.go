package salon_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/examples/salon"
	"github.com/jobqdev/jobq/examples/salon/smtpsink"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/proctest"
	"github.com/jobqdev/jobq/migrate"
	"github.com/jobqdev/jobq/runner"
)

// TestMain creates the salon's cluster role (salon_api) once, on the sandbox's cluster, before
// the tests clone databases from its template. Without a database every test fails (dbtest).
func TestMain(m *testing.M) {
	url := os.Getenv("JOBQ_BOOTSTRAP_DATABASE_URL")
	if url == "" {
		url = os.Getenv("DATABASE_URL_ADMIN") // jobq sandbox's old name, still exported this release
	}
	if url != "" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		conn, err := pgx.Connect(ctx, url)
		if err == nil {
			err = salon.Bootstrap(ctx, conn, migrate.BootstrapOptions{}, "")
			conn.Close(ctx)
		}
		cancel()
		if err != nil {
			fmt.Fprintln(os.Stderr, "salon bootstrap:", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	proctest.Cleanup()
	os.Exit(code)
}

// salonDB is one test's database with jobq's and the salon's schema, and pools for its roles.
type salonDB struct {
	*dbtest.DB
	admin  *pgxpool.Pool // superuser: sets up data, reads everything
	worker *pgxpool.Pool // worker_runtime
	api    *pgxpool.Pool // salon_api
}

func newSalonDB(t *testing.T) *salonDB {
	t.Helper()
	d := dbtest.New(t)
	_, salonApplied, err := salon.Migrate(dbtest.Ctx(t), d.URL("jobq_migrator"))
	require.NoError(t, err)
	require.NotEmpty(t, salonApplied, "the salon's migrations ran")
	return &salonDB{DB: d, admin: d.Pool(t, "postgres", 4), worker: d.Pool(t, "worker_runtime", 20), api: d.Pool(t, "salon_api", 4)}
}

// stores creates n stores and returns their ids in id order.
func (d *salonDB) stores(t *testing.T, n int) []string {
	t.Helper()
	return queryStrings(t, d.admin, `
		WITH s AS (INSERT INTO public.store (name) SELECT 'store ' || i FROM generate_series(1, $1) i RETURNING id)
		SELECT id::text FROM s ORDER BY id`, n)
}

// exec runs sql as the superuser.
func (d *salonDB) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	_, err := d.admin.Exec(context.Background(), sql, args...)
	require.NoError(t, err)
}

// count runs a count query as the superuser.
func (d *salonDB) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, d.admin.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// jobRow is a job wherever it is (jobq.jobs or jobq.job_history).
type jobRow struct {
	ID       int64
	Task     string
	State    string
	StoreID  *string
	JobKey   *string
	Payload  map[string]any
	Attempt  int
	RunAt    time.Time
	LastErr  *string
	Finished bool
}

// jobs returns every job of task, live or finished, in id order.
func (d *salonDB) jobs(t *testing.T, task string) []jobRow {
	t.Helper()
	rows, err := d.admin.Query(context.Background(), `
		SELECT id, task, state, store_id::text, job_key, payload, attempt, run_at, last_error, false FROM jobq.jobs WHERE task = $1
		UNION ALL
		SELECT id, task, state, store_id::text, job_key, payload, attempt, run_at, last_error, true FROM jobq.job_history WHERE task = $1
		ORDER BY 1`, task)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (jobRow, error) {
		var j jobRow
		err := r.Scan(&j.ID, &j.Task, &j.State, &j.StoreID, &j.JobKey, &j.Payload, &j.Attempt, &j.RunAt, &j.LastErr, &j.Finished)
		return j, err
	})
	require.NoError(t, err)
	return out
}

// runApp runs the salon's handlers in this process on the worker_runtime pool until the test
// ends, with mailer for the invitations. It waits until the runner has declared its tasks.
func (d *salonDB) runApp(t *testing.T, mailer salon.Mailer, concurrency int) *runner.Runner {
	t.Helper()
	cfg := runner.Config{
		Pool:         d.worker,
		Concurrency:  concurrency,
		PollInterval: 50 * time.Millisecond,
		NoLeader:     true,
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if concurrency == 1 {
		// One job at a time means one claimed at a time too: a job claimed ahead is running
		// for the engine (a keyed enqueue does not merge into it) although it has not started.
		cfg.ClaimAhead = -1
	}
	r, err := runner.New(cfg)
	require.NoError(t, err)
	(&salon.App{Mailer: mailer, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}).Register(r)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	proctest.WaitUntil(t, time.Minute, "the salon's tasks declared", func() bool {
		return d.count(t, `SELECT count(*) FROM jobq.tasks WHERE name = 'send-operator-invitation-email'`) == 1
	})
	return r
}

// declareTasks declares the salon's tasks in jobq.tasks without running anything, so jobs can be
// enqueued before a runner starts.
func (d *salonDB) declareTasks(t *testing.T) {
	t.Helper()
	r, err := runner.New(runner.Config{Pool: d.worker})
	require.NoError(t, err)
	(&salon.App{}).Register(r)
	require.NoError(t, r.DeclareTasks(context.Background()))
}

// waitFinished waits until no job of the tasks is live (or waiting to retry).
func (d *salonDB) waitFinished(t *testing.T, timeout time.Duration, tasks ...string) {
	t.Helper()
	proctest.WaitUntil(t, timeout, fmt.Sprintf("jobs of %v finished", tasks), func() bool {
		return d.count(t, `SELECT count(*) FROM jobq.jobs WHERE task = ANY($1)`, tasks) == 0
	})
}

func queryStrings(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) []string {
	t.Helper()
	rows, err := pool.Query(context.Background(), sql, args...)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return out
}

// startSink starts a loopback SMTP server for the test.
func startSink(t *testing.T) *smtpsink.Sink {
	t.Helper()
	s, err := smtpsink.Start()
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// salonBinary builds the salon command once.
func salonBinary(t *testing.T) string { return proctest.Build(t, "./cmd/salon") }
