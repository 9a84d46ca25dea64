package main

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// jobq schedules run NAME shows what the schedule's concurrency policy made of the request: under
// forbid, while the schedule's previous run is live, it exits 1 with JOB.SCHEDULE_OVERLAP naming
// that job and its hint, and enqueues nothing; under replace it enqueues, and the previous run is
// canceled as replaced (audited as schedule_replaced, actor the operator's login).
func TestCLISchedulesRunHonoursTheConcurrencyPolicy(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	ctx := testCtx(t)
	enqueued := regexp.MustCompile(`^schedule (\S+): enqueued job (\d+)\n$`)
	run := func(name string) int64 {
		t.Helper()
		code, stdout, stderr := b.op(t, "schedules", "run", name)
		require.Equal(t, 0, code, "stderr:\n%s", stderr)
		m := enqueued.FindStringSubmatch(stdout)
		require.NotNil(t, m, "stdout: %q", stdout)
		id, err := strconv.ParseInt(m[2], 10, 64)
		require.NoError(t, err)
		return id
	}
	count := func(sql string, args ...any) int {
		t.Helper()
		var n int
		require.NoError(t, b.admin.QueryRow(ctx, sql, args...).Scan(&n))
		return n
	}

	_, err := b.admin.Exec(ctx, `SELECT jobq.schedule('cli-forbid', '0 3 * * *', 'report', concurrency_policy => 'forbid'),
		jobq.schedule('cli-replace', '0 3 * * *', 'report', concurrency_policy => 'replace')`)
	require.NoError(t, err)

	first := run("cli-forbid")
	code, stdout, stderr := b.op(t, "schedules", "run", "cli-forbid")
	require.Equal(t, 1, code, "stdout:\n%s", stdout)
	require.Empty(t, stdout)
	require.Contains(t, stderr, fmt.Sprintf("JOB.SCHEDULE_OVERLAP: schedule cli-forbid has concurrency_policy forbid and its run, job %d, is still queued", first))
	require.Contains(t, stderr, "Wait until that run has finished", "the hint is shown")
	require.Equal(t, 1, count(`SELECT count(*) FROM jobq.jobs WHERE job_key LIKE 'schedule:cli-forbid:%'`), "the refused run enqueued nothing")

	code, _, stderr = b.op(t, "jobs", "cancel", strconv.FormatInt(first, 10))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	again := run("cli-forbid")
	require.NotEqual(t, first, again, "with its run finished, the schedule runs now again")

	previous := run("cli-replace")
	replacing := run("cli-replace")
	require.Equal(t, 1, count(`SELECT count(*) FROM jobq.job_history WHERE id = $1 AND state = 'canceled' AND reason = 'replaced'`, previous))
	require.Equal(t, 1, count(`SELECT count(*) FROM jobq.jobs WHERE id = $1`, replacing))
	require.Equal(t, 1, count(`SELECT count(*) FROM jobq.audit_log WHERE action = 'schedule_replaced' AND job_id = $1 AND actor = $2`,
		previous, b.operator))
}
