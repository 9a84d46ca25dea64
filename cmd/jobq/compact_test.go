package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/dbtest"
)

// compactJSON runs jobq compact --json with args and returns its exit code, rows and stderr.
func compactJSON(t *testing.T, args ...string) (int, []compactRow, string) {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"compact", "--json"}, args...)...)
	var rows []compactRow
	if code == 0 {
		require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
	}
	return code, rows, errOut
}

// churnJobs runs n jobs through jobq.jobs in batches of 1,000: enqueue, claim, complete.
func churnJobs(t *testing.T, conn *pgx.Conn, n int) {
	t.Helper()
	ctx := testCtx(t)
	for done := 0; done < n; done += 1000 {
		_, err := conn.Exec(ctx, `SELECT jobq.enqueue_many((SELECT jsonb_agg(jsonb_build_object('task', 'bulk', 'payload',
				jsonb_build_object('pad', repeat('x', 200)))) FROM generate_series(1, 1000)))`)
		require.NoError(t, err)
		_, err = conn.Exec(ctx, `WITH c AS (SELECT id, lease_token FROM jobq.claim_job('w-churn', ARRAY['default'], 1000))
			SELECT count(*) FROM jobq.complete_jobs(ARRAY(SELECT id FROM c ORDER BY id), ARRAY(SELECT lease_token FROM c ORDER BY id))`)
		require.NoError(t, err)
	}
}

func jobsSize(t *testing.T, conn *pgx.Conn) int64 {
	t.Helper()
	var n int64
	require.NoError(t, conn.QueryRow(testCtx(t), "SELECT pg_total_relation_size('jobq.jobs')").Scan(&n))
	return n
}

// rowFor is the advice row of table, failing t when there is none.
func rowFor(t *testing.T, rows []compactRow, table string) compactRow {
	t.Helper()
	for _, r := range rows {
		if r.Table == table {
			return r
		}
	}
	t.Fatalf("no row for %s in %+v", table, rows)
	return compactRow{}
}

// TestCLICompactGivesJobsBackItsSizeAfterALongSnapshot follows an operator through the case jobq
// compact exists for: a transaction keeps a snapshot while 30,000 jobs run, so jobq.jobs grows;
// while the snapshot stays, compact waits and says who holds it; once it ends, a login that is not
// the owner is refused, a dry run changes nothing, a table locked by someone else is given up
// until the next round, and the owner's run returns the table to a fraction of its size while
// jobs keep flowing on other connections, every one of them done.
func TestCLICompactGivesJobsBackItsSizeAfterALongSnapshot(t *testing.T) {
	db := dbtest.New(t)
	admin := dbtest.Connect(t, db.URL("postgres"))
	ctx := testCtx(t)
	ownerURL := db.URL("jobq_migrator")
	_, err := admin.Exec(ctx, `SELECT jobq_test.tasks('bulk', 'flow')`)
	require.NoError(t, err)

	// The clone may carry what earlier tests left in the template: a first round deals with it,
	// and a second finds nothing to do.
	code, _, errOut := runCLI(t, "compact", "--database-url", ownerURL)
	require.Equal(t, 0, code, errOut)
	code, out, errOut := runCLI(t, "compact", "--database-url", ownerURL)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "nothing to do", "a compacted database needs nothing")

	snap := dbtest.Connect(t, db.URL("postgres"))
	_, err = snap.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ")
	require.NoError(t, err)
	var snapPID int
	require.NoError(t, snap.QueryRow(ctx, "SELECT pg_backend_pid() FROM (SELECT count(*) FROM jobq.job_history) h").Scan(&snapPID))
	churnJobs(t, admin, 30000)
	grown := jobsSize(t, admin)
	require.Greater(t, grown, int64(8<<20), "30,000 jobs under a snapshot grow jobq.jobs")

	code, rows, errOut := compactJSON(t, "--database-url", ownerURL, "--min-size-mb", "1", "--held-after", "0s")
	require.Equal(t, 0, code, errOut)
	held := rowFor(t, rows, "jobq.jobs")
	require.Equal(t, "wait", held.Action)
	require.Equal(t, "waiting", held.Result)
	require.NotNil(t, held.Reason)
	require.Contains(t, *held.Reason, "has kept a snapshot", "the reason names the snapshot")
	require.Contains(t, *held.Reason, fmt.Sprintf("pid %d ", snapPID), "the reason names the session")
	require.Nil(t, held.Statement, "nothing is run while the snapshot holds")
	require.GreaterOrEqual(t, jobsSize(t, admin), grown, "waiting changes nothing")

	_, err = snap.Exec(ctx, "COMMIT")
	require.NoError(t, err)

	operator := loginRole(t, admin, "compact_operator", "IN ROLE jobq_operator")
	code, _, errOut = runCLI(t, "compact", "--database-url", db.URL(operator), "--min-size-mb", "1")
	require.Equal(t, 1, code, "an operator that does not own the tables is refused")
	require.Contains(t, errOut, "must run as the owner of jobq's tables")
	require.GreaterOrEqual(t, jobsSize(t, admin), grown, "the refused run changed nothing")

	code, rows, errOut = compactJSON(t, "--database-url", ownerURL, "--min-size-mb", "1", "--dry-run")
	require.Equal(t, 0, code, errOut)
	dry := rowFor(t, rows, "jobq.jobs")
	require.Equal(t, "rewrite", dry.Action)
	require.Equal(t, "dry run", dry.Result)
	require.Equal(t, "VACUUM (FULL) jobq.jobs", *dry.Statement)
	require.GreaterOrEqual(t, jobsSize(t, admin), grown, "a dry run changes nothing")

	// Someone holds a lock on jobq.jobs (an open transaction that enqueued): the rewrite waits
	// --lock-timeout for it, then leaves it to the next round.
	locker := dbtest.Connect(t, db.URL("postgres"))
	_, err = locker.Exec(ctx, "BEGIN")
	require.NoError(t, err)
	_, err = locker.Exec(ctx, "SELECT jobq.enqueue('flow')")
	require.NoError(t, err)
	code, rows, errOut = compactJSON(t, "--database-url", ownerURL, "--min-size-mb", "1", "--lock-timeout", "200ms")
	require.Equal(t, 0, code, errOut)
	busy := rowFor(t, rows, "jobq.jobs")
	require.Equal(t, "rewrite", busy.Action)
	require.Contains(t, busy.Result, "given up: the table stayed locked")
	require.GreaterOrEqual(t, jobsSize(t, admin), grown, "the given-up rewrite changed nothing")
	_, err = locker.Exec(ctx, "COMMIT")
	require.NoError(t, err)

	// Jobs keep flowing on four connections while the owner's run rewrites the table. Each
	// connection finishes its statement before it stops, so every enqueue counted is committed and
	// none commits after the count.
	var stop atomic.Bool
	var flowed atomic.Int64
	var flowErr error
	var flowFailed atomic.Bool // flowErr is set
	var once sync.Once
	var wg sync.WaitGroup
	for i := range 4 {
		conn := dbtest.Connect(t, db.URL("postgres"))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				_, err := conn.Exec(ctx, `SELECT jobq.enqueue('flow', queue => 'flow')`)
				if err == nil {
					flowed.Add(1)
					_, err = conn.Exec(ctx, `WITH c AS (SELECT id, lease_token FROM jobq.claim_job('w-flow-'||$1::text, ARRAY['flow'], 1))
						SELECT count(*) FROM jobq.complete_jobs(ARRAY(SELECT id FROM c), ARRAY(SELECT lease_token FROM c))`, fmt.Sprint(i))
				}
				if err != nil {
					once.Do(func() { flowErr = err; flowFailed.Store(true) })
					return
				}
			}
		}()
	}
	waitUntil(t, waitCeiling, "jobs flowing", func() bool { return flowed.Load() >= 20 || flowFailed.Load() })
	// compact runs in rounds (an operator's cron). A rewrite keeps the dead rows a snapshot open
	// at that moment still sees (on a loaded machine, autovacuum's ANALYZE of another table holds
	// one for a while), so a round that left the table large is followed by the next one, as the
	// cron would; the table must come back to a fraction of its size within the ceiling.
	var done compactRow
	waitUntil(t, waitCeiling, "a round of compact returns jobq.jobs to a fraction of its size", func() bool {
		code, rows, errOut = compactJSON(t, "--database-url", ownerURL, "--min-size-mb", "1", "--lock-timeout", "2s")
		if code != 0 {
			return true
		}
		done = rowFor(t, rows, "jobq.jobs")
		if done.Action == "rewrite" && done.Result == "done" && done.BytesAfter != nil && *done.BytesAfter < grown/10 {
			return true
		}
		var bytes int64
		if done.BytesAfter != nil {
			bytes = *done.BytesAfter
		}
		t.Logf("compact round: %s %s (%d bytes after, grown to %d); another round", done.Action, done.Result, bytes, grown)
		return false
	})
	after := flowed.Load()
	waitUntil(t, waitCeiling, "jobs flowing after the rewrite", func() bool { return flowed.Load() >= after+20 || flowFailed.Load() })
	stop.Store(true)
	wg.Wait()
	require.Equal(t, 0, code, errOut)
	require.NoError(t, flowErr, "jobs kept flowing through the rewrite")
	require.Equal(t, "rewrite", done.Action)
	require.Equal(t, "done", done.Result)
	require.NotNil(t, done.BytesAfter)
	require.Less(t, *done.BytesAfter, grown/10, "the rewrite returns jobq.jobs to a fraction of its size")
	require.Less(t, jobsSize(t, admin), grown/10)
	// Every job enqueued while the table was rewritten is there to finish: none was lost.
	_, err = admin.Exec(ctx, `WITH c AS (SELECT id, lease_token FROM jobq.claim_job('w-drain', ARRAY['flow'], 10000))
		SELECT count(*) FROM jobq.complete_jobs(ARRAY(SELECT id FROM c ORDER BY id), ARRAY(SELECT lease_token FROM c ORDER BY id))`)
	require.NoError(t, err)
	var left, finished int64
	require.NoError(t, admin.QueryRow(ctx, "SELECT count(*) FROM jobq.jobs WHERE queue = 'flow'").Scan(&left))
	require.NoError(t, admin.QueryRow(ctx, "SELECT count(*) FROM jobq.job_history WHERE queue = 'flow' AND state = 'succeeded'").Scan(&finished))
	require.Positive(t, flowed.Load())
	require.Zero(t, left)
	require.Equal(t, flowed.Load(), finished, "every job enqueued during the rewrite succeeded")
	require.False(t, queryBool(t, admin, "SELECT EXISTS (SELECT 1 FROM jobq.job_history WHERE queue = 'flow' AND state <> 'succeeded')"),
		"no job of the flow ended otherwise")

	// At the default threshold (8 MiB) nothing is left to do; at 1 MiB the jobs that flowed after
	// the rewrite may already have made the table worth another.
	code, out, errOut = runCLI(t, "compact", "--database-url", ownerURL)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "nothing to do", "after the rewrite nothing is left to do")
}

// TestCLICompactDropsAnIndexAStoppedRebuildLeftInvalid: a REINDEX CONCURRENTLY that stops leaves
// an invalid copy (suffix _ccnew) that every insert still writes; jobq compact drops it.
func TestCLICompactDropsAnIndexAStoppedRebuildLeftInvalid(t *testing.T) {
	db := dbtest.New(t)
	admin := dbtest.Connect(t, db.URL("postgres"))
	ctx := testCtx(t)
	_, err := admin.Exec(ctx, `SELECT jobq_test.tasks('flow')`)
	require.NoError(t, err)
	code, _, errOut := runCLI(t, "compact", "--database-url", db.URL("jobq_migrator"))
	require.Equal(t, 0, code, "a first round deals with what the template carried: %s", errOut)
	_, err = admin.Exec(ctx, `SELECT jobq.enqueue('flow') FROM generate_series(1, 2)`)
	require.NoError(t, err)
	// Two jobs in one queue make a unique index on queue fail, leaving it invalid.
	_, err = admin.Exec(ctx, "CREATE UNIQUE INDEX CONCURRENTLY jobs_queue_ccnew ON jobq.jobs (queue)")
	require.Error(t, err)
	require.True(t, queryBool(t, admin, "SELECT NOT indisvalid FROM pg_index WHERE indexrelid = 'jobq.jobs_queue_ccnew'::regclass"))

	code, rows, errOut := compactJSON(t, "--database-url", db.URL("jobq_migrator"))
	require.Equal(t, 0, code, errOut)
	require.Len(t, rows, 1, "only the invalid index needs anything")
	require.Equal(t, "drop_invalid_index", rows[0].Action)
	require.Equal(t, "done", rows[0].Result)
	require.True(t, queryBool(t, admin, "SELECT to_regclass('jobq.jobs_queue_ccnew') IS NULL"), "the invalid index is gone")
}

// TestCLICompactEveryRunsRoundsUntilStopped: with --every, rounds repeat until the signal's
// context ends, and the command then exits 0. The context ends after the third round (issue 29:
// it ended after 1.5 s, which three rounds need not fit in on a loaded machine).
func TestCLICompactEveryRunsRoundsUntilStopped(t *testing.T) {
	db := dbtest.New(t)
	ctx, cancel := context.WithTimeout(testCtx(t), waitCeiling)
	defer cancel()
	out := &roundsWriter{rounds: 3, done: cancel}
	var errOut bytes.Buffer
	code := run(ctx, []string{"compact", "--every", "200ms", "--database-url", db.URL("jobq_migrator")}, out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	require.GreaterOrEqual(t, strings.Count(out.String(), "nothing to do"), 3, out.String())

	code, _, errOut2 := runCLI(t, "compact", "--every=-1s")
	require.Equal(t, 2, code, "a negative --every is a usage error")
	require.Contains(t, errOut2, "--every must not be negative")
	code, _, errOut2 = runCLI(t, "compact", "--min-size-mb", "9223372036854775807")
	require.Equal(t, 2, code, "a --min-size-mb that would wrap round in bytes is a usage error")
	require.Contains(t, errOut2, "--min-size-mb must be at most")
	code, _, errOut2 = runCLI(t, "compact", "--max-rows", "2000000", "--database-url", db.URL("jobq_migrator"))
	require.Equal(t, 1, code, "a --max-rows beyond the engine's bound is refused by it")
	require.Contains(t, errOut2, "JOB.OUT_OF_RANGE")
}

// roundsWriter collects compact's output and calls done once it has said "nothing to do" rounds
// times; safe for concurrent use.
type roundsWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	rounds int
	done   func()
}

func (w *roundsWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if strings.Count(w.buf.String(), "nothing to do") >= w.rounds {
		w.done()
	}
	return n, err
}

func (w *roundsWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
