package main

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
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
	require.Equal(t, "running<=1000000, 1000000 started/1 day", limitsText(map[string]any{"max_running": 1e6, "max_started": 1e6, "started_per": "1 day"}),
		"a limit at its bound is written in digits")
}

// TestCLIQueueFairClaiming turns fair claiming of a queue on and off with queues limit --fair /
// --no-fair (jobq.set_fair_claiming, audited with the operator's login), alone or beside a limit
// in the same transaction, and checks what is refused with its code and exit status, nothing
// changed: a queue the engine does not know, and a viewer's or an application's login.
func TestCLIQueueFairClaiming(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	ctx := testCtx(t)

	code, stdout, stderr := b.op(t, "queues", "limit", "mail", "--fair")
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Equal(t, "queue mail: fair claiming on\n", stdout)
	require.Equal(t, map[string]any{"fair": true}, b.limitsOf(t, "mail"))
	code, stdout, _ = b.op(t, "queues", "limit", "mail", "--fair")
	require.Equal(t, 0, code)
	require.Equal(t, "queue mail: fair claiming on (unchanged)\n", stdout)

	code, stdout, stderr = b.op(t, "queues", "limit", "mail", "--max-running", "3", "--no-fair")
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Equal(t, "queue mail: max_running 3\nqueue mail: fair claiming off\n", stdout)
	require.Equal(t, map[string]any{"max_running": 3.0}, b.limitsOf(t, "mail"))

	audited := func() int {
		var n int
		require.NoError(t, b.admin.QueryRow(ctx, `SELECT count(*) FROM jobq.audit_log WHERE action = 'set_fair_claiming'`).Scan(&n))
		return n
	}
	require.Equal(t, 2, audited(), "on and off, each audited once")
	rows, err := b.admin.Query(ctx, `SELECT DISTINCT actor FROM jobq.audit_log WHERE action = 'set_fair_claiming'`)
	require.NoError(t, err)
	actors, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{b.operator}, actors, "audited as the operator's login")

	// A queue nothing knows: refused by the engine (a typo would make nothing fair).
	code, _, stderr = b.op(t, "queues", "limit", "no-such-queue", "--fair")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "JOB.INVALID_ARGUMENT")
	require.Contains(t, stderr, "no-such-queue")
	var known int
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT count(*) FROM jobq.queues WHERE name = 'no-such-queue'`).Scan(&known))
	require.Zero(t, known, "the refused command left no control behind")

	// A viewer's and an application's login may not change a control: the privilege is refused
	// (SQLSTATE 42501) with the hint naming jobq_operator, exit 1, nothing changed.
	for _, role := range []string{"jobq_viewer", "jobq_app"} {
		url := b.db.URL(loginRole(t, b.admin, "cli_"+strings.TrimPrefix(role, "jobq_"), "IN ROLE "+role))
		code, stdout, stderr := runCLI(t, "queues", "limit", "mail", "--fair", "--database-url", url)
		require.Equal(t, 1, code, "%s: stdout %s", role, stdout)
		require.Contains(t, stderr, "SQLSTATE 42501", role)
		require.Contains(t, stderr, "jobq_operator", role)
	}
	require.Equal(t, map[string]any{"max_running": 3.0}, b.limitsOf(t, "mail"), "the refusals changed nothing")
	require.Equal(t, 2, audited(), "nor audited anything")

	// --fair and --no-fair count among the flags of "needs at least one of" (a usage error
	// without any, exit 2).
	code, _, stderr = b.op(t, "queues", "limit", "mail")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--fair, --no-fair")
}

// TestCLIStatsShowsLimits: jobq stats carries each queue's flow controls, in the LIMITS column in
// the words of queues list and as the limits object in --json (null for a queue without any).
func TestCLIStatsShowsLimits(t *testing.T) {
	t.Parallel()
	b := setupOps(t)
	code, _, stderr := b.op(t, "queues", "limit", "mail", "--max-running", "5", "--per-store", "1", "--rate", "100/1m", "--fair")
	require.Equal(t, 0, code, "stderr:\n%s", stderr)

	code, stdout, stderr := b.op(t, "stats")
	require.Equal(t, 0, code, "stderr:\n%s", stderr)
	require.Regexp(t, `(?m)^QUEUE\s.*\sLIMITS$`, stdout)
	require.Regexp(t, `(?m)^mail\s.*\srunning<=5, per store<=1, 100 started/00:01:00, fair$`, stdout)
	require.Regexp(t, `(?m)^crash\s.*\s-$`, stdout)

	type row struct {
		Queue  string         `json:"queue"`
		Limits map[string]any `json:"limits"`
	}
	by := map[string]row{}
	for _, r := range opJSON[[]row](t, b, "stats") {
		by[r.Queue] = r
	}
	require.Equal(t, map[string]any{"max_running": 5.0, "max_running_per_store": 1.0, "max_started": 100.0,
		"started_per": "00:01:00", "fair": true}, by["mail"].Limits)
	require.Contains(t, by, "crash")
	require.Nil(t, by["crash"].Limits, "a queue without controls: null")

	// The JSON keeps the key for a plain queue: limits is null, not missing.
	code, stdout, _ = b.op(t, "stats", "--queue", "crash", "--json")
	require.Equal(t, 0, code)
	require.Contains(t, stdout, `"limits": null`)
}
