package main

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// jobq jobs why prints every rule that holds a job (jobq.explain_job), one line each, or
// "claimable" when none does; --json gives {id, claimable, holds}; a job that does not exist, or
// one a login does not see, exits 1.
func TestJobsWhy(t *testing.T) {
	b := setupOps(t)
	ctx := testCtx(t)
	// A live worker serves queue mail, so the mail job is claimable; reports has no worker.
	_, err := b.admin.Exec(ctx, `SELECT jobq.register_worker('w-why', 'node', 1, ARRAY['mail'], 1)`)
	require.NoError(t, err)

	code, stdout, stderr := b.op(t, "jobs", "why", strconv.FormatInt(b.mail, 10))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Equal(t, "claimable: nothing holds job "+strconv.FormatInt(b.mail, 10)+"; the next claim of its queue may take it\n", stdout)

	code, stdout, stderr = b.op(t, "jobs", "why", strconv.FormatInt(b.report, 10))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Regexp(t, `(?m)^scheduled\s+due at \d{4}-\d\d-\d\d `, stdout)
	require.Regexp(t, `(?m)^not_served\s+no live worker serves task report in queue reports$`, stdout)

	_, err = b.admin.Exec(ctx, `SELECT jobq.pause_queue('mail')`)
	require.NoError(t, err)
	type why struct {
		ID        int64 `json:"id"`
		Claimable bool  `json:"claimable"`
		Holds     []struct {
			Rule   string `json:"rule"`
			Detail string `json:"detail"`
		} `json:"holds"`
	}
	paused := opJSON[why](t, b, "jobs", "why", strconv.FormatInt(b.mail, 10))
	require.Equal(t, b.mail, paused.ID)
	require.False(t, paused.Claimable)
	require.Len(t, paused.Holds, 1)
	require.Equal(t, "queue_paused", paused.Holds[0].Rule)
	require.Equal(t, "queue mail is paused", paused.Holds[0].Detail)

	dead := opJSON[why](t, b, "jobs", "why", strconv.FormatInt(b.dead[0], 10))
	require.Equal(t, "finished", dead.Holds[0].Rule)
	require.Contains(t, dead.Holds[0].Detail, "dead at ")

	code, stdout, stderr = b.op(t, "jobs", "why", "999999")
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "job 999999 not found")

	// A login without jobq's roles may not ask.
	code, _, stderr = runCLI(t, "jobs", "why", strconv.FormatInt(b.mail, 10), "--database-url", b.nobodyURL)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "permission denied")
}
