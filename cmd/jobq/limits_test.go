package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCLIQueueLimits sets every limit of a queue from the command line, reads them back in queues
// list (table and JSON), shows that the claim obeys one of them, removes them with none, and
// checks what the command refuses: a value out of range changes nothing of the same call (one
// transaction), a malformed value is a usage error, and a login that is not an operator is
// refused. Every change is audited with the operator's login.
func TestCLIQueueLimits(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	ctx := testCtx(t)
	_, err := b.admin.Exec(ctx, `SELECT jobq.enqueue('send-mail', jsonb_build_object('n', g), queue => 'mail') FROM generate_series(1, 4) g`)
	require.NoError(t, err)

	code, stdout, stderr := b.op(t, "queues", "limit", "mail", "--max-running", "2", "--per-store", "1",
		"--partition-key", "customerId", "--per-partition", "1", "--rate", "10/1m", "--store-rate", "5/30s")
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Equal(t, "queue mail: max_running 2\nqueue mail: max_running_per_store 1\n"+
		"queue mail: max_running_per_partition 1 by payload field customerId\n"+
		"queue mail: started at most 10 per 1m0s\nqueue mail: started per store at most 5 per 30s\n", stdout)

	code, stdout, _ = b.op(t, "queues", "list")
	require.Equal(t, 0, code)
	require.Regexp(t, `(?m)^mail\s+active\s+.*running<=2, per store<=1, per customerId<=1, 10 started/00:01:00, 5 started/00:00:30 per store$`, stdout)
	type limited struct {
		Queue  string         `json:"queue"`
		Limits map[string]any `json:"limits"`
	}
	var mail *limited
	for _, q := range opJSON[[]limited](t, b, "queues", "list") {
		if q.Queue == "mail" {
			mail = &q
		}
	}
	require.NotNil(t, mail)
	require.Equal(t, map[string]any{"max_running": 2.0, "max_running_per_store": 1.0, "partition_key": "customerId",
		"max_running_per_partition": 1.0, "max_started": 10.0, "started_per": "00:01:00",
		"max_started_per_store": 5.0, "store_started_per": "00:00:30"}, mail.Limits)

	// The claim obeys the queue's limit of one running job per store: the four system jobs are one
	// store, so one is claimed.
	var claimed int
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT count(*) FROM jobq.claim_job('w-cli', ARRAY['mail'], 10)`).Scan(&claimed))
	require.Equal(t, 1, claimed, "at most one running per store")

	code, stdout, _ = b.op(t, "queues", "limit", "mail", "--max-running", "2")
	require.Equal(t, 0, code)
	require.Equal(t, "queue mail: max_running 2 (unchanged)\n", stdout)

	// Out of range: the database refuses (JOB.OUT_OF_RANGE), and the call before it in the same
	// command is rolled back.
	code, _, stderr = b.op(t, "queues", "limit", "mail", "--max-running", "3", "--per-store", "0")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "JOB.OUT_OF_RANGE")
	require.EqualValues(t, 2.0, b.limitsOf(t, "mail")["max_running"], "the refused command changed nothing")

	// What the database refuses, each with its catalogued code and nothing changed: a window that
	// is not positive, one above a day, a queue name of a kilobyte.
	for _, c := range []struct {
		args []string
		code string
	}{
		{[]string{"queues", "limit", "mail", "--rate", "10/-1s"}, "JOB.LEASE_INVALID"},
		{[]string{"queues", "limit", "mail", "--store-rate", "10/25h"}, "JOB.OUT_OF_RANGE"},
		{[]string{"queues", "limit", strings.Repeat("q", 1024), "--max-running", "1"}, "JOB.VALUE_TOO_LONG"},
	} {
		code, _, stderr := b.op(t, c.args...)
		require.Equal(t, 1, code, "%v", c.args)
		require.Contains(t, stderr, c.code, "%v", c.args)
	}
	require.EqualValues(t, 2.0, b.limitsOf(t, "mail")["max_running"], "the refused commands changed nothing")
	require.Equal(t, "00:01:00", b.limitsOf(t, "mail")["started_per"])

	for _, args := range [][]string{
		{"queues", "limit", "mail"},
		{"queues", "limit", "mail", "--max-running", "many"},
		{"queues", "limit", "mail", "--rate", "10"},
		{"queues", "limit", "mail", "--rate", "10/soon"},
		{"queues", "limit", "mail", "--per-partition", "1"},
		{"queues", "limit", "mail", "--partition-key", "customerId"},
	} {
		code, _, _ := b.op(t, args...)
		require.Equal(t, 2, code, "%v is a usage error", args)
	}
	code, _, stderr = runCLI(t, "queues", "limit", "mail", "--max-running", "1", "--database-url", b.nobodyURL)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "jobq_operator", "a login that is not an operator is refused")

	code, _, stderr = b.op(t, "queues", "limit", "mail", "--max-running", "none", "--per-store", "none",
		"--per-partition", "none", "--rate", "none", "--store-rate", "none")
	require.Equal(t, 0, code, stderr)
	require.Nil(t, b.limitsOf(t, "mail"), "none removes every limit")

	var audited int
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT count(*) FROM jobq.audit_log WHERE actor = $1 AND action = 'set_concurrency_limit'`, b.operator).Scan(&audited))
	require.Equal(t, 10, audited, "five limits set and five removed, each audited with the login")
}

// limitsOf is the limits column of jobq.queue_states for queue, nil when it has none.
func (b *opsBundle) limitsOf(t *testing.T, queue string) map[string]any {
	t.Helper()
	var l map[string]any
	require.NoError(t, b.admin.QueryRow(testCtx(t), `SELECT limits FROM jobq.queue_states() WHERE queue = $1`, queue).Scan(&l))
	return l
}

// TestLimitsTextShowsFairClaiming: queues list's LIMITS cell names a fair queue (the "fair" key
// jobq.queue_states() puts in limits, alone or beside limits) and shows none when it has nothing.
func TestLimitsTextShowsFairClaiming(t *testing.T) {
	require.Equal(t, "fair", limitsText(map[string]any{"fair": true}))
	require.Equal(t, "running<=2, fair", limitsText(map[string]any{"max_running": 2, "fair": true}))
	require.Equal(t, "-", limitsText(nil))
}
