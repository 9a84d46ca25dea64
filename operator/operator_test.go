package operator_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/engine"
	"github.com/jobqdev/jobq/internal/testbundle"
	"github.com/jobqdev/jobq/operator"
)

// operatorSetup is a bundle with an Operator of jobq_operator.
func operatorSetup(t *testing.T) (*testbundle.Bundle, *operator.Operator) {
	t.Helper()
	b := testbundle.New(t)
	b.Define(t, "task", "report")
	return b, operator.New(b.DB.Pool(t, "jobq_operator", 2))
}

func TestOperatorJobActs(t *testing.T) {
	t.Parallel()

	t.Run("CancelRetryDelete", func(t *testing.T) {
		t.Parallel()
		b, op := operatorSetup(t)
		id := b.Enqueue(t, testbundle.EnqueueArgs{EnqueueOptions: jobq.EnqueueOptions{Delay: time.Hour}})

		state, err := op.CancelJob(b.Ctx, id)
		require.NoError(t, err)
		require.Equal(t, "canceled", state)
		require.Equal(t, "canceled", b.Finished(t, id).State)
		_, err = op.CancelJob(b.Ctx, id)
		require.ErrorIs(t, err, jobq.ErrStateConflict)

		state, err = op.RetryJob(b.Ctx, id)
		require.NoError(t, err)
		require.Equal(t, "queued", state)
		require.Equal(t, "queued", b.Live(t, id).State)

		state, err = op.DeleteJob(b.Ctx, id)
		require.NoError(t, err)
		require.Equal(t, "queued", state)
		_, err = op.DeleteJob(b.Ctx, id)
		require.ErrorIs(t, err, jobq.ErrNotFound)
		_, err = op.RetryJob(b.Ctx, id)
		require.ErrorIs(t, err, jobq.ErrNotFound)
	})

	t.Run("RequeueDead", func(t *testing.T) {
		t.Parallel()
		b, op := operatorSetup(t)
		ids := []int64{
			b.Enqueue(t, testbundle.EnqueueArgs{Task: "task"}),
			b.Enqueue(t, testbundle.EnqueueArgs{Task: "report"}),
		}
		for range ids {
			job := b.ClaimOne(t, testbundle.ClaimArgs{})
			_, err := b.Worker.Fail(b.Ctx, []jobq.Failure{{Lease: job.Lease(), Error: "boom", Fatal: true}})
			require.NoError(t, err)
		}
		n, err := op.RequeueDead(b.Ctx, operator.RequeueDeadOptions{Task: "report"})
		require.NoError(t, err)
		require.Equal(t, int64(1), n)
		require.Equal(t, "queued", b.Live(t, ids[1]).State)
		require.Equal(t, "dead", b.Finished(t, ids[0]).State)

		n, err = op.RequeueDead(b.Ctx, operator.RequeueDeadOptions{FinishedAfter: b.DBNow(t).Add(time.Hour)})
		require.NoError(t, err)
		require.Zero(t, n, "no job died after the filter")
		n, err = op.RequeueDead(b.Ctx, operator.RequeueDeadOptions{})
		require.NoError(t, err)
		require.Equal(t, int64(1), n)
		_, err = op.RequeueDead(b.Ctx, operator.RequeueDeadOptions{Max: -1})
		require.ErrorIs(t, err, jobq.ErrInvalidArgument)
	})

	t.Run("ListAndGetJobs", func(t *testing.T) {
		t.Parallel()
		b, op := operatorSetup(t)
		b.DefineStore(t, "mail")
		first := b.Enqueue(t, testbundle.EnqueueArgs{Payload: map[string]int{"n": 1}})
		mail := b.Enqueue(t, testbundle.EnqueueArgs{Task: "mail", EnqueueOptions: jobq.EnqueueOptions{
			Queue: "mail", JobKey: "mail:1", StoreID: testbundle.StoreID}})
		done := b.Enqueue(t, testbundle.EnqueueArgs{Task: "report"})
		b.MakeDue(t, done)
		// The oldest due job of "default" is first; claim both and finish the report.
		for _, job := range b.Claim(t, testbundle.ClaimArgs{Max: 2}) {
			if job.ID == done {
				_, err := b.Worker.Complete(b.Ctx, []jobq.Lease{job.Lease()})
				require.NoError(t, err)
			}
		}

		all, err := op.Jobs(b.Ctx, operator.JobFilter{})
		require.NoError(t, err)
		require.Equal(t, []int64{done, mail, first}, jobIDs(all), "newest first, live and finished")

		for _, c := range []struct {
			name string
			f    operator.JobFilter
			want []int64
		}{
			{"Queue", operator.JobFilter{Queue: "mail"}, []int64{mail}},
			{"Task", operator.JobFilter{Task: "report"}, []int64{done}},
			{"State", operator.JobFilter{State: "succeeded"}, []int64{done}},
			{"Store", operator.JobFilter{StoreID: testbundle.StoreID}, []int64{mail}},
			{"Key", operator.JobFilter{Key: "mail:1"}, []int64{mail}},
			{"SinceFuture", operator.JobFilter{Since: b.DBNow(t).Add(time.Hour)}, nil},
			{"Limit", operator.JobFilter{Limit: 1}, []int64{done}},
		} {
			got, err := op.Jobs(b.Ctx, c.f)
			require.NoError(t, err, c.name)
			require.Equal(t, c.want, jobIDs(got), c.name)
		}

		job, err := op.Job(b.Ctx, done)
		require.NoError(t, err)
		require.Equal(t, "succeeded", job.State)
		require.NotNil(t, job.FinishedAt)
		live, err := op.Job(b.Ctx, mail)
		require.NoError(t, err)
		require.Nil(t, live.FinishedAt)
		require.Equal(t, testbundle.Ptr(testbundle.StoreID), live.StoreID)
		require.Equal(t, testbundle.Ptr("mail:1"), live.Key)
		_, err = op.Job(b.Ctx, done+100)
		require.ErrorIs(t, err, jobq.ErrNotFound)
		require.Empty(t, job.Attempts, "a job that never failed has no attempts")
		require.NotNil(t, job.Attempts, "an empty list, not nil")
		for _, j := range all {
			require.Nil(t, j.Attempts, "ListJobs does not read attempts")
		}
	})

	t.Run("GetJobAttempts", func(t *testing.T) {
		t.Parallel()
		b, op := operatorSetup(t)
		id := b.Enqueue(t, testbundle.EnqueueArgs{EnqueueOptions: jobq.EnqueueOptions{MaxAttempts: 2}})
		for i, worker := range []string{"w-1", "w-2"} {
			b.MakeDue(t, id)
			job := b.ClaimOne(t, testbundle.ClaimArgs{Worker: worker})
			_, err := b.Worker.Fail(b.Ctx, []jobq.Failure{{Lease: job.Lease(), Error: fmt.Sprintf("failure %d", i+1), ErrorCode: fmt.Sprintf("E%d", i+1)}})
			require.NoError(t, err)
		}
		job, err := op.Job(b.Ctx, id)
		require.NoError(t, err)
		require.Equal(t, "dead", job.State)
		require.Len(t, job.Attempts, 2)
		for i, a := range job.Attempts {
			require.Equal(t, int32(i+1), a.Attempt, "oldest first")
			require.Equal(t, testbundle.Ptr(fmt.Sprintf("w-%d", i+1)), a.Worker)
			require.Equal(t, testbundle.Ptr(fmt.Sprintf("failure %d", i+1)), a.Error)
			require.Equal(t, testbundle.Ptr(fmt.Sprintf("E%d", i+1)), a.ErrorCode)
			require.NotNil(t, a.StartedAt)
			require.False(t, a.EndedAt.Before(*a.StartedAt))
		}
		require.Equal(t, []string{"error", "exhausted"}, []string{job.Attempts[0].Reason, job.Attempts[1].Reason})
	})
}

func jobIDs(jobs []operator.Job) []int64 {
	var ids []int64
	for _, j := range jobs {
		ids = append(ids, j.ID)
	}
	return ids
}

func TestOperatorQueueScheduleLeaderActs(t *testing.T) {
	t.Parallel()

	t.Run("PauseAndResumeQueue", func(t *testing.T) {
		t.Parallel()
		b, op := operatorSetup(t)
		id := b.Enqueue(t, testbundle.EnqueueArgs{})

		changed, err := op.PauseQueue(b.Ctx, "default")
		require.NoError(t, err)
		require.True(t, changed)
		changed, err = op.PauseQueue(b.Ctx, "default")
		require.NoError(t, err)
		require.False(t, changed, "already paused")
		require.Empty(t, b.Claim(t, testbundle.ClaimArgs{}), "a paused queue's jobs wait")

		states, err := op.Queues(b.Ctx, operator.QueueFilter{})
		require.NoError(t, err)
		require.Len(t, states, 1)
		require.Equal(t, "default", states[0].Queue)
		require.True(t, states[0].Paused)
		require.NotNil(t, states[0].PausedAt)
		require.Equal(t, int64(1), states[0].Queued)
		require.Nil(t, states[0].Limits, "a queue without controls has no limits")

		changed, err = op.ResumeQueue(b.Ctx, "default")
		require.NoError(t, err)
		require.True(t, changed)
		changed, err = op.ResumeQueue(b.Ctx, "default")
		require.NoError(t, err)
		require.False(t, changed)
		require.Equal(t, id, b.ClaimOne(t, testbundle.ClaimArgs{}).ID)

		states, err = op.Queues(b.Ctx, operator.QueueFilter{})
		require.NoError(t, err)
		require.False(t, states[0].Paused)
		require.Equal(t, int64(1), states[0].Running)

		_, err = b.Admin.Exec(b.Ctx, `SELECT jobq.set_concurrency_limit('default', 3), jobq.set_fair_claiming('default', true)`)
		require.NoError(t, err)
		states, err = op.Queues(b.Ctx, operator.QueueFilter{})
		require.NoError(t, err)
		require.Equal(t, map[string]any{"max_running": float64(3), "fair": true}, states[0].Limits,
			"the queue's controls, as jobq.queue_states shows them")

		_, err = op.PauseQueue(b.Ctx, " ")
		require.ErrorIs(t, err, jobq.ErrInvalidArgument)
	})

	t.Run("Schedules", func(t *testing.T) {
		t.Parallel()
		b, op := operatorSetup(t)
		_, err := b.Worker.Schedule(b.Ctx, jobq.ScheduleDefinition{Name: "nightly", Cron: "0 3 * * *", Task: "report"})
		require.NoError(t, err)

		changed, err := op.PauseSchedule(b.Ctx, "nightly")
		require.NoError(t, err)
		require.True(t, changed)
		changed, err = op.PauseSchedule(b.Ctx, "nightly")
		require.NoError(t, err)
		require.False(t, changed)

		id, err := op.RunScheduleNow(b.Ctx, "nightly")
		require.NoError(t, err)
		require.Equal(t, "report", b.Live(t, id).Task, "a paused schedule still runs now on request")

		changed, err = op.ResumeSchedule(b.Ctx, "nightly")
		require.NoError(t, err)
		require.True(t, changed)
		changed, err = op.ResumeSchedule(b.Ctx, "nightly")
		require.NoError(t, err)
		require.False(t, changed)

		_, err = op.PauseSchedule(b.Ctx, "missing")
		require.ErrorIs(t, err, jobq.ErrUnknownSchedule)
		_, err = op.RunScheduleNow(b.Ctx, "missing")
		require.ErrorIs(t, err, jobq.ErrUnknownSchedule)
	})

	t.Run("DemoteLeader", func(t *testing.T) {
		t.Parallel()
		b, op := operatorSetup(t)
		epoch, leads, err := engine.New(b.WorkerPool).AcquireLeadership(b.Ctx, "w1", 0)
		require.NoError(t, err)
		require.True(t, leads)

		next, err := op.DemoteLeader(b.Ctx)
		require.NoError(t, err)
		require.Equal(t, epoch+1, next)
		res, err := engine.New(b.WorkerPool).Maintain(b.Ctx, "w1", epoch)
		require.NoError(t, err)
		require.True(t, res.Fenced, "the old leader's maintain is fenced")
	})

	t.Run("OperatorOnly", func(t *testing.T) {
		t.Parallel()
		b, _ := operatorSetup(t)
		worker := operator.New(b.DB.Pool(t, "worker_runtime", 1))
		_, err := worker.PauseQueue(b.Ctx, "default")
		require.Error(t, err, "worker_runtime may not pause a queue")
		_, err = worker.DemoteLeader(b.Ctx)
		require.Error(t, err)
	})
}

// Stats reads jobq.stats: a queue's waiting, scheduled, succeeded and dead jobs are counted where
// they are, with a lag for the due job and a run time for the finished ones.
func TestOperatorStats(t *testing.T) {
	t.Parallel()
	b, op := operatorSetup(t)
	b.Enqueue(t, testbundle.EnqueueArgs{EnqueueOptions: jobq.EnqueueOptions{Queue: "stats-q"}})
	b.Enqueue(t, testbundle.EnqueueArgs{EnqueueOptions: jobq.EnqueueOptions{Queue: "stats-q", Delay: time.Hour}})
	for _, fatal := range []bool{false, true} {
		b.Enqueue(t, testbundle.EnqueueArgs{EnqueueOptions: jobq.EnqueueOptions{Queue: "stats-done"}})
		job := b.ClaimOne(t, testbundle.ClaimArgs{Queues: []string{"stats-done"}})
		if fatal {
			_, err := b.Worker.Fail(b.Ctx, []jobq.Failure{{Lease: job.Lease(), Error: "boom", Fatal: true}})
			require.NoError(t, err)
		} else {
			_, err := b.Worker.Complete(b.Ctx, []jobq.Lease{job.Lease()})
			require.NoError(t, err)
		}
	}

	// A limit and fair claiming on stats-q: its row carries them, the others none.
	opPool := b.DB.Pool(t, "jobq_operator", 1)
	_, err := opPool.Exec(b.Ctx, `SELECT jobq.set_concurrency_limit('stats-q', 5), jobq.set_fair_claiming('stats-q', true)`)
	require.NoError(t, err)

	all, err := op.Queues(b.Ctx, operator.QueueFilter{})
	require.NoError(t, err)
	by := map[string]operator.Queue{}
	for _, s := range all {
		by[s.Queue] = s
		require.Nil(t, s.StoreID, "an operator's rows aggregate every store")
	}
	require.EqualValues(t, 1, by["stats-q"].Queued)
	require.EqualValues(t, 1, by["stats-q"].Scheduled)
	require.NotNil(t, by["stats-q"].OldestDueAge, "the due job has a lag")
	require.EqualValues(t, 1, by["stats-done"].SucceededLastHour)
	require.EqualValues(t, 1, by["stats-done"].DeadLastHour)
	require.NotNil(t, by["stats-done"].RunP50, "finished jobs give a run time")
	require.Equal(t, map[string]any{"max_running": 5.0, "fair": true}, by["stats-q"].Limits)
	require.Nil(t, by["stats-done"].Limits, "a queue without controls has no limits")

	one, err := op.Queues(b.Ctx, operator.QueueFilter{Queue: "stats-q"})
	require.NoError(t, err)
	require.Len(t, one, 1)
	_, err = op.Queues(b.Ctx, operator.QueueFilter{Queue: " "})
	require.ErrorIs(t, err, jobq.ErrInvalidArgument)
}
