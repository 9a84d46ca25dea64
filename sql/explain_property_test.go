package sql_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/testbundle"
)

// TestExplainJobAgreesWithTheClaim is the property of jobq.explain_job over random queue states: a
// claim by a live worker serving the queue takes a job only when explain_job names nothing
// holding it, and takes at least one job whenever explain_job finds one claimable. Each state: four
// queues, each maybe paused, with random concurrency limits (queue, store, partition) and rate
// limits (queue, store) and starts already in their windows; waiting jobs of three stores and
// system jobs, of a task the worker serves or one it does not, due or not (retry_pending among
// them); running jobs of another worker that fill the limits. The claim of each queue runs in a
// transaction rolled back, so one state serves every queue. Times sit far from every edge (run_at
// an hour away, starts 1 to 50 minutes into a one-hour window), so the few milliseconds between
// the explanations and the claims change nothing.
func TestExplainJobAgreesWithTheClaim(t *testing.T) {
	t.Parallel()
	const states = 60
	queues := []string{"x-a", "x-b", "x-c", "x-d"}
	stores := []*string{nil, ptr("00000000-0000-0000-0000-00000000000a"), ptr("00000000-0000-0000-0000-00000000000b"),
		ptr("00000000-0000-0000-0000-00000000000c")}
	b := testbundle.NewWith(t, testbundle.Options{WorkerConns: 1})
	b.Define(t, "served", "unserved")
	ctx := b.Ctx
	_, err := b.WorkerPool.Exec(ctx, `SELECT jobq.register_worker('explainer', 'node', 1, $1, 10, '', ARRAY['served'])`, queues)
	require.NoError(t, err)
	var holds, claimable, claimed, checkedQueues int
	for state := range states {
		rng := rand.New(rand.NewPCG(uint64(state), 35))
		_, err := b.Admin.Exec(ctx, `TRUNCATE jobq.jobs, jobq.claim_starts`)
		require.NoError(t, err)
		_, err = b.WorkerPool.Exec(ctx, `SELECT jobq.worker_heartbeat('explainer')`)
		require.NoError(t, err)
		for _, q := range queues {
			controls := []string{
				fmt.Sprintf(`SELECT jobq.%s_queue(%s)`, pick(rng, 0.15, "pause", "resume"), lit(q)),
				fmt.Sprintf(`SELECT jobq.set_concurrency_limit(%s, %s)`, lit(q), maybeInt(rng, 0.3, 1, 4)),
				fmt.Sprintf(`SELECT jobq.set_store_concurrency_limit(%s, %s)`, lit(q), maybeInt(rng, 0.3, 1, 3)),
				fmt.Sprintf(`SELECT jobq.set_partition_concurrency_limit(%s, 'k', %s)`, lit(q), maybeInt(rng, 0.25, 1, 2)),
				fmt.Sprintf(`SELECT jobq.set_rate_limit(%s, %s, '1 hour')`, lit(q), maybeInt(rng, 0.25, 1, 4)),
				fmt.Sprintf(`SELECT jobq.set_store_rate_limit(%s, %s, '1 hour')`, lit(q), maybeInt(rng, 0.2, 1, 3)),
			}
			for _, c := range controls {
				if _, err := b.Admin.Exec(ctx, c); err != nil {
					// A control may refuse to clear what is not set (unknown queue): only a
					// catalogued refusal is acceptable.
					require.Contains(t, err.Error(), "JOB.", c)
				}
			}
			for range rng.IntN(4) {
				_, err := b.Admin.Exec(ctx, `INSERT INTO jobq.claim_starts (queue, store_id, started_at)
					VALUES ($1, $2::uuid, now() - make_interval(mins => $3))`, q, stores[rng.IntN(len(stores))], 1+rng.IntN(50))
				require.NoError(t, err)
			}
			for range rng.IntN(5) {
				_, err := b.Admin.Exec(ctx, `INSERT INTO jobq.jobs (task, queue, store_id, payload, max_attempts, state, attempt,
						locked_by, lease_token, claimed_at, heartbeat_at, lease_expires_at)
					VALUES ('served', $1, $2::uuid, jsonb_build_object('k', $3::int), 3, 'running', 1,
						'someone-else', gen_random_uuid(), now(), now(), now() + interval '1 hour')`,
					q, stores[rng.IntN(len(stores))], 1+rng.IntN(3))
				require.NoError(t, err)
			}
			for range 1 + rng.IntN(8) {
				task := "served"
				if rng.Float64() < 0.15 {
					task = "unserved"
				}
				runAt := "now() - interval '1 minute'"
				if rng.Float64() < 0.2 {
					runAt = "now() + interval '1 hour'"
				}
				state := "queued"
				if rng.Float64() < 0.2 {
					state = "retry_pending"
				}
				_, err := b.Admin.Exec(ctx, fmt.Sprintf(`INSERT INTO jobq.jobs (task, queue, store_id, payload, max_attempts, state, attempt, run_at)
					VALUES ($1, $2, $3::uuid, jsonb_build_object('k', $4::int), 3, $5, CASE WHEN $5 = 'retry_pending' THEN 1 ELSE 0 END, %s)`, runAt),
					task, q, stores[rng.IntN(len(stores))], 1+rng.IntN(3), state)
				require.NoError(t, err)
			}
		}
		for _, q := range queues {
			rows, err := b.Admin.Query(ctx, `SELECT j.id, count(h.rule) FROM jobq.jobs j
				LEFT JOIN LATERAL jobq.explain_job(j.id) h ON true
				WHERE j.queue = $1 AND j.state <> 'running' GROUP BY j.id`, q)
			require.NoError(t, err)
			free := map[int64]bool{}
			for rows.Next() {
				var id int64
				var n int
				require.NoError(t, rows.Scan(&id, &n))
				free[id] = n == 0
				holds += n
			}
			require.NoError(t, rows.Err())

			tx, err := b.WorkerPool.Begin(ctx)
			require.NoError(t, err)
			rows, err = tx.Query(ctx, `SELECT id FROM jobq.claim_job('explainer', ARRAY[$1], 10000, '1 minute', NULL, NULL, NULL, ARRAY['served'])`, q)
			require.NoError(t, err)
			var got []int64
			for rows.Next() {
				var id int64
				require.NoError(t, rows.Scan(&id))
				got = append(got, id)
			}
			require.NoError(t, rows.Err())
			require.NoError(t, tx.Rollback(ctx))

			for _, id := range got {
				require.True(t, free[id], "state %d, queue %s: the claim took job %d, which explain_job says is held", state, q, id)
			}
			n := 0
			for _, ok := range free {
				if ok {
					n++
				}
			}
			if n > 0 {
				require.NotEmpty(t, got, "state %d, queue %s: explain_job finds %d claimable jobs, the claim took none", state, q, n)
			}
			claimable += n
			claimed += len(got)
			checkedQueues++
		}
	}
	t.Logf("%d states, %d queues claimed: %d holds named, %d jobs claimable, %d claimed", states, checkedQueues, holds, claimable, claimed)
	// The states are varied enough to mean something: holds and free jobs both occur.
	require.Positive(t, holds)
	require.Positive(t, claimable)
	require.Less(t, claimed, claimable+1)
}

func ptr(s string) *string { return &s }

// lit is s as a SQL string literal (test values only: no quote in them).
func lit(s string) string { return "'" + s + "'" }

// pick returns a with probability p, else b.
func pick(rng *rand.Rand, p float64, a, b string) string {
	if rng.Float64() < p {
		return a
	}
	return b
}

// maybeInt is, with probability p, an integer in [lo, hi], else NULL (the control cleared).
func maybeInt(rng *rand.Rand, p float64, lo, hi int) string {
	if rng.Float64() < p {
		return fmt.Sprint(lo + rng.IntN(hi-lo+1))
	}
	return "NULL"
}
