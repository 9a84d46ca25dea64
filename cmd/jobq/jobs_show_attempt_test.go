package main

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// jobs show names what a job's running attempt reports and what its last attempt kept (issue
// 34): progress, the output's tail, the exit code, the log reference, the leader epoch and the
// trace context it was enqueued under; a failed attempt's row says its exit code. --json holds
// them as last_attempt.
func TestJobsShowProgressOutputExitCodeAndTrace(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	ctx := testCtx(t)
	var id int64
	require.NoError(t, b.admin.QueryRow(ctx, `WITH t AS MATERIALIZED (
			SELECT set_config('jobq.traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', true))
		SELECT jobq.enqueue('report', queue => 'shown', max_attempts => 2) FROM t`).Scan(&id))
	_, err := b.admin.Exec(ctx, `WITH c AS (SELECT * FROM jobq.claim_job('w-show', ARRAY['shown'], 1))
		SELECT jobq.set_progress(c.id, c.lease_token, '{"rows": 10}'),
		       (SELECT outcome FROM jobq.fail_jobs(ARRAY[c.id], ARRAY[c.lease_token], ARRAY['exit status 3'],
		                                           retry_in => ARRAY[interval '0'], exit_codes => ARRAY[3]))
		FROM c`)
	require.NoError(t, err)

	// Running: the live progress.
	_, err = b.admin.Exec(ctx, `WITH c AS (SELECT * FROM jobq.claim_job('w-show', ARRAY['shown'], 1))
		SELECT jobq.set_progress(c.id, c.lease_token, '{"rows": 20}') FROM c`)
	require.NoError(t, err)
	code, stdout, stderr := b.op(t, "jobs", "show", strconv.FormatInt(id, 10))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Regexp(t, `(?m)^progress\s+\{"rows": 20\}$`, stdout)
	require.Regexp(t, `(?m)^trace\s+00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01$`, stdout)
	require.Regexp(t, `(?m)^1\s+w-show\s+.*\s+error\s+-\s+3\s+exit status 3$`, stdout, "the failed attempt's exit code")

	// Succeeded: what the last attempt kept.
	_, err = b.admin.Exec(ctx, `SELECT jobq.complete_jobs(ARRAY[j.id], ARRAY[j.lease_token], ARRAY['wrote 20 rows'], NULL, ARRAY[0])
		FROM jobq.jobs j WHERE j.id = $1`, id)
	require.NoError(t, err)
	code, stdout, stderr = b.op(t, "jobs", "show", strconv.FormatInt(id, 10))
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Regexp(t, `(?m)^state\s+succeeded$`, stdout)
	require.Regexp(t, `(?m)^progress\s+\{"rows": 20\}$`, stdout)
	require.Regexp(t, `(?m)^exit code\s+0$`, stdout)
	require.Regexp(t, `(?m)^output\s+wrote 20 rows$`, stdout)
	require.Regexp(t, `(?m)^log ref\s+workerId=w-show jobId=\d+ attempt=2$`, stdout)
	require.Regexp(t, `(?m)^leader epoch\s+\d+$`, stdout)

	type shown struct {
		Last struct {
			Progress    map[string]int `json:"progress"`
			Output      string         `json:"output"`
			ExitCode    *int           `json:"exit_code"`
			LeaderEpoch *int64         `json:"leader_epoch"`
			Traceparent string         `json:"traceparent"`
		} `json:"last_attempt"`
		Attempts []struct {
			ExitCode *int           `json:"exit_code"`
			Progress map[string]int `json:"progress"`
		} `json:"attempts"`
	}
	j := opJSON[shown](t, b, "jobs", "show", strconv.FormatInt(id, 10))
	require.Equal(t, 20, j.Last.Progress["rows"])
	require.Equal(t, "wrote 20 rows", j.Last.Output)
	require.Equal(t, 0, *j.Last.ExitCode)
	require.NotNil(t, j.Last.LeaderEpoch)
	require.Equal(t, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", j.Last.Traceparent)
	require.Len(t, j.Attempts, 1)
	require.Equal(t, 3, *j.Attempts[0].ExitCode)
	require.Equal(t, 10, j.Attempts[0].Progress["rows"])
}
