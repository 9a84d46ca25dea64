package runner_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

func scrape(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	resp, err := http.Get(srv.URL + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(body)
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "ok", "bad", "block")
	cfg := b.config()
	cfg.Concurrency = 1
	// The queue lag below needs a due job that waits in the queue while the only slot is busy;
	// claiming ahead would take it into the runner (claim_ahead_test.go covers that).
	cfg.ClaimAhead = -1
	r, err := runner.New(cfg)
	require.NoError(t, err)
	release := make(chan struct{})
	r.HandleFunc("ok", func(ctx context.Context, job *jobq.Job) error { return nil })
	r.HandleFunc("bad", func(ctx context.Context, job *jobq.Job) error { return errors.New("nope") })
	r.HandleFunc("block", func(ctx context.Context, job *jobq.Job) error { <-release; return nil })
	srv := httptest.NewServer(r.HTTPHandler())
	t.Cleanup(srv.Close)
	start(t, r)

	ok := b.enqueue(t, "ok", nil, jobq.EnqueueOptions{})
	bad := b.enqueue(t, "bad", nil, jobq.EnqueueOptions{MaxAttempts: 2, BackoffBase: 10 * time.Millisecond})
	b.waitState(t, ok, "succeeded")
	b.waitState(t, bad, "dead")

	// The only slot is taken, so a due job waits: the queue lag grows.
	b.enqueue(t, "block", nil, jobq.EnqueueOptions{})
	waitFor(t, waitCeiling, "block running", func() bool {
		return b.count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'block' AND state = 'running'`) == 1
	})
	late := b.enqueue(t, "ok", nil, jobq.EnqueueOptions{RunAt: dbNow(t, b.admin).Add(-90 * time.Second)})

	// worker_runtime may not read jobq.jobs (it holds every tenant's payloads): the lag comes
	// from jobq.queue_lag, which reveals no job content.
	var canRead bool
	require.NoError(t, b.admin.QueryRow(context.Background(),
		`SELECT has_table_privilege('worker_runtime', 'jobq.jobs', 'SELECT')`).Scan(&canRead))
	require.False(t, canRead, "worker_runtime must not read jobq.jobs")
	body := scrape(t, srv)
	for _, want := range []string{
		`jobq_jobs_claimed_total{task="ok"} 1`,
		`jobq_jobs_completed_total{task="ok"} 1`,
		`jobq_jobs_claimed_total{task="bad"} 2`,
		`jobq_jobs_failed_total{task="bad"} 2`,
		`jobq_jobs_dead_total{task="bad"} 1`,
		`jobq_job_run_seconds_count{task="ok"} 1`,
		`jobq_leases_held 1`,
		`jobq_listener_connected 1`,
		// ok once, bad twice (its retry), block once: each claim observes its wait.
		`jobq_job_wait_seconds_count{queue="default"} 4`,
		// The queue depth, from jobq.queue_depth: block runs, the late job is due, bad died.
		`jobq_queue_jobs{queue="default",state="queued"} 1`,
		`jobq_queue_jobs{queue="default",state="retry_pending"} 0`,
		`jobq_queue_jobs{queue="default",state="running"} 1`,
		`jobq_queue_jobs{queue="default",state="scheduled"} 0`,
		`jobq_queue_dead_last_hour{queue="default"} 1`,
		// This runner serves every task waiting in default: none is not served.
		`jobq_jobs_not_served{queue="default"} 0`,
		`jobq_jobs_not_served_oldest_seconds{queue="default"} 0`,
		`go_goroutines`,
	} {
		require.Contains(t, body, want)
	}
	require.Regexp(t, `(?m)^jobq_build_info\{commit="[^"]+",go_version="go[^"]+",version="[^"]+"\} 1$`, body)
	m := regexp.MustCompile(`(?m)^jobq_queue_lag_seconds\{queue="default"\} (\S+)$`).FindStringSubmatch(body)
	require.NotNil(t, m, body)
	lag, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	require.InDelta(t, 90, lag, 15, "age of the oldest due job, from the database")

	close(release)
	b.waitState(t, late, "succeeded")
	// The late job waited 90 s past its run_at before its claim: the only wait above a minute.
	body = scrape(t, srv)
	require.Contains(t, body, `jobq_job_wait_seconds_count{queue="default"} 5`)
	require.Contains(t, body, `jobq_job_wait_seconds_bucket{queue="default",le="60"} 4`)
	require.Contains(t, body, `jobq_job_wait_seconds_bucket{queue="default",le="300"} 5`)
	waitFor(t, waitCeiling, "lag back to 0", func() bool {
		return strings.Contains(scrape(t, srv), `jobq_queue_lag_seconds{queue="default"} 0`)
	})

	t.Run("NoGlobalState", func(t *testing.T) {
		other, err := runner.New(b.config())
		require.NoError(t, err)
		require.NotSame(t, r.Registry(), other.Registry())
		families, err := prometheus.DefaultGatherer.Gather()
		require.NoError(t, err)
		for _, f := range families {
			require.False(t, strings.HasPrefix(f.GetName(), "jobq_"), "%s is in the global registry", f.GetName())
		}
	})
}
