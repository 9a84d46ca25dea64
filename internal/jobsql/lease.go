package jobsql

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// Claim is the one claim statement (jobq.claim_job), of jobq.Client.Claim and of the runner's
// claims (internal/engine's ClaimAfter). It claims up to max due jobs for workerID from queues
// (served in the order given), each under a fresh lease of length lease, and returns them in
// claim order. tasks nil claims every task. priority, runAt and id are the claim positions, one
// element per queue (NULL elements: that queue from its head); nil arrays claim every queue from
// its head.
func Claim(ctx context.Context, db DB, workerID string, queues, tasks []string, max int, lease time.Duration,
	priority []*int32, runAt []*time.Time, id []*int64) ([]Job, error) {
	const columns = `id, task, queue, payload, store_id::text, priority, run_at, attempt, max_attempts, job_key,
		       lease_token::text, claimed_at, lease_expires_at, deadline_at, last_error, created_at,
		       coalesce(traceparent, ''), coalesce(tracestate, '')`
	var rows pgx.Rows
	var err error
	// The tasks are one array parameter, NULL for every task: the plain claim stays one statement.
	switch {
	case priority == nil && tasks == nil:
		rows, err = db.Query(ctx, `SELECT `+columns+` FROM jobq.claim_job($1, $2, $3, $4)`,
			workerID, queues, max, Interval(lease))
	case priority == nil:
		rows, err = db.Query(ctx, `SELECT `+columns+` FROM jobq.claim_job($1, $2, $3, $4, tasks => $5::text[])`,
			workerID, queues, max, Interval(lease), tasks)
	default:
		rows, err = db.Query(ctx, `SELECT `+columns+` FROM jobq.claim_job($1, $2, $3, $4, $5::int[], $6::timestamptz[], $7::bigint[], $8::text[])`,
			workerID, queues, max, Interval(lease), priority, runAt, id, tasks)
	}
	if err != nil {
		return nil, Wrap(err, "claim")
	}
	// Each row is scanned into one Job whose destinations are laid out once, then appended (a
	// row allocates only its own strings and bytes); the payload is kept as the bytes the server
	// sent (a jsonb the database already checked; read as json.RawMessage, pgx would parse it
	// again). An empty claim allocates nothing, a small one room for 16 jobs, a larger one room
	// for max once more (for a max above about 1,000, room growing by twice and 1,024 each time).
	defer rows.Close()
	var jobs []Job
	var j Job
	dest := []any{&j.ID, &j.Task, &j.Queue, (*[]byte)(&j.Payload), &j.StoreID, &j.Priority, &j.RunAt, &j.Attempt,
		&j.MaxAttempts, &j.JobKey, &j.LeaseToken, &j.ClaimedAt, &j.LeaseExpiresAt, &j.DeadlineAt, &j.LastError, &j.CreatedAt,
		&j.Traceparent, &j.Tracestate}
	for rows.Next() {
		j = Job{}
		if err := rows.Scan(dest...); err != nil {
			return nil, Wrap(err, "claim")
		}
		if len(jobs) == cap(jobs) {
			room := min(max, 16)
			if jobs != nil {
				room = min(max, 1024+2*cap(jobs))
			}
			jobs = append(make([]Job, 0, room), jobs...)
		}
		jobs = append(jobs, j)
	}
	if err := rows.Err(); err != nil {
		return nil, Wrap(err, "claim")
	}
	// In claim order as the engine returns them (jobq._claim): the order is stated once, in SQL.
	return jobs, nil
}

// Heartbeat is the one heartbeat statement (jobq.heartbeat_jobs), of jobq.Client.Heartbeat and
// of the runner's (internal/engine's HeartbeatAt). It renews the leases workerID still holds for
// another lease and returns the new expiry of each renewed job (a job missing from the map has
// lost its lease) and the database's now() of the call, zero when no lease was renewed.
func Heartbeat(ctx context.Context, db DB, workerID string, leases []Lease, lease time.Duration) (map[int64]time.Time, time.Time, error) {
	ids, tokens := LeaseArrays(leases)
	rows, err := db.Query(ctx, `SELECT job_id, lease_expires_at, now() FROM jobq.heartbeat_jobs($1, $2, $3::text[]::uuid[], $4)`,
		workerID, ids, tokens, Interval(lease))
	if err != nil {
		return nil, time.Time{}, Wrap(err, "heartbeat")
	}
	renewed := make(map[int64]time.Time, len(leases))
	var id int64
	var until, now, dbNow time.Time
	_, err = pgx.ForEachRow(rows, []any{&id, &until, &now}, func() error {
		renewed[id], dbNow = until, now
		return nil
	})
	return renewed, dbNow, Wrap(err, "heartbeat")
}

// Complete is the one complete statement (jobq.complete_jobs), of jobq.Client.Complete and of
// the runner's (internal/engine's CompleteAttempts, which passes what each attempt left behind).
// outputs, logRefs, exitCodes and results are all nil, the plain statement, or outputs, logRefs
// and exitCodes each one per lease ("" and nil: none) and results nil or one per lease (nil: none;
// while no attempt has a result the statement reads no setting). It returns one Outcome per
// lease, in order: "succeeded", "lease_lost", or "result_too_large" (above the setting
// max_result_bytes: nothing was written for it and its job still runs under the lease).
func Complete(ctx context.Context, db DB, leases []Lease, outputs, logRefs []string, exitCodes []*int, results []json.RawMessage) ([]Outcome, error) {
	ids, tokens := LeaseArrays(leases)
	if outputs == nil && logRefs == nil && exitCodes == nil && results == nil {
		rows, err := db.Query(ctx, `SELECT job_id, outcome FROM jobq.complete_jobs($1, $2::text[]::uuid[])`, ids, tokens)
		return Outcomes(rows, err, "complete", len(leases))
	}
	n := len(leases)
	outs, refs, codes := make([]*string, n), make([]*string, n), make([]*int32, n)
	for i := range n {
		if outputs != nil {
			outs[i], refs[i], codes[i] = NullString(outputs[i]), NullString(logRefs[i]), ExitCode(exitCodes[i])
		}
	}
	var res []*string
	for i, r := range results {
		if r != nil {
			if res == nil {
				res = make([]*string, n)
			}
			text := string(r)
			res[i] = &text
		}
	}
	rows, err := db.Query(ctx, `SELECT job_id, outcome FROM jobq.complete_jobs($1, $2::text[]::uuid[], $3, $4, $5, $6::text[]::jsonb[])`,
		ids, tokens, outs, refs, codes, res)
	return Outcomes(rows, err, "complete", len(leases))
}

// Outcomes collects the rows of a statement returning job_id, outcome and, optionally, run_at
// (jobq.complete_jobs, fail_jobs, snooze_jobs, confirm_continuation), one Outcome a row, with
// room made for n (the leases of the call: one row each). err is the statement's; every error is
// mapped by Wrap with doing.
func Outcomes(rows pgx.Rows, err error, doing string, n int) ([]Outcome, error) {
	if err != nil {
		return nil, Wrap(err, doing)
	}
	defer rows.Close()
	out := make([]Outcome, 0, n)
	var o Outcome
	var dest []any // laid out once, on the first row (two or three columns)
	for rows.Next() {
		if dest == nil {
			dest = []any{&o.JobID, &o.Outcome, &o.RunAt}[:min(len(rows.FieldDescriptions()), 3)]
		}
		o = Outcome{}
		if err := rows.Scan(dest...); err != nil {
			return nil, Wrap(err, doing)
		}
		out = append(out, o)
	}
	return out, Wrap(rows.Err(), doing)
}

// LeaseArrays lays leases out as the engine's two array arguments: the job ids and their tokens.
func LeaseArrays(leases []Lease) ([]int64, []string) {
	ids := make([]int64, len(leases))
	tokens := make([]string, len(leases))
	for i, l := range leases {
		ids[i], tokens[i] = l.JobID, l.Token
	}
	return ids, tokens
}

// Interval is d as a SQL interval, NULL (the function's default) when d is not positive.
func Interval(d time.Duration) pgtype.Interval {
	if d <= 0 {
		return pgtype.Interval{}
	}
	return pgtype.Interval{Microseconds: d.Microseconds(), Valid: true}
}

// NullString is s as a SQL text argument, NULL when s is "".
func NullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ExitCode is a command's exit status as the engine's integer argument, NULL when nil.
func ExitCode(code *int) *int32 {
	if code == nil {
		return nil
	}
	c := int32(*code)
	return &c
}
