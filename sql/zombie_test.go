package sql_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
)

const (
	workerA = "worker-A" // the zombie: its lease was swept while it still ran
	workerB = "worker-B" // the worker that claimed the job after the sweep
)

// takeover is n jobs claimed by worker A, swept as orphaned, and claimed again by worker B.
type takeover struct {
	IDs []int64
	A   map[int64]jobq.Job // A's stale claims
	B   map[int64]jobq.Job // B's current claims
}

// takeOver enqueues n jobs, lets worker A claim them under a short lease, sweeps them with the
// clock an hour ahead (so A's lease counts as expired), makes them due and lets worker B claim them.
func takeOver(t *testing.T, b *testbundle.Bundle, n int) takeover {
	t.Helper()
	b.Define(t, "zombie")
	tk := takeover{
		IDs: b.EnqueueMany(t, testbundle.ManyArgs{Count: n, Spec: jobq.JobSpec{Task: "zombie"}}),
		A:   make(map[int64]jobq.Job, n),
		B:   make(map[int64]jobq.Job, n),
	}
	for _, j := range b.Claim(t, testbundle.ClaimArgs{Worker: workerA, Max: n, Lease: time.Second}) {
		require.Equal(t, 1, j.Attempt)
		tk.A[j.ID] = j
	}
	require.Len(t, tk.A, n)

	swept := rescueAt(t, b, n+10, "1 hour")
	require.Len(t, swept, n)
	for _, r := range swept {
		require.Contains(t, tk.A, r.JobID)
		require.Equal(t, rescued{JobID: r.JobID, Outcome: "retry_pending", Reason: "orphaned"}, r)
	}

	b.MakeDue(t, tk.IDs...)
	for _, j := range b.Claim(t, testbundle.ClaimArgs{Worker: workerB, Max: n}) {
		require.Equal(t, 2, j.Attempt, "job %d", j.ID)
		require.NotEqual(t, tk.A[j.ID].LeaseToken, j.LeaseToken, "job %d", j.ID)
		tk.B[j.ID] = j
	}
	require.Len(t, tk.B, n)
	return tk
}

// requireEndedUnderB checks that job id ended succeeded under B's claim.
func requireEndedUnderB(t *testing.T, b *testbundle.Bundle, tk takeover, id int64) {
	t.Helper()
	h := b.Finished(t, id)
	require.Equal(t, "succeeded", h.State, "job %d", id)
	require.Equal(t, testbundle.Ptr(workerB), h.LockedBy, "job %d", id)
	require.Equal(t, 2, h.Attempt, "job %d", id)
	require.Equal(t, testbundle.Ptr(tk.B[id].LeaseToken), h.LeaseToken, "job %d", id)
}

func TestZombieWorker(t *testing.T) {
	t.Parallel()

	// A's complete, fail (retryable and not), heartbeat and snooze run at the same moment as B's
	// complete, each on its own connection: every one of A's writes is refused and B's wins.
	t.Run("StaleLeaseRefusedEverywhere", func(t *testing.T) {
		t.Parallel()
		b := testbundle.NewWith(t, testbundle.Options{WorkerConns: 8})
		cs := conns(t, b.WorkerPool, 6)

		for round := range 10 {
			tk := takeOver(t, b, 1)
			id := tk.IDs[0]
			a, bb := testbundle.LeaseOf(tk.A[id]), testbundle.LeaseOf(tk.B[id])

			var (
				aComplete, aFail, aFailDead, bComplete []jobq.Outcome
				aHeartbeat                             map[int64]time.Time
				aSnoozeErr                             error
			)
			errs := together(6, func(i int) error {
				c := jobq.NewClient(cs[i])
				var err error
				switch i {
				case 0:
					aComplete, err = c.Complete(b.Ctx, []jobq.Lease{a})
				case 1:
					aFail, err = c.Fail(b.Ctx, []jobq.Failure{{Lease: a, Error: "late failure"}})
				case 2:
					aFailDead, err = c.Fail(b.Ctx, []jobq.Failure{{Lease: a, Error: "late fatal failure", Fatal: true}})
				case 3:
					aHeartbeat, err = c.Heartbeat(b.Ctx, workerA, []jobq.Lease{a}, time.Minute)
				case 4:
					_, aSnoozeErr = c.Snooze(b.Ctx, a, 0)
				case 5:
					bComplete, err = c.Complete(b.Ctx, []jobq.Lease{bb})
				}
				return err
			})
			requireNoErrors(t, errs, fmt.Sprintf("round %d", round))

			lost := []jobq.Outcome{{JobID: id, Outcome: "lease_lost"}}
			require.Equal(t, lost, aComplete, "round %d: A's complete", round)
			require.Equal(t, lost, aFail, "round %d: A's retryable fail", round)
			require.Equal(t, lost, aFailDead, "round %d: A's fatal fail", round)
			require.NotContains(t, aHeartbeat, id, "round %d: A's heartbeat renewed a lease it lost", round)
			require.ErrorIs(t, aSnoozeErr, jobq.ErrLeaseLost, "round %d: A's snooze", round)
			require.Equal(t, []jobq.Outcome{{JobID: id, Outcome: "succeeded"}}, bComplete, "round %d: B's complete", round)

			requireEndedUnderB(t, b, tk, id)
			require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.jobs`), "round %d", round)
		}
	})

	// A and B complete the same job at the same moment, 200 times: B's token always wins and A is
	// always told lease_lost, whichever statement reaches the row first.
	t.Run("CompletesRaceAfterRescue", func(t *testing.T) {
		t.Parallel()
		const n = 200
		b := testbundle.NewWith(t, testbundle.Options{WorkerConns: 4})
		cs := conns(t, b.WorkerPool, 2)
		tk := takeOver(t, b, n)

		for _, id := range tk.IDs {
			var outA, outB []jobq.Outcome
			errs := together(2, func(i int) error {
				var err error
				if i == 0 {
					outA, err = jobq.NewClient(cs[0]).Complete(b.Ctx, []jobq.Lease{testbundle.LeaseOf(tk.A[id])})
				} else {
					outB, err = jobq.NewClient(cs[1]).Complete(b.Ctx, []jobq.Lease{testbundle.LeaseOf(tk.B[id])})
				}
				return err
			})
			requireNoErrors(t, errs, fmt.Sprintf("job %d", id))
			require.Equal(t, []jobq.Outcome{{JobID: id, Outcome: "lease_lost"}}, outA, "job %d: A's complete", id)
			require.Equal(t, []jobq.Outcome{{JobID: id, Outcome: "succeeded"}}, outB, "job %d: B's complete", id)
		}

		require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.jobs`))
		require.Equal(t, n, b.Count(t, `SELECT count(*) FROM jobq.job_history`))
		for _, id := range tk.IDs {
			requireEndedUnderB(t, b, tk, id)
		}
	})

	// A completes its jobs one by one while, at the same moment each time, the sweeper runs with
	// the clock just past that job's lease (job i holds a lease of i+1 minutes, so the sweep of
	// round i finds job i expired and no later one). Each job ends exactly once: either A's complete
	// succeeded and no sweep returned the job, or a sweep returned it and A was told lease_lost.
	t.Run("CompleteRacesRescue", func(t *testing.T) {
		t.Parallel()
		const n = 200
		b := testbundle.NewWith(t, testbundle.Options{WorkerConns: 2})
		sweeper, err := b.Admin.Acquire(b.Ctx)
		require.NoError(t, err)
		t.Cleanup(sweeper.Release)
		worker := conns(t, b.WorkerPool, 1)[0]

		b.Define(t, "zombie")
		ids := b.EnqueueMany(t, testbundle.ManyArgs{Count: n, Spec: jobq.JobSpec{Task: "zombie"}})
		claimed := make(map[int64]jobq.Job, n)
		for i, id := range ids {
			j := b.ClaimOne(t, testbundle.ClaimArgs{Worker: workerA, Lease: time.Duration(i+1) * time.Minute})
			require.Equal(t, id, j.ID, "jobs are claimed in id order")
			claimed[id] = j
		}

		outcomeA := make(map[int64]string, n)
		sweptBy := make(map[int64]int) // job -> how many sweeps returned it
		for i, id := range ids {
			var out []jobq.Outcome
			var swept []rescued
			sweepAt := fmt.Sprintf("%d seconds", (i+1)*60+30)
			errs := together(2, func(i int) error {
				var err error
				if i == 0 {
					out, err = jobq.NewClient(worker).Complete(b.Ctx, []jobq.Lease{testbundle.LeaseOf(claimed[id])})
					return err
				}
				rows, err := sweeper.Query(b.Ctx, `SELECT job_id, outcome, reason FROM jobq._rescue(10, now() + $1::interval)`, sweepAt)
				if err != nil {
					return err
				}
				swept, err = pgx.CollectRows(rows, pgx.RowToStructByPos[rescued])
				return err
			})
			requireNoErrors(t, errs, fmt.Sprintf("job %d", id))
			require.Len(t, out, 1)
			require.Equal(t, id, out[0].JobID)
			outcomeA[id] = out[0].Outcome
			for _, r := range swept {
				require.Equal(t, id, r.JobID, "the sweep of round %d took another job than %d", i, id)
				require.Equal(t, "retry_pending", r.Outcome)
				require.Equal(t, "orphaned", r.Reason)
				sweptBy[r.JobID]++
			}
		}
		require.Empty(t, rescueAt(t, b, 1000, "1 day"), "every job was settled by A or by a sweep")

		var succeeded, lost int
		for _, id := range ids {
			require.LessOrEqual(t, sweptBy[id], 1, "job %d was swept %d times", id, sweptBy[id])
			switch outcomeA[id] {
			case "succeeded":
				succeeded++
				require.Zero(t, sweptBy[id], "job %d: A's complete succeeded but a sweep also took it", id)
				h := b.Finished(t, id)
				require.Equal(t, "succeeded", h.State)
				require.Equal(t, testbundle.Ptr(workerA), h.LockedBy)
				require.Equal(t, testbundle.Ptr(claimed[id].LeaseToken), h.LeaseToken)
				require.Equal(t, 1, h.Attempt)
			case "lease_lost":
				lost++
				require.Equal(t, 1, sweptBy[id], "job %d: A was told lease_lost but no sweep took the job", id)
				j := b.Live(t, id)
				require.Equal(t, "retry_pending", j.State)
				require.Equal(t, testbundle.Ptr("orphaned"), j.Reason)
				require.Nil(t, j.LeaseToken)
				require.Equal(t, 1, j.Attempt)
			default:
				t.Fatalf("job %d: A's complete gave %q", id, outcomeA[id])
			}
		}
		require.Equal(t, succeeded, b.Count(t, `SELECT count(*) FROM jobq.job_history`))
		require.Equal(t, lost, b.Count(t, `SELECT count(*) FROM jobq.jobs`))
		t.Logf("A completed %d jobs, the sweeper took %d", succeeded, lost)
	})
}

// TestFinishOutcomeIsPerLease: complete_jobs and fail_jobs report an outcome per (job, token)
// input. When one call carries the stale lease of a zombie attempt and the current lease of the
// same job (a batching runner that ran both attempts), the stale entry was not running under its
// token, so its outcome must be lease_lost whatever happens to the current one.
func TestFinishOutcomeIsPerLease(t *testing.T) {
	t.Parallel()

	t.Run("Complete", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		tk := takeOver(t, b, 1)
		id := tk.IDs[0]

		out, err := b.Worker.Complete(b.Ctx, []jobq.Lease{testbundle.LeaseOf(tk.A[id]), testbundle.LeaseOf(tk.B[id])})
		require.NoError(t, err)
		require.Equal(t, []jobq.Outcome{{JobID: id, Outcome: "lease_lost"}, {JobID: id, Outcome: "succeeded"}}, out,
			"the stale lease of job %d is reported as completed", id)
		requireEndedUnderB(t, b, tk, id)
	})

	t.Run("Fail", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		tk := takeOver(t, b, 1)
		id := tk.IDs[0]

		out, err := b.Worker.Fail(b.Ctx, []jobq.Failure{
			{Lease: testbundle.LeaseOf(tk.A[id]), Error: "stale"},
			{Lease: testbundle.LeaseOf(tk.B[id]), Error: "current"},
		})
		require.NoError(t, err)
		require.Len(t, out, 2)
		require.Equal(t, "lease_lost", out[0].Outcome, "the stale lease of job %d is reported as failed: %+v", id, out)
		require.Equal(t, "retry_pending", out[1].Outcome)
		require.Equal(t, testbundle.Ptr("current"), b.Live(t, id).LastError)
	})
}
