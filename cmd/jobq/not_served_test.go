package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 30: `jobq queues list` and `jobq stats` show the waiting jobs no live worker serves (NOT
// SERVED: the count and the oldest due one's age; not_served and not_served_oldest_age_seconds in
// --json). The mail queue's live worker serves send-mail only: the welcome job is not served;
// the reports queue has no live worker: its job, scheduled for tomorrow, is not served either.
func TestCLIQueuesAndStatsShowTheJobsNoLiveWorkerServes(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	ctx := testCtx(t)
	_, err := b.admin.Exec(ctx, `SELECT jobq_test.tasks('send-welcome-email')`)
	require.NoError(t, err)
	// The worker registers once and never heartbeats: it stays live for the test however slow
	// the machine is.
	_, err = b.admin.Exec(ctx, `SELECT jobq.set_setting('worker_timeout', '1 day')`)
	require.NoError(t, err)
	_, err = b.admin.Exec(ctx, `SELECT jobq.register_worker('w-mail', 'node', 1, ARRAY['mail'], 1, '', ARRAY['send-mail'])`)
	require.NoError(t, err)
	_, err = b.admin.Exec(ctx, `SELECT jobq.enqueue('send-welcome-email', queue => 'mail', run_at => now() - interval '5 minutes 10 seconds')`)
	require.NoError(t, err)

	code, stdout, stderr := b.op(t, "queues", "list")
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Regexp(t, `(?m)^QUEUE\s+STATE\s+QUEUED\s+RETRY\s+RUNNING\s+SCHEDULED\s+BLOCKED\s+NOT SERVED\s+LIMITS$`, stdout)
	require.Regexp(t, `(?m)^mail\s+active\s+2\s+0\s+0\s+0\s+0\s+1, oldest 5m\s+-$`, stdout)
	require.Regexp(t, `(?m)^reports\s+active\s+0\s+0\s+0\s+1\s+0\s+1\s+-$`, stdout)

	type row struct {
		Queue     string   `json:"queue"`
		NotServed int64    `json:"not_served"`
		Oldest    *float64 `json:"not_served_oldest_age_seconds"`
	}
	byQueue := func(rows []row) map[string]row {
		out := map[string]row{}
		for _, r := range rows {
			out[r.Queue] = r
		}
		return out
	}
	qs := byQueue(opJSON[[]row](t, b, "queues", "list"))
	require.EqualValues(t, 1, qs["mail"].NotServed)
	require.NotNil(t, qs["mail"].Oldest)
	require.InDelta(t, 310, *qs["mail"].Oldest, 60)
	require.EqualValues(t, 1, qs["reports"].NotServed)
	require.Nil(t, qs["reports"].Oldest, "the reports job is not due yet")

	stats := byQueue(opJSON[[]row](t, b, "stats"))
	require.EqualValues(t, 1, stats["mail"].NotServed)
	require.InDelta(t, 310, *stats["mail"].Oldest, 60)
	code, stdout, _ = b.op(t, "stats", "--queue", "mail")
	require.Equal(t, 0, code)
	require.Regexp(t, `(?m)^QUEUE\s.*\sNOT SERVED\s+LIMITS$`, stdout)
	require.Contains(t, stdout, "1, oldest 5m")
}
