package main

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// A blocked job (waiting for its parent, docs/dependencies.md) is listed by jobq jobs list
// --state blocked, and jobq jobs why names the parent that holds it.
func TestJobsListAndWhyShowABlockedJob(t *testing.T) {
	b := setupOps(t)
	ctx := testCtx(t)
	var parent, child int64
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT jobq.enqueue('send-mail', queue => 'mail')`).Scan(&parent))
	require.NoError(t, b.admin.QueryRow(ctx,
		`SELECT jobq.enqueue('send-mail', queue => 'mail', depends_on => ARRAY[$1::bigint])`, parent).Scan(&child))

	type row struct {
		ID    int64  `json:"id"`
		State string `json:"state"`
	}
	rows := opJSON[[]row](t, b, "jobs", "list", "--state", "blocked")
	require.Equal(t, []row{{child, "blocked"}}, rows, "the blocked job, and only it")

	code, stdout, stderr := b.op(t, "jobs", "why", strconv.FormatInt(child, 10))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Regexp(t, `(?m)^dependency\s+.*\b`+strconv.FormatInt(parent, 10)+`\b`, stdout)
}
