package main

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// jobq batches list shows each batch with its state and counts, newest first, filtered by state;
// jobq batches show prints one batch's counts, progress bar and callbacks; --json gives the
// operator.Batch rows. An unknown batch exits 1 naming it; a login without jobq's roles is
// refused.
func TestBatchesListAndShow(t *testing.T) {
	b := setupOps(t)
	ctx := testCtx(t)
	var settled, open int64
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT jobq.create_batch(on_complete => '{"task": "report"}', description => 'nightly')`).Scan(&settled))
	_, err := b.admin.Exec(ctx, `SELECT jobq.batch_enqueue($1, '[{"task": "send-mail", "queue": "b"}, {"task": "send-mail", "queue": "b"}]')`, settled)
	require.NoError(t, err)
	_, err = b.admin.Exec(ctx, `SELECT jobq.seal_batch($1)`, settled)
	require.NoError(t, err)
	_, err = b.admin.Exec(ctx, `WITH c AS (SELECT * FROM jobq.claim_job('w-b', ARRAY['b'], 1))
		SELECT jobq.complete_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c))`)
	require.NoError(t, err)
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT jobq.create_batch()`).Scan(&open))

	code, stdout, stderr := b.op(t, "batches", "list")
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Regexp(t, `(?m)^ID\s+STATE\s+STORE\s+ENDED\s+SUCCEEDED\s+DEAD\s+CANCELED\s+CREATED\s+DESCRIPTION$`, stdout)
	require.Regexp(t, `(?m)^`+strconv.FormatInt(open, 10)+`\s+open\s+-\s+0/0\s+0\s+0\s+0\s+`, stdout)
	require.Regexp(t, `(?m)^`+strconv.FormatInt(settled, 10)+`\s+sealed\s+-\s+1/2\s+1\s+0\s+0\s+(now|\S+ ago)\s+nightly$`, stdout)

	type batch struct {
		ID        int64  `json:"id"`
		State     string `json:"state"`
		Total     int64  `json:"total"`
		Succeeded int64  `json:"succeeded"`
		Pending   int64  `json:"pending"`
	}
	sealed := opJSON[[]batch](t, b, "batches", "list", "--state", "sealed")
	require.Equal(t, []batch{{ID: settled, State: "sealed", Total: 2, Succeeded: 1, Pending: 1}}, sealed)

	code, stdout, stderr = b.op(t, "batches", "show", strconv.FormatInt(settled, 10))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Regexp(t, `(?m)^progress\s+\[##########\.\.\.\.\.\.\.\.\.\.\] 50% \(1 of 2 ended\)$`, stdout)
	require.Regexp(t, `(?m)^on complete\s+report$`, stdout)
	require.Regexp(t, `(?m)^callback jobs\s+-$`, stdout)

	_, err = b.admin.Exec(ctx, `WITH c AS (SELECT * FROM jobq.claim_job('w-b', ARRAY['b'], 1))
		SELECT jobq.complete_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c))`)
	require.NoError(t, err)
	done := opJSON[struct {
		State          string  `json:"state"`
		Succeeded      int64   `json:"succeeded"`
		CallbackJobIDs []int64 `json:"callback_job_ids"`
	}](t, b, "batches", "show", strconv.FormatInt(settled, 10))
	require.Equal(t, "settled", done.State)
	require.Equal(t, int64(2), done.Succeeded)
	require.Len(t, done.CallbackJobIDs, 1)

	code, stdout, stderr = b.op(t, "batches", "show", "999999")
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "batch 999999 not found")

	code, _, stderr = b.op(t, "batches", "list", "--state", "done")
	require.Equal(t, 2, code, "an unknown state is a usage error")
	require.Contains(t, stderr, "--state")

	code, _, stderr = runCLI(t, "batches", "list", "--database-url", b.nobodyURL)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "permission denied")
}
