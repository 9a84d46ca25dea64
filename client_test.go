package jobq_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/engine"
	"github.com/jobqdev/jobq/internal/testbundle"
)

func TestClientRoundTrip(t *testing.T) {
	t.Parallel()

	t.Run("EnqueueOptions", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.Define(t, "task")
		b.DefineStore(t, "send-mail")

		id := b.Enqueue(t, testbundle.EnqueueArgs{Task: "send-mail", Payload: map[string]any{"to": "ada@example.com"},
			EnqueueOptions: jobq.EnqueueOptions{
				Queue: "mail", Priority: -3, MaxAttempts: 7, JobKey: "mail:1", Delay: time.Hour, StoreID: testbundle.StoreID,
				Timeout: 90 * time.Second, BackoffBase: 5 * time.Second, BackoffMax: 10 * time.Minute,
			}})
		row := b.Live(t, id)
		require.Equal(t, "send-mail", row.Task)
		require.Equal(t, "mail", row.Queue)
		require.JSONEq(t, `{"to": "ada@example.com"}`, string(row.Payload))
		require.Equal(t, int16(-3), row.Priority)
		require.Equal(t, 7, row.MaxAttempts)
		require.Equal(t, testbundle.Ptr("mail:1"), row.JobKey)
		require.Equal(t, testbundle.Ptr(testbundle.StoreID), row.StoreID)
		require.Equal(t, testbundle.Ptr("00:01:30"), row.Timeout)
		require.Equal(t, "queued", row.State)
		require.Zero(t, row.Attempt)
		// Delay is added to the database's now(), the same now() the row was created at.
		require.Equal(t, time.Hour, row.RunAt.Sub(row.CreatedAt))
		require.True(t, row.RunAt.After(b.DBNow(t)), "a delayed job is due in the future")
		var base, maxDelay string
		require.NoError(t, b.Admin.QueryRow(b.Ctx,
			`SELECT backoff_base::text, backoff_max::text FROM jobq.jobs WHERE id = $1`, id).Scan(&base, &maxDelay))
		require.Equal(t, "00:00:05", base)
		require.Equal(t, "00:10:00", maxDelay)

		// The zero options: queue default, priority 0, the default max attempts, due now, no key or store.
		plain := b.Live(t, b.Enqueue(t, testbundle.EnqueueArgs{}))
		require.Equal(t, "default", plain.Queue)
		require.Zero(t, plain.Priority)
		require.Equal(t, 25, plain.MaxAttempts)
		require.Equal(t, plain.CreatedAt, plain.RunAt)
		require.Nil(t, plain.JobKey)
		require.Nil(t, plain.StoreID)
		require.JSONEq(t, `{}`, string(plain.Payload))

		// An explicit RunAt is kept to the microsecond.
		at := time.Date(2031, 5, 17, 9, 30, 0, 123456000, time.UTC)
		require.True(t, b.Live(t, b.Enqueue(t, testbundle.EnqueueArgs{EnqueueOptions: jobq.EnqueueOptions{RunAt: at}})).RunAt.Equal(at))
	})

	t.Run("UniqueFor", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.Define(t, "once")
		opts := jobq.EnqueueOptions{Queue: "once", JobKey: "once:1", UniqueFor: time.Hour}

		// Keyed system jobs are the runners' (applications may not key them).
		first, err := b.Worker.Enqueue(b.Ctx, "once", testbundle.Payload{N: 1}, opts)
		require.NoError(t, err)
		job := b.ClaimOne(t, testbundle.ClaimArgs{Queues: []string{"once"}})
		_, err = b.Worker.Complete(b.Ctx, []jobq.Lease{job.Lease()})
		require.NoError(t, err)

		// Within the hour the finished job's id comes back, from Enqueue and EnqueueMany alike.
		again, err := b.Worker.Enqueue(b.Ctx, "once", testbundle.Payload{N: 2}, opts)
		require.NoError(t, err)
		require.Equal(t, first, again)
		many, err := b.Worker.EnqueueMany(b.Ctx, []jobq.JobSpec{{Task: "once", EnqueueOptions: opts}, {Task: "once"}})
		require.NoError(t, err)
		require.Equal(t, first, many[0])
		require.NotEqual(t, first, many[1])
		require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE job_key = 'once:1'`), "nothing was enqueued for the key")

		// Without UniqueFor the key takes a new job; UniqueFor without a key is refused.
		plain, err := b.Worker.Enqueue(b.Ctx, "once", nil, jobq.EnqueueOptions{Queue: "once", JobKey: "once:1"})
		require.NoError(t, err)
		require.NotEqual(t, first, plain)
		_, err = b.Worker.Enqueue(b.Ctx, "once", nil, jobq.EnqueueOptions{UniqueFor: time.Hour})
		require.ErrorIs(t, err, jobq.ErrInvalidArgument)
	})

	t.Run("EnqueueManyInInputOrder", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.Define(t, "a", "b", "d", "e")
		b.DefineStore(t, "c")
		at := time.Date(2031, 5, 17, 9, 30, 0, 0, time.UTC)

		specs := []jobq.JobSpec{
			{Task: "a"},
			{Task: "b", EnqueueOptions: jobq.EnqueueOptions{JobKey: "k1"}},
			{Task: "c", Payload: testbundle.Payload{N: 3}, EnqueueOptions: jobq.EnqueueOptions{Queue: "q", Priority: 4, RunAt: at, StoreID: testbundle.StoreID, Timeout: time.Minute}},
			{Task: "d", EnqueueOptions: jobq.EnqueueOptions{JobKey: "k1"}}, // same key: last spec wins
			{Task: "e", EnqueueOptions: jobq.EnqueueOptions{JobKey: "k2", MaxAttempts: 3}},
		}
		// A store's job goes in only in a transaction of that store; outside one the batch is
		// refused, naming the job, and writes nothing.
		// Keyed system jobs are the runners' (applications may not key them): the batch goes in
		// as worker_runtime, which, outside a store's transaction, is refused a store job too.
		_, err := b.Worker.EnqueueMany(b.Ctx, specs)
		require.ErrorIs(t, err, jobq.ErrTenantMismatch)
		require.ErrorContains(t, err, "job 3: store "+testbundle.StoreID)
		require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.jobs`), "a refused batch writes nothing")

		var ids []int64
		require.NoError(t, b.InStore(b.WorkerPool, testbundle.StoreID, func(c *jobq.Client) error {
			ids, err = c.EnqueueMany(b.Ctx, specs)
			return err
		}))
		require.Len(t, ids, 5)
		require.Equal(t, ids[1], ids[3], "one key, one job")
		require.Len(t, map[int64]bool{ids[0]: true, ids[1]: true, ids[2]: true, ids[4]: true}, 4)

		require.Equal(t, "a", b.Live(t, ids[0]).Task)
		require.Equal(t, "d", b.Live(t, ids[1]).Task)
		c := b.Live(t, ids[2])
		require.Equal(t, "c", c.Task)
		require.Equal(t, 3, c.PayloadN(t))
		require.Equal(t, "q", c.Queue)
		require.Equal(t, int16(4), c.Priority)
		require.True(t, c.RunAt.Equal(at))
		require.Equal(t, testbundle.Ptr(testbundle.StoreID), c.StoreID)
		require.Equal(t, testbundle.Ptr("00:01:00"), c.Timeout)
		e := b.Live(t, ids[4])
		require.Equal(t, "e", e.Task)
		require.Equal(t, 3, e.MaxAttempts)
		require.Equal(t, 4, b.Count(t, `SELECT count(*) FROM jobq.jobs`))
	})

	t.Run("JobKeyIsPerStore", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.Define(t, "task")
		b.DefineStore(t, "store-task")
		const otherStore = "9a8b7c6d-0000-4000-8000-000000000001"
		keyed := func(store string, n int) int64 {
			task := "task" // a system task; a store's job needs a store-scoped one
			if store != "" {
				task = "store-task"
			}
			return b.Enqueue(t, testbundle.EnqueueArgs{Task: task, Payload: testbundle.Payload{N: n}, EnqueueOptions: jobq.EnqueueOptions{JobKey: "expire-holds", StoreID: store}})
		}
		system, first, second := keyed("", 1), keyed(testbundle.StoreID, 2), keyed(otherStore, 3)
		require.Len(t, map[int64]bool{system: true, first: true, second: true}, 3, "stores share a key space")
		require.Equal(t, first, keyed(testbundle.StoreID, 4), "the same store and key is one job")
		require.Equal(t, system, keyed("", 5), "system jobs share one key space")
		require.Equal(t, 3, b.Count(t, `SELECT count(*) FROM jobq.jobs`))
		require.Equal(t, 4, b.Live(t, first).PayloadN(t))
		require.Equal(t, 5, b.Live(t, system).PayloadN(t))
		require.Equal(t, 3, b.Live(t, second).PayloadN(t))
	})

	t.Run("ClaimReturnsTheJob", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.DefineStore(t, "resize")
		id := b.Enqueue(t, testbundle.EnqueueArgs{Task: "resize", Payload: map[string]int{"w": 640},
			EnqueueOptions: jobq.EnqueueOptions{Priority: 2, MaxAttempts: 4, JobKey: "img:9", StoreID: testbundle.StoreID, Timeout: time.Minute}})

		job := b.ClaimOne(t, testbundle.ClaimArgs{Worker: "w1", Lease: 45 * time.Second})
		row := b.Live(t, id)
		require.Equal(t, id, job.ID)
		require.Equal(t, "resize", job.Task)
		require.Equal(t, "default", job.Queue)
		require.JSONEq(t, `{"w": 640}`, string(job.Payload))
		require.Equal(t, testbundle.Ptr(testbundle.StoreID), job.StoreID)
		require.Equal(t, int16(2), job.Priority)
		require.Equal(t, 1, job.Attempt)
		require.Equal(t, 4, job.MaxAttempts)
		require.Equal(t, testbundle.Ptr("img:9"), job.JobKey)
		require.Equal(t, testbundle.Ptr(job.LeaseToken), row.LeaseToken)
		require.Equal(t, testbundle.Ptr("w1"), row.LockedBy)
		require.Equal(t, "running", row.State)
		require.NotNil(t, row.LeaseExpiresAt)
		require.True(t, job.LeaseExpiresAt.Equal(*row.LeaseExpiresAt))
		require.Equal(t, 45*time.Second, job.LeaseExpiresAt.Sub(row.UpdatedAt), "lease = claim time + lease")
		require.NotNil(t, job.DeadlineAt)
		require.Equal(t, time.Minute, job.DeadlineAt.Sub(row.UpdatedAt), "deadline = claim time + timeout")
		require.True(t, job.CreatedAt.Equal(row.CreatedAt))
		require.Nil(t, job.LastError)
	})

	t.Run("ClaimQueueOrderAndPriority", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.Define(t, "task")
		in := func(queue string, priority int16, delay time.Duration) int64 {
			return b.Enqueue(t, testbundle.EnqueueArgs{EnqueueOptions: jobq.EnqueueOptions{Queue: queue, Priority: priority, Delay: delay}})
		}
		bulk := in("bulk", -10, 0)
		u5 := in("urgent", 5, 0)
		u1a := in("urgent", 1, 0)
		u1b := in("urgent", 1, 0)
		later := in("urgent", -100, time.Hour) // not due
		other := in("other", -100, 0)          // not asked for
		queues := []string{"urgent", "bulk"}

		ids := func(jobs []jobq.Job) []int64 {
			out := make([]int64, len(jobs))
			for i, j := range jobs {
				out[i] = j.ID
			}
			return out
		}
		// The first queue listed is served first, each queue by priority, then run_at, then id.
		require.Equal(t, []int64{u1a}, ids(b.Claim(t, testbundle.ClaimArgs{Queues: queues, Max: 1})))
		require.Equal(t, []int64{u1b}, ids(b.Claim(t, testbundle.ClaimArgs{Queues: queues, Max: 1})))
		require.ElementsMatch(t, []int64{u5, bulk}, ids(b.Claim(t, testbundle.ClaimArgs{Queues: queues, Max: 3})),
			"a later queue is served when the earlier one runs dry")
		require.Empty(t, b.Claim(t, testbundle.ClaimArgs{Queues: queues, Max: 10}))

		require.Equal(t, "queued", b.Live(t, later).State)
		require.Equal(t, "queued", b.Live(t, other).State)
		require.Equal(t, []int64{other}, ids(b.Claim(t, testbundle.ClaimArgs{Queues: []string{"other"}, Max: 5})))
	})

	t.Run("FailRetriesThenDies", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.Define(t, "flaky")
		id := b.Enqueue(t, testbundle.EnqueueArgs{Task: "flaky", EnqueueOptions: jobq.EnqueueOptions{MaxAttempts: 2}})

		first := b.ClaimOne(t, testbundle.ClaimArgs{})
		out, err := b.Worker.Fail(b.Ctx, []jobq.Failure{{Lease: first.Lease(), Error: "smtp 421", ErrorCode: "SMTP_421"}})
		require.NoError(t, err)
		require.Len(t, out, 1)
		require.Equal(t, id, out[0].JobID)
		require.Equal(t, "retry_pending", out[0].Outcome)
		require.NotNil(t, out[0].RunAt)
		require.True(t, out[0].RunAt.After(b.DBNow(t)), "the retry is due in the future")

		row := b.Live(t, id)
		require.Equal(t, "retry_pending", row.State)
		require.True(t, row.RunAt.Equal(*out[0].RunAt))
		require.Equal(t, testbundle.Ptr("error"), row.Reason)
		require.Equal(t, testbundle.Ptr("smtp 421"), row.LastError)
		require.Equal(t, testbundle.Ptr("SMTP_421"), row.ErrorCode)
		require.Nil(t, row.LeaseToken)
		// Backoff after attempt 1 with the default base of 2 s: between 1 s and 2 s (equal jitter).
		delay := row.RunAt.Sub(row.UpdatedAt)
		require.GreaterOrEqual(t, delay, time.Second)
		require.LessOrEqual(t, delay, 2*time.Second)

		require.Empty(t, b.Claim(t, testbundle.ClaimArgs{}), "a job waiting for its retry is not due")
		b.MakeDue(t, id)
		second := b.ClaimOne(t, testbundle.ClaimArgs{})
		require.Equal(t, 2, second.Attempt)
		require.Equal(t, testbundle.Ptr("smtp 421"), second.LastError)

		out, err = b.Worker.Fail(b.Ctx, []jobq.Failure{{Lease: second.Lease(), Error: "smtp 550"}})
		require.NoError(t, err)
		require.Equal(t, []jobq.Outcome{{JobID: id, Outcome: "dead"}}, out)
		h := b.Finished(t, id)
		require.Equal(t, "dead", h.State)
		require.Equal(t, testbundle.Ptr("exhausted"), h.Reason)
		require.Equal(t, 2, h.Attempt)
		require.Equal(t, testbundle.Ptr("smtp 550"), h.LastError)

		again, err := b.Worker.Fail(b.Ctx, []jobq.Failure{{Lease: second.Lease(), Error: "late"}})
		require.NoError(t, err)
		require.Equal(t, []jobq.Outcome{{JobID: id, Outcome: "lease_lost"}}, again)
	})

	t.Run("FailNotRetryableAndRetryIn", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.Define(t, "fatal", "later")
		fatal := b.Enqueue(t, testbundle.EnqueueArgs{Task: "fatal", EnqueueOptions: jobq.EnqueueOptions{MaxAttempts: 5}})
		later := b.Enqueue(t, testbundle.EnqueueArgs{Task: "later", EnqueueOptions: jobq.EnqueueOptions{MaxAttempts: 5}})
		jobs := b.Claim(t, testbundle.ClaimArgs{Max: 2})
		require.Len(t, jobs, 2)
		require.Equal(t, fatal, jobs[0].ID)

		out, err := b.Worker.Fail(b.Ctx, []jobq.Failure{
			{Lease: jobs[0].Lease(), Error: "bad input", Fatal: true},
			{Lease: jobs[1].Lease(), Error: "rate limited", RetryIn: 10 * time.Minute},
		})
		require.NoError(t, err)
		require.Len(t, out, 2)
		require.Equal(t, jobq.Outcome{JobID: fatal, Outcome: "dead"}, out[0])
		require.Equal(t, later, out[1].JobID)
		require.Equal(t, "retry_pending", out[1].Outcome)

		h := b.Finished(t, fatal)
		require.Equal(t, "dead", h.State)
		require.Equal(t, testbundle.Ptr("not_retryable"), h.Reason)
		require.Equal(t, 1, h.Attempt)
		row := b.Live(t, later)
		require.Equal(t, 10*time.Minute, row.RunAt.Sub(row.UpdatedAt), "retry_in replaces the backoff")
	})

	t.Run("HeartbeatRenewsHeldLeasesOnly", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.Define(t, "task")
		b.EnqueueMany(t, testbundle.ManyArgs{Count: 3})
		jobs := b.Claim(t, testbundle.ClaimArgs{Worker: "hb", Max: 3})
		require.Len(t, jobs, 3)
		done, held, forged := jobs[0], jobs[1], jobs[2]
		out, err := b.Worker.Complete(b.Ctx, []jobq.Lease{done.Lease()})
		require.NoError(t, err)
		require.Equal(t, "succeeded", out[0].Outcome)

		renewed, err := b.Worker.Heartbeat(b.Ctx, "hb", []jobq.Lease{
			done.Lease(), held.Lease(), {JobID: forged.ID, Token: done.LeaseToken},
		}, time.Hour)
		require.NoError(t, err)
		require.Len(t, renewed, 1, "only the held lease is renewed: %v", renewed)
		require.Contains(t, renewed, held.ID)
		row := b.Live(t, held.ID)
		require.True(t, renewed[held.ID].Equal(*row.LeaseExpiresAt))
		require.Equal(t, time.Hour, row.LeaseExpiresAt.Sub(row.UpdatedAt))
		require.True(t, renewed[held.ID].After(held.LeaseExpiresAt))
		require.True(t, b.Live(t, forged.ID).LeaseExpiresAt.Equal(forged.LeaseExpiresAt), "a forged token renewed a lease")

		// Another worker cannot renew the lease, even with the right token.
		stolen, err := b.Worker.Heartbeat(b.Ctx, "someone-else", []jobq.Lease{held.Lease(), forged.Lease()}, 2*time.Hour)
		require.NoError(t, err)
		require.Empty(t, stolen)
		require.True(t, b.Live(t, held.ID).LeaseExpiresAt.Equal(renewed[held.ID]))
	})

	t.Run("SnoozeKeepsTheAttempt", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.Define(t, "poll")
		id := b.Enqueue(t, testbundle.EnqueueArgs{Task: "poll"})
		job := b.ClaimOne(t, testbundle.ClaimArgs{})

		runAt, err := b.Worker.Snooze(b.Ctx, job.Lease(), 5*time.Minute)
		require.NoError(t, err)
		row := b.Live(t, id)
		require.Equal(t, "queued", row.State)
		require.Zero(t, row.Attempt, "a snooze does not use an attempt")
		require.Nil(t, row.LeaseToken)
		require.True(t, row.RunAt.Equal(runAt))
		require.Equal(t, 5*time.Minute, runAt.Sub(row.UpdatedAt))

		out, err := b.Worker.Complete(b.Ctx, []jobq.Lease{job.Lease()})
		require.NoError(t, err)
		require.Equal(t, []jobq.Outcome{{JobID: id, Outcome: "lease_lost"}}, out, "the snoozed lease still completes")

		require.Empty(t, b.Claim(t, testbundle.ClaimArgs{}))
		b.MakeDue(t, id)
		require.Equal(t, 1, b.ClaimOne(t, testbundle.ClaimArgs{}).Attempt)
	})

	// Real short leases and timeouts, swept by RescueExpired on the real clock: poll until the
	// sweeper has taken them, within a deadline.
	t.Run("RescueExpired", func(t *testing.T) {
		t.Parallel()
		b := testbundle.New(t)
		b.Define(t, "orphan", "slow", "last", "alive")
		short := 200 * time.Millisecond
		orphan := b.Enqueue(t, testbundle.EnqueueArgs{Task: "orphan"})
		slow := b.Enqueue(t, testbundle.EnqueueArgs{Task: "slow", EnqueueOptions: jobq.EnqueueOptions{Timeout: short, BackoffBase: time.Hour}})
		last := b.Enqueue(t, testbundle.EnqueueArgs{Task: "last", EnqueueOptions: jobq.EnqueueOptions{MaxAttempts: 1}})
		alive := b.Enqueue(t, testbundle.EnqueueArgs{Task: "alive"})

		claimed := map[int64]jobq.Job{}
		for _, c := range []struct {
			id    int64
			lease time.Duration
		}{{orphan, short}, {slow, time.Hour}, {last, short}, {alive, time.Hour}} {
			j := b.ClaimOne(t, testbundle.ClaimArgs{Worker: "vanishing", Lease: c.lease})
			require.Equal(t, c.id, j.ID)
			claimed[j.ID] = j
		}

		swept := map[int64]engine.Rescue{}
		deadline := time.Now().Add(time.Minute) // a ceiling for a loaded machine, not a measure
		tick := time.NewTicker(25 * time.Millisecond)
		defer tick.Stop()
		for len(swept) < 3 {
			got, err := engine.New(b.WorkerPool).RescueExpired(b.Ctx, 100)
			require.NoError(t, err)
			for _, r := range got {
				_, dup := swept[r.JobID]
				require.False(t, dup, "job %d swept twice", r.JobID)
				swept[r.JobID] = r
			}
			require.NotContains(t, swept, alive, "a job with a live lease was swept")
			require.True(t, time.Now().Before(deadline), "not swept within a minute: %v", swept)
			<-tick.C
		}

		for id, want := range map[int64][2]string{
			orphan: {"retry_pending", "orphaned"},
			slow:   {"retry_pending", "timed_out"},
			last:   {"dead", "orphaned"},
		} {
			got := swept[id]
			require.Equal(t, want, [2]string{got.Outcome, got.Reason}, "job %d", id)
			require.Equal(t, claimed[id].Task, got.Task, "job %d: the sweep names the task", id)
			require.Equal(t, claimed[id].Queue, got.Queue, "job %d: the sweep names the queue", id)
			require.Equal(t, claimed[id].Attempt, got.Attempt, "job %d: the sweep names the attempt", id)
			require.NotEmpty(t, got.LockedBy, "job %d: the sweep names the worker that lost it", id)
		}

		// Each was swept only once its lease or deadline had passed by the database's clock.
		o := b.Live(t, orphan)
		require.GreaterOrEqual(t, o.UpdatedAt, claimed[orphan].LeaseExpiresAt)
		require.Equal(t, "retry_pending", o.State)
		require.Nil(t, o.LeaseToken)
		require.True(t, o.RunAt.Equal(o.UpdatedAt), "an orphaned job is due at once")
		s := b.Live(t, slow)
		require.GreaterOrEqual(t, s.UpdatedAt, *claimed[slow].DeadlineAt)
		require.Greater(t, s.RunAt.Sub(s.UpdatedAt), 29*time.Minute, "a timed-out job waits for its backoff")
		h := b.Finished(t, last)
		require.GreaterOrEqual(t, h.UpdatedAt, claimed[last].LeaseExpiresAt)
		require.Equal(t, "dead", h.State)
		require.Equal(t, testbundle.Ptr("orphaned"), h.Reason)
		require.Equal(t, "running", b.Live(t, alive).State)

		// The vanished worker's late writes are refused; the orphan runs again at once.
		out, err := b.Worker.Complete(b.Ctx, []jobq.Lease{testbundle.LeaseOf(claimed[orphan]), testbundle.LeaseOf(claimed[slow]), testbundle.LeaseOf(claimed[last])})
		require.NoError(t, err)
		for _, o := range out {
			require.Equal(t, "lease_lost", o.Outcome, "job %d", o.JobID)
		}
		again := b.ClaimOne(t, testbundle.ClaimArgs{Worker: "next"})
		require.Equal(t, orphan, again.ID)
		require.Equal(t, 2, again.Attempt)
		require.Contains(t, *again.LastError, "orphaned")
	})
}
