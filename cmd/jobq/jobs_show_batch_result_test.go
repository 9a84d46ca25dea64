package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// jobs show prints a job's batch (id, state, counts) and, for a finished job, its result (issue
// 35): in text on one line, cut at 500 characters with its size said; in --json whole, with batch
// and result null for a job in no batch and without result. A live job has no result line, and
// a job in no batch no batch line. An unknown id exits 1 with nothing on stdout.
func TestJobsShowPrintsItsBatchAndItsResult(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	ctx := testCtx(t)
	var batch, done, waiting int64
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT jobq.create_batch(description => 'nightly')`).Scan(&batch))
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT id FROM jobq.batch_enqueue($1, '[{"task": "report", "queue": "batched"}]') AS id`, batch).Scan(&done))
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT id FROM jobq.batch_enqueue($1, '[{"task": "report", "queue": "later"}]') AS id`, batch).Scan(&waiting))
	_, err := b.admin.Exec(ctx, `SELECT jobq.complete_job(c.id, c.lease_token, '{"rows": 3, "file": "a.csv"}')
		FROM jobq.claim_job('w-show', ARRAY['batched'], 1) AS c`)
	require.NoError(t, err)

	code, stdout, stderr := b.op(t, "jobs", "show", strconv.FormatInt(done, 10))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Regexp(t, fmt.Sprintf(`(?m)^batch\s+%d open: 1 of 2 ended, 1 succeeded, 0 dead, 0 canceled, 1 pending$`, batch), stdout)
	require.Regexp(t, `(?m)^result\s+\{"file": "a.csv", "rows": 3\}$`, stdout)

	code, stdout, stderr = b.op(t, "jobs", "show", strconv.FormatInt(waiting, 10))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Regexp(t, fmt.Sprintf(`(?m)^batch\s+%d open: `, batch), stdout)
	require.NotRegexp(t, `(?m)^result`, stdout, "a live job has no result yet")

	// A long result: cut in text, whole in --json.
	long := strings.Repeat("x", 2000)
	var big int64
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT jobq.enqueue('report', queue => 'big')`).Scan(&big))
	_, err = b.admin.Exec(ctx, `SELECT jobq.complete_job(c.id, c.lease_token, jsonb_build_object('text', $1::text))
		FROM jobq.claim_job('w-show', ARRAY['big'], 1) AS c`, long)
	require.NoError(t, err)
	code, stdout, stderr = b.op(t, "jobs", "show", strconv.FormatInt(big, 10))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Regexp(t, `(?m)^result\s+\{"text": "x{489}… \(2012 bytes; --json prints it whole\)$`, stdout)
	require.NotRegexp(t, `(?m)^batch`, stdout, "a job in no batch has no batch line")

	type shown struct {
		Batch *struct {
			ID      int64  `json:"id"`
			State   string `json:"state"`
			Total   int64  `json:"total"`
			Pending int64  `json:"pending"`
		} `json:"batch"`
		Result json.RawMessage `json:"result"`
	}
	j := opJSON[shown](t, b, "jobs", "show", strconv.FormatInt(big, 10))
	require.Nil(t, j.Batch)
	var r struct{ Text string }
	require.NoError(t, json.Unmarshal(j.Result, &r))
	require.Equal(t, long, r.Text, "--json holds the whole result")

	j = opJSON[shown](t, b, "jobs", "show", strconv.FormatInt(done, 10))
	require.NotNil(t, j.Batch)
	require.Equal(t, batch, j.Batch.ID)
	require.Equal(t, "open", j.Batch.State)
	require.Equal(t, int64(2), j.Batch.Total)
	require.Equal(t, int64(1), j.Batch.Pending)
	require.JSONEq(t, `{"rows": 3, "file": "a.csv"}`, string(j.Result))

	j = opJSON[shown](t, b, "jobs", "show", strconv.FormatInt(b.mail, 10))
	require.Nil(t, j.Batch)
	require.Equal(t, "null", string(j.Result), "a live job in no batch: batch and result null")

	code, stdout, stderr = b.op(t, "jobs", "show", "987654321")
	require.Equal(t, 1, code)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "job 987654321 not found")
}
