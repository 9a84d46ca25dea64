package main

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/dashboard"
	"github.com/jobqdev/jobq/internal/dbtest"
)

// queueCounts are the counts every view of a queue shows.
type queueCounts struct {
	Queued, RetryPending, Running, Scheduled, Blocked, DeadLastHour, NotServed int64
}

// TestQueuesListStatsAndTheOverviewAgree builds one database with a queue whose jobs all died, a
// queue no worker serves, a paused queue, scheduled (future run_at), retry_pending and blocked
// (waiting for a parent or a sequence) jobs, and
// reads it four ways: jobq queues list --json, jobq stats --json, the dashboard's overview page
// and SELECT jobq.stats(). They list the same queues with the same counts (issue 32), the
// overview's "jobs died" card is the sum of its table, and a queue that no live worker serves is
// not shown as running.
func TestQueuesListStatsAndTheOverviewAgree(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	db := dbtest.New(t)
	admin := dbtest.Connect(t, db.URL("postgres"))
	opURL := db.URL(loginRole(t, admin, "agree_operator", "IN ROLE jobq_operator"))
	viewer := loginRole(t, admin, "agree_viewer", "IN ROLE jobq_viewer")

	exec := func(sql string) {
		t.Helper()
		_, err := admin.Exec(ctx, sql)
		require.NoError(t, err, sql)
	}
	exec(`SELECT jobq_test.tasks('mail', 'report', 'crash')`)
	// A live worker serves queue mail (every task); nothing serves reports, crash or held.
	exec(`SELECT jobq.register_worker('w-agree', 'node', 1, ARRAY['mail'], 4, 'test', NULL)`)
	// mail: one due, one scheduled for tomorrow, one waiting to retry in an hour, one running.
	exec(`SELECT jobq.enqueue('mail', queue => 'mail') FROM generate_series(1, 3)`)
	exec(`SELECT jobq.enqueue('mail', queue => 'mail', run_at => now() + interval '1 day')`)
	exec(`WITH c AS (SELECT * FROM jobq.claim_job('w-agree', ARRAY['mail'], 2) ORDER BY id LIMIT 1)
		SELECT jobq.fail_job(c.id, c.lease_token, 'try again', NULL, true, interval '1 hour') FROM c`)
	// reports: no worker serves it; one due, one retry_pending due now.
	exec(`SELECT jobq.enqueue('report', queue => 'reports') FROM generate_series(1, 2)`)
	exec(`UPDATE jobq.jobs SET state = 'retry_pending', attempt = 1 WHERE id = (SELECT min(id) FROM jobq.jobs WHERE queue = 'reports')`)
	// crash: every job died.
	exec(`SELECT jobq.enqueue('crash', queue => 'crash') FROM generate_series(1, 3)`)
	exec(`WITH c AS (SELECT * FROM jobq.claim_job('w-setup', ARRAY['crash'], 3))
		SELECT count(*) FROM jobq.fail_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c), NULL,
			retryable => ARRAY[false, false, false])`)
	// held: paused with a due job.
	exec(`SELECT jobq.enqueue('mail', queue => 'held')`)
	exec(`SELECT jobq.pause_queue('held')`)
	// Blocked jobs. mail: the first job of sequence agree, a child of the held job, and the
	// sequence's second job, of a future run_at (blocked, not scheduled); waiting: only blocked
	// jobs, the sequence's third and a child of a job of reports.
	exec(`SELECT jobq.enqueue('mail', queue => 'mail', sequence_key => 'agree',
		depends_on => ARRAY[(SELECT id FROM jobq.jobs WHERE queue = 'held')])`)
	exec(`SELECT jobq.enqueue('mail', queue => 'mail', sequence_key => 'agree', run_at => now() + interval '1 day')`)
	exec(`SELECT jobq.enqueue('mail', queue => 'waiting', sequence_key => 'agree')`)
	exec(`SELECT jobq.enqueue('report', queue => 'waiting', depends_on => ARRAY[(SELECT max(id) FROM jobq.jobs WHERE queue = 'reports')])`)

	// 1. jobq queues list --json and jobq stats --json.
	fromCLI := func(args ...string) map[string]queueCounts {
		t.Helper()
		code, stdout, stderr := runCLI(t, append(args, "--json", "--database-url", opURL)...)
		require.Equal(t, 0, code, "jobq %v: %s", args, stderr)
		var rows []struct {
			Queue        string `json:"queue"`
			Queued       int64  `json:"queued"`
			RetryPending int64  `json:"retry_pending"`
			Running      int64  `json:"running"`
			Scheduled    int64  `json:"scheduled"`
			Blocked      int64  `json:"blocked"`
			DeadLastHour int64  `json:"dead_last_hour"`
			NotServed    int64  `json:"not_served"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &rows), stdout)
		out := map[string]queueCounts{}
		for _, r := range rows {
			out[r.Queue] = queueCounts{r.Queued, r.RetryPending, r.Running, r.Scheduled, r.Blocked, r.DeadLastHour, r.NotServed}
		}
		return out
	}
	list := fromCLI("queues", "list")
	stats := fromCLI("stats")

	// 2. SELECT jobq.stats().
	rows, err := admin.Query(ctx, `SELECT queue, queued, retry_pending, running, scheduled, blocked, dead_last_hour, not_served FROM jobq.stats()`)
	require.NoError(t, err)
	sql := map[string]queueCounts{}
	var name string
	var c queueCounts
	_, err = pgx.ForEachRow(rows, []any{&name, &c.Queued, &c.RetryPending, &c.Running, &c.Scheduled, &c.Blocked, &c.DeadLastHour, &c.NotServed},
		func() error { sql[name] = c; return nil })
	require.NoError(t, err)

	// 3. The dashboard's overview, read as its viewer login reads it.
	pool, err := pgxpool.New(ctx, db.URL(viewer))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	d, err := dashboard.New(ctx, dashboard.Options{Reader: pool})
	require.NoError(t, err)
	t.Cleanup(d.Close)
	server := httptest.NewServer(d)
	t.Cleanup(server.Close)
	res, err := http.Get(server.URL + "/")
	require.NoError(t, err)
	page, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, http.StatusOK, res.StatusCode, "%.2000s", page)
	body := html.UnescapeString(string(page))
	overview := map[string]queueCounts{}
	pills := map[string]string{}
	var deadInTable int64
	for _, row := range regexp.MustCompile(`(?s)<tr data-queue="[^"]*".*?</tr>`).FindAllString(body, -1) {
		attr := func(name string) int64 {
			m := regexp.MustCompile(` data-` + name + `="(\d+)"`).FindStringSubmatch(row)
			require.NotNil(t, m, "%s in %s", name, row)
			n, err := strconv.ParseInt(m[1], 10, 64)
			require.NoError(t, err)
			return n
		}
		q := regexp.MustCompile(`data-queue="([^"]*)"`).FindStringSubmatch(row)[1]
		overview[q] = queueCounts{attr("queued"), attr("retry-pending"), attr("running"), attr("scheduled"), attr("blocked"), attr("dead-last-hour"), attr("not-served")}
		deadInTable += overview[q].DeadLastHour
		pills[q] = regexp.MustCompile(`<span class="pill[^"]*"[^>]*>([^<]*)`).FindStringSubmatch(row)[1]
	}

	want := map[string]queueCounts{
		"mail":    {Queued: 1, RetryPending: 1, Running: 1, Scheduled: 1, Blocked: 2},
		"reports": {Queued: 1, RetryPending: 1, NotServed: 2},
		"crash":   {DeadLastHour: 3},
		"held":    {Queued: 1, NotServed: 1},
		"waiting": {Blocked: 2},
	}
	require.Equal(t, want, sql, "SELECT jobq.stats()")
	require.Equal(t, sql, list, "jobq queues list --json lists the queues and counts of jobq.stats()")
	require.Equal(t, sql, stats, "jobq stats --json lists the queues and counts of jobq.stats()")
	require.Equal(t, sql, overview, "the dashboard's overview lists the queues and counts of jobq.stats(), the all-dead queue included")

	died := regexp.MustCompile(`(?s)id="died"[^>]*><b>([\d,]+)</b>`).FindStringSubmatch(body)
	require.NotNil(t, died, "the jobs died card: %.3000s", body)
	require.Equal(t, strconv.FormatInt(deadInTable, 10), strings.ReplaceAll(died[1], ",", ""),
		"the jobs died card is the sum of the table's dead/h")
	require.EqualValues(t, 3, deadInTable)
	live := regexp.MustCompile(`(?s)id="live"[^>]*><b>([\d,]+)</b>`).FindStringSubmatch(body)
	require.NotNil(t, live, "the live jobs card: %.3000s", body)
	var liveInTable int64
	for _, c := range overview {
		liveInTable += c.Queued + c.RetryPending + c.Running + c.Scheduled + c.Blocked
	}
	require.Equal(t, strconv.FormatInt(liveInTable, 10), strings.ReplaceAll(live[1], ",", ""),
		"the live jobs card is the sum of the table's live counts, blocked included")

	names := make([]string, 0, len(pills))
	for q := range pills {
		names = append(names, q)
	}
	sort.Strings(names)
	require.Equal(t, map[string]string{"mail": "running", "reports": "not served", "crash": "no worker", "held": "paused ",
		"waiting": "no worker"}, pills,
		"only the queue a live worker serves is shown running (queues: %v)", names)
}

// TestStatsAndQueuesListSayWhenTheirLiveCountsWereKept: above the setting stats_cached_above live
// jobs, jobq stats and jobq queues list show the live counts jobq.maintain kept, as SELECT
// jobq.stats() does (not the jobs enqueued since), end the table with the time they were taken,
// and give it as counted_at in --json; below the setting they count live and say nothing of it.
func TestStatsAndQueuesListSayWhenTheirLiveCountsWereKept(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	db := dbtest.New(t)
	admin := dbtest.Connect(t, db.URL("postgres"))
	opURL := db.URL(loginRole(t, admin, "kept_operator", "IN ROLE jobq_operator"))
	for _, sql := range []string{
		`SELECT jobq_test.tasks('mail')`,
		`SELECT jobq.enqueue('mail', queue => 'mail') FROM generate_series(1, 3)`,
		`UPDATE jobq.settings SET value = '1' WHERE name = 'stats_cached_above'`,
		`SELECT jobq.maintain()`,
		`SELECT jobq.enqueue('mail', queue => 'mail') FROM generate_series(1, 2)`,
	} {
		_, err := admin.Exec(ctx, sql)
		require.NoError(t, err, sql)
	}
	var countedAt string
	require.NoError(t, admin.QueryRow(ctx, `SELECT to_char(counted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') FROM jobq.live_counts_taken`).Scan(&countedAt))
	line := "live counts as of " + countedAt + " UTC: kept by jobq.maintain above stats_cached_above live jobs\n"

	for _, args := range [][]string{{"stats"}, {"queues", "list"}} {
		code, stdout, stderr := runCLI(t, append(args, "--database-url", opURL)...)
		require.Equal(t, 0, code, "jobq %v: %s", args, stderr)
		require.True(t, strings.HasSuffix(stdout, line), "jobq %v ends with the time of the kept count:\n%s", args, stdout)
		require.Regexp(t, `(?m)^mail\s+(\S+\s+)?3\s`, stdout, "jobq %v shows the kept count of mail (3), not the 5 live jobs", args)

		code, stdout, stderr = runCLI(t, append(args, "--json", "--database-url", opURL)...)
		require.Equal(t, 0, code, "jobq %v --json: %s", args, stderr)
		var rows []struct {
			Queue     string  `json:"queue"`
			Queued    int64   `json:"queued"`
			CountedAt *string `json:"counted_at"`
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &rows), stdout)
		require.Len(t, rows, 1)
		require.Equal(t, int64(3), rows[0].Queued, "jobq %v --json", args)
		require.NotNil(t, rows[0].CountedAt, "jobq %v --json gives counted_at", args)
	}
	var sqlQueued int64
	require.NoError(t, admin.QueryRow(ctx, `SELECT queued FROM jobq.stats()`).Scan(&sqlQueued))
	require.Equal(t, int64(3), sqlQueued, "SELECT jobq.stats() reads the same kept count")

	_, err := admin.Exec(ctx, `UPDATE jobq.settings SET value = '100000' WHERE name = 'stats_cached_above'`)
	require.NoError(t, err)
	code, stdout, stderr := runCLI(t, "stats", "--database-url", opURL)
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stdout, "live counts as of", "counted live, jobq stats says nothing of kept counts")
	require.Regexp(t, `(?m)^mail\s+\S+\s+5\s`, stdout, "and shows the 5 live jobs")
	code, stdout, _ = runCLI(t, "stats", "--json", "--database-url", opURL)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, `"counted_at": null`)
}
