package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// jobs show lists a job's workflow (issue 35): its dependencies with their states and whether
// each still waits, its dependents, and its sequence key and position; --json holds them as
// workflow. A blocked job shows state blocked.
func TestJobsShowListsDependenciesDependentsAndSequence(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	ctx := testCtx(t)
	var parent, child, ahead, behind int64
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT jobq.enqueue('report', queue => 'wf')`).Scan(&parent))
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT jobq.enqueue('report', queue => 'wf', depends_on => ARRAY[$1::bigint, $2::bigint],
		sequence_key => 'ledger')`, parent, b.dead[0]).Scan(&child))
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT jobq.enqueue('report', queue => 'wf', sequence_key => 'ledger', on_sequence_failure => 'continue')`).Scan(&ahead))
	_ = ahead
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT jobq.enqueue('report', queue => 'wf', depends_on => ARRAY[$1::bigint], on_parent_failure => 'run')`, child).Scan(&behind))

	code, stdout, stderr := b.op(t, "jobs", "show", strconv.FormatInt(child, 10))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	// A dead parent with on_parent_failure cancel (the default) cancels the child at once.
	require.Regexp(t, `(?m)^state\s+canceled$`, stdout)
	require.Regexp(t, fmt.Sprintf(`(?m)^dependency\s+%d\s+queued\s+settled, on failure cancel$`, parent), stdout)
	require.Regexp(t, fmt.Sprintf(`(?m)^dependency\s+%d\s+dead\s+settled, on failure cancel$`, b.dead[0]), stdout)
	require.Regexp(t, fmt.Sprintf(`(?m)^dependent\s+%d\s+queued\s+-$`, behind), stdout)
	require.Regexp(t, `(?m)^sequence\s+ledger: finished$`, stdout)

	// A live blocked job: its parent pending, its place in the sequence.
	var p2, c2 int64
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT jobq.enqueue('report', queue => 'wf', sequence_key => 'books')`).Scan(&p2))
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT jobq.enqueue('report', queue => 'wf', depends_on => ARRAY[$1::bigint], sequence_key => 'books')`, p2).Scan(&c2))
	code, stdout, stderr = b.op(t, "jobs", "show", strconv.FormatInt(c2, 10))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Regexp(t, `(?m)^state\s+blocked$`, stdout)
	require.Regexp(t, fmt.Sprintf(`(?m)^dependency\s+%d\s+queued\s+pending, on failure cancel$`, p2), stdout)
	require.Regexp(t, `(?m)^sequence\s+books: position 2 \(1 live jobs ahead\), on failure hold$`, stdout)

	code, stdout, stderr = b.op(t, "jobs", "show", "--json", strconv.FormatInt(c2, 10))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	var shown struct {
		Workflow []struct {
			Relation string `json:"relation"`
			OtherID  *int64 `json:"other_id"`
			State    string `json:"state"`
		} `json:"workflow"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &shown))
	require.Len(t, shown.Workflow, 2)
	require.Equal(t, "dependency", shown.Workflow[0].Relation)
	require.Equal(t, p2, *shown.Workflow[0].OtherID)
	require.Equal(t, "sequence", shown.Workflow[1].Relation)
}
