package runner

import (
	"context"
	"errors"
	"fmt"
	"github.com/jobqdev/jobq/internal/engine"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq"
)

// runningJobKey carries a handler's *runningJob in its context, for CompleteTx.
type runningJobKey struct{}

// CompleteTx completes job inside tx, the handler's own transaction (one of WithTenant, or any
// transaction on a connection that may call jobq.complete_jobs, as worker_runtime may), so that
// the handler's business writes and the job's completion commit or roll back together: a crash
// or an error before the commit leaves neither, and the job runs again; after the commit both
// hold, and the job never runs again. The completion is fenced by the job's lease token: when
// the job no longer runs under it (rescued, cancelled), CompleteTx returns an error wrapping
// jobq.ErrLeaseLost and the handler should let tx roll back. The result set with SetResult
// before the call is written with the completion; one above the setting max_result_bytes makes
// CompleteTx return an error wrapping jobq.ErrResultTooLarge (nothing is written).
//
// ctx must be the handler's context (or derived from it) and job the handler's job. When the
// handler then returns nil the runner writes nothing more for the job: it counts and logs it as
// succeeded (jobq_jobs_completed_total). If tx did not commit after all, return an error (the
// runner then records a failed attempt, as for any error); a handler that returns nil although
// tx rolled back leaves its job running until its lease expires, when it is rescued and runs
// again. Call CompleteTx as the transaction's last statement before the commit: it locks the
// job's row until the commit, and the runner's lease heartbeats wait for that lock.
//
// Other languages do the same with `SELECT * FROM jobq.complete_jobs(ARRAY[job_id],
// ARRAY[lease_token], results => ARRAY[result])` (outcome succeeded, result_too_large or
// lease_lost) or `SELECT jobq.complete_job(job_id, lease_token, result)` (raises
// JOB.LEASE_LOST or JOB.RESULT_TOO_LARGE) inside their own transaction.
func CompleteTx(ctx context.Context, tx pgx.Tx, job *jobq.Job) error {
	rj, _ := ctx.Value(runningJobKey{}).(*runningJob)
	if rj == nil || job == nil || rj.job.ID != job.ID || rj.job.LeaseToken != job.LeaseToken {
		return errors.New("runner: CompleteTx needs the handler's context and the handler's job")
	}
	outs, err := engine.New(tx).CompleteAttempts(ctx, []engine.Completion{{Lease: job.Lease(), Result: rj.result.get()}})
	if err != nil {
		return err
	}
	if len(outs) == 1 && outs[0].Outcome == "result_too_large" {
		return fmt.Errorf("runner: complete job %d in the handler's transaction: %w", job.ID, jobq.ErrResultTooLarge)
	}
	if len(outs) != 1 || outs[0].Outcome != "succeeded" {
		return fmt.Errorf("runner: complete job %d in the handler's transaction: %w", job.ID, jobq.ErrLeaseLost)
	}
	rj.completedInTx.Store(true)
	return nil
}
