package runner

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
)

// finishRecorder is a finishObserver that remembers what it was told.
type finishRecorder struct {
	mu       sync.Mutex
	outcomes map[int64]string
	runAt    map[int64]*time.Time
	writes   atomic.Int32
}

func newFinishRecorder() *finishRecorder {
	return &finishRecorder{outcomes: map[int64]string{}, runAt: map[int64]*time.Time{}}
}

func (f *finishRecorder) finished(_ context.Context, it finishItem, outcome string, runAt *time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.outcomes[it.rj.job.ID] = outcome
	f.runAt[it.rj.job.ID] = runAt
}

func (f *finishRecorder) written() { f.writes.Add(1) }

func (f *finishRecorder) outcome(id int64) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.outcomes[id]
}

func (f *finishRecorder) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.outcomes)
}

// countingWriter passes every call on to the engine and counts them.
type countingWriter struct {
	resultWriter
	completes, fails, snoozes atomic.Int32
}

func (c *countingWriter) Complete(ctx context.Context, leases []jobq.Lease) ([]jobq.Outcome, error) {
	c.completes.Add(1)
	return c.resultWriter.Complete(ctx, leases)
}

func (c *countingWriter) Fail(ctx context.Context, failures []jobq.Failure) ([]jobq.Outcome, error) {
	c.fails.Add(1)
	return c.resultWriter.Fail(ctx, failures)
}

func (c *countingWriter) SnoozeMany(ctx context.Context, leases []jobq.Lease, delay time.Duration) ([]jobq.Outcome, error) {
	c.snoozes.Add(1)
	return c.resultWriter.SnoozeMany(ctx, leases, delay)
}

// leaseCountingWriter passes every call on to the engine and counts, per job, the completions and
// failures it was asked to write, and the calls.
type leaseCountingWriter struct {
	resultWriter
	mu      sync.Mutex
	written map[int64]int
	calls   int
}

func (c *leaseCountingWriter) Complete(ctx context.Context, leases []jobq.Lease) ([]jobq.Outcome, error) {
	c.mu.Lock()
	for _, l := range leases {
		c.written[l.JobID]++
	}
	c.calls++
	c.mu.Unlock()
	return c.resultWriter.Complete(ctx, leases)
}

func (c *leaseCountingWriter) Fail(ctx context.Context, failures []jobq.Failure) ([]jobq.Outcome, error) {
	c.mu.Lock()
	for _, fl := range failures {
		c.written[fl.Lease.JobID]++
	}
	c.calls++
	c.mu.Unlock()
	return c.resultWriter.Fail(ctx, failures)
}

// runFinisher starts f.run and returns a channel closed when it returns.
func runFinisher(f *finisher) <-chan struct{} {
	done := make(chan struct{})
	go func() { defer close(done); f.run() }()
	return done
}

func item(job jobq.Job, kind finishKind) finishItem {
	return finishItem{rj: &runningJob{job: &job}, kind: kind}
}

const completeJobs = `jobq.complete_jobs(bigint[], uuid[], text[], text[], integer[], jsonb[])`

func TestFinisher(t *testing.T) {
	t.Parallel()

	// Results of every kind submitted together are written in one call per kind (one per delay
	// for snoozes), and the observer hears the engine's outcome of each.
	t.Run("WritesABatchInOneCallPerKind", func(t *testing.T) {
		t.Parallel()
		b := setupUnit(t)
		jobs := b.claimJobs(t, "unit-w", "finish-batch", 6)
		lost := jobs[4]
		lost.LeaseToken = "00000000-0000-0000-0000-000000000000" // not this job's lease
		rec := newFinishRecorder()
		w := &countingWriter{resultWriter: b.client}
		f := newFinisher(w, rec, b.log, backoff{initial: time.Millisecond, max: 10 * time.Millisecond})

		fatal := item(jobs[1], finishFail)
		fatal.failure = jobq.Failure{Lease: jobs[1].Lease(), Error: "boom", Fatal: true}
		retry := item(jobs[2], finishFail)
		retry.failure = jobq.Failure{Lease: jobs[2].Lease(), Error: "again", RetryIn: time.Hour}
		snooze := item(jobs[3], finishSnooze)
		snooze.delay = time.Hour
		lostSnooze := item(lost, finishSnooze)
		lostSnooze.delay = time.Hour
		handBack := item(jobs[5], finishSnooze)
		handBack.handBack = "test"
		for _, it := range []finishItem{item(jobs[0], finishComplete), fatal, retry, snooze, lostSnooze, handBack} {
			f.submit(it)
		}
		done := runFinisher(f)
		f.close(10 * time.Second)
		<-done

		require.Equal(t, "succeeded", rec.outcome(jobs[0].ID))
		require.Equal(t, "dead", rec.outcome(jobs[1].ID))
		require.Equal(t, "retry_pending", rec.outcome(jobs[2].ID))
		require.Equal(t, "snoozed", rec.outcome(jobs[3].ID))
		require.Equal(t, "lease_lost", rec.outcome(jobs[4].ID))
		require.Equal(t, "snoozed", rec.outcome(jobs[5].ID))
		require.Equal(t, int32(1), w.completes.Load())
		require.Equal(t, int32(1), w.fails.Load(), "both failures in one fail_jobs call")
		require.Equal(t, int32(2), w.snoozes.Load(), "one snooze_jobs call per delay")
		require.Equal(t, int32(1), rec.writes.Load())

		require.Equal(t, "succeeded", b.state(t, jobs[0].ID))
		require.Equal(t, "dead", b.state(t, jobs[1].ID))
		require.Equal(t, "retry_pending", b.state(t, jobs[2].ID))
		require.Equal(t, "running", b.state(t, jobs[4].ID), "a write under a wrong lease changes nothing")
	})

	// While the engine refuses the write, the finisher retries with its backoff, tells the
	// observer nothing and logs the failure; once the engine accepts, the result is written.
	t.Run("RetriesWhileTheEngineRefuses", func(t *testing.T) {
		t.Parallel()
		b := setupUnit(t)
		jobs := b.claimJobs(t, "unit-w", "finish-retry", 1)
		b.exec(t, `REVOKE EXECUTE ON FUNCTION `+completeJobs+` FROM worker_runtime`)
		rec := newFinishRecorder()
		f := newFinisher(b.client, rec, b.log, backoff{initial: time.Millisecond, max: 20 * time.Millisecond})
		done := runFinisher(f)
		f.submit(item(jobs[0], finishComplete))

		eventually(t, waitCeiling, "the refused write logged", func() bool {
			for _, l := range b.logs.lines("writing job results failed; retrying") {
				if strings.Contains(l["error"].(string), "permission denied") {
					return true
				}
			}
			return false
		})
		require.Zero(t, rec.count())
		require.Zero(t, rec.writes.Load())

		b.exec(t, `GRANT EXECUTE ON FUNCTION `+completeJobs+` TO worker_runtime`)
		eventually(t, waitCeiling, "the result written", func() bool { return rec.outcome(jobs[0].ID) == "succeeded" })
		require.NotEmpty(t, b.logs.lines("writing job results failed; retrying: recovered"))
		require.Equal(t, "succeeded", b.state(t, jobs[0].ID))
		f.close(time.Second)
		<-done
	})

	// A write waiting to retry after a failure is retried at once when another call finds the
	// database answering (databaseAnswers), however long its back-off: here an hour.
	t.Run("RetriesAtOnceWhenTheDatabaseAnswers", func(t *testing.T) {
		t.Parallel()
		b := setupUnit(t)
		jobs := b.claimJobs(t, "unit-w", "finish-answers", 1)
		b.exec(t, `REVOKE EXECUTE ON FUNCTION `+completeJobs+` FROM worker_runtime`)
		rec := newFinishRecorder()
		f := newFinisher(b.client, rec, b.log, backoff{initial: time.Hour, max: time.Hour})
		done := runFinisher(f)
		f.submit(item(jobs[0], finishComplete))
		eventually(t, waitCeiling, "the refused write logged", func() bool {
			return len(b.logs.lines("writing job results failed; retrying")) > 0
		})
		b.exec(t, `GRANT EXECUTE ON FUNCTION `+completeJobs+` TO worker_runtime`)
		f.databaseAnswers()
		eventually(t, waitCeiling, "the result written", func() bool { return rec.outcome(jobs[0].ID) == "succeeded" })
		require.Equal(t, "succeeded", b.state(t, jobs[0].ID))
		f.close(time.Second)
		<-done
	})

	// A job its handler completed in its own transaction (CompleteTx) is reported succeeded
	// without a write.
	t.Run("WritesNothingForAJobCompletedInTheHandlersTransaction", func(t *testing.T) {
		t.Parallel()
		b := setupUnit(t)
		jobs := b.claimJobs(t, "unit-w", "finish-committed", 1)
		rec := newFinishRecorder()
		w := &countingWriter{resultWriter: b.client}
		f := newFinisher(w, rec, b.log, backoff{initial: time.Millisecond, max: 10 * time.Millisecond})
		f.submit(item(jobs[0], finishCommitted))
		done := runFinisher(f)
		f.close(10 * time.Second)
		<-done
		require.Equal(t, "succeeded", rec.outcome(jobs[0].ID))
		require.Zero(t, w.completes.Load()+w.fails.Load()+w.snoozes.Load(), "no write")
		require.Equal(t, "running", b.state(t, jobs[0].ID), "the finisher wrote nothing for it")
	})

	// Results that arrive from many goroutines while writes are in flight, more at once than one
	// call takes, completions and failures mixed, are each written exactly once, and the array a
	// written batch leaves for the next one keeps no finished job.
	t.Run("WritesEveryResultOnceWhileResultsArriveDuringWrites", func(t *testing.T) {
		t.Parallel()
		const n, submitters = 2500, 8
		b := setupUnit(t)
		ctx := context.Background()
		require.NoError(t, jobq.NewClient(b.admin).DefineTask(ctx, jobq.TaskDefinition{Name: "finish-many"}))
		specs := make([]jobq.JobSpec, n)
		for i := range specs {
			specs[i] = jobq.JobSpec{Task: "finish-many"}
		}
		_, err := b.client.EnqueueMany(ctx, specs)
		require.NoError(t, err)
		jobs, err := b.client.Claim(ctx, "unit-w", []string{"default"}, n, time.Minute)
		require.NoError(t, err)
		require.Len(t, jobs, n, "one claim returns every job it took")
		seen := map[int64]bool{}
		for _, j := range jobs {
			require.False(t, seen[j.ID], "a claim returns each job once")
			seen[j.ID] = true
			require.JSONEq(t, `{}`, string(j.Payload))
		}

		w := &leaseCountingWriter{resultWriter: b.client, written: map[int64]int{}}
		rec := newFinishRecorder()
		f := newFinisher(w, rec, b.log, backoff{initial: time.Millisecond, max: 10 * time.Millisecond})
		items := make([]finishItem, n)
		for i, j := range jobs {
			items[i] = item(j, finishComplete)
			if i%10 == 0 {
				items[i] = item(j, finishFail)
				items[i].failure = jobq.Failure{Lease: j.Lease(), Error: "again", RetryIn: time.Hour}
			}
		}
		// A first share before the finisher runs: more than one call takes (maxFinishBatch).
		first := maxFinishBatch + 200
		for _, it := range items[:first] {
			f.submit(it)
		}
		done := runFinisher(f)
		var wg sync.WaitGroup
		for g := range submitters {
			wg.Go(func() {
				for i := first + g; i < n; i += submitters {
					f.submit(items[i])
					if i%50 == 0 {
						time.Sleep(time.Millisecond) // let writes start while results still arrive
					}
				}
			})
		}
		wg.Wait()
		eventually(t, waitCeiling, "every result written", func() bool { return rec.count() == n })
		// The last batch written leaves its array for the next (after its observer heard of it).
		eventually(t, waitCeiling, "a spare array", func() bool {
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.spare != nil
		})
		f.mu.Lock()
		for _, it := range f.spare[:cap(f.spare)] {
			require.Nil(t, it.rj, "the spare array holds no finished job")
		}
		f.mu.Unlock()
		f.close(10 * time.Second)
		<-done

		require.Equal(t, n, rec.count(), "every result was told to the observer")
		w.mu.Lock()
		defer w.mu.Unlock()
		require.Len(t, w.written, n, "every result was written")
		for id, times := range w.written {
			require.Equal(t, 1, times, "job %d written once", id)
		}
		require.Greater(t, w.calls, 2, "results went through several writes")
		for i, j := range jobs {
			want := "succeeded"
			if i%10 == 0 {
				want = "retry_pending"
			}
			require.Equal(t, want, rec.outcome(j.ID), "job %d", j.ID)
		}
		var retrying, running, finished int
		require.NoError(t, b.admin.QueryRow(ctx, `
			SELECT count(*) FILTER (WHERE state = 'retry_pending'), count(*) FILTER (WHERE state = 'running'),
			       (SELECT count(*) FROM jobq.job_history WHERE task = 'finish-many' AND state = 'succeeded')
			FROM jobq.jobs WHERE task = 'finish-many'`).Scan(&retrying, &running, &finished))
		require.Equal(t, n/10, retrying)
		require.Zero(t, running)
		require.Equal(t, n-n/10, finished)
	})

	// Closed while the engine refuses, the finisher tries until its limit, then logs every result
	// it could not write and returns; the jobs keep their leases.
	t.Run("GivesUpAtItsCloseLimit", func(t *testing.T) {
		t.Parallel()
		b := setupUnit(t)
		jobs := b.claimJobs(t, "unit-w", "finish-give-up", 2)
		b.exec(t, `REVOKE EXECUTE ON FUNCTION `+completeJobs+` FROM worker_runtime`)
		rec := newFinishRecorder()
		f := newFinisher(b.client, rec, b.log, backoff{initial: time.Millisecond, max: 20 * time.Millisecond})
		f.submit(item(jobs[0], finishComplete))
		f.submit(item(jobs[1], finishComplete))
		done := runFinisher(f)
		began := time.Now()
		f.close(300 * time.Millisecond)
		select {
		case <-done:
		case <-time.After(waitCeiling):
			t.Fatal("the finisher did not return after its close limit")
		}
		require.GreaterOrEqual(t, time.Since(began), 300*time.Millisecond)
		require.Zero(t, rec.count())
		abandoned := b.logs.lines("job result not written before shutdown; the job runs again after its lease expires")
		require.Len(t, abandoned, 2)
		require.Equal(t, "running", b.state(t, jobs[0].ID))
		require.Equal(t, "running", b.state(t, jobs[1].ID))
	})
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	b := backoff{initial: 50 * time.Millisecond, max: 300 * time.Millisecond}
	var waits []time.Duration
	for w := b.next(0); len(waits) < 5; w = b.next(w) {
		waits = append(waits, w)
	}
	require.Equal(t, []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond,
		300 * time.Millisecond, 300 * time.Millisecond}, waits)
	require.Equal(t, finishRetry, backoff{initial: 50 * time.Millisecond, max: 500 * time.Millisecond}, "the finisher's default")
}
