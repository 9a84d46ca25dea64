package runner

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/engine"
)

type finishKind int

const (
	finishComplete finishKind = iota
	finishFail
	finishSnooze
	finishCommitted // completed in the handler's own transaction (CompleteTx): nothing to write
)

// finishItem is one result to write.
type finishItem struct {
	rj       *runningJob
	kind     finishKind
	failure  jobq.Failure  // finishFail
	delay    time.Duration // finishSnooze
	shutdown bool          // finishSnooze: handed back by a shutdown
	handBack string        // finishSnooze: why a job claimed ahead was handed back before it ran
	duration time.Duration
	err      error
}

// resultWriter writes job results to the engine: complete_jobs, fail_jobs and snooze_jobs, one
// call per batch. *jobq.Client satisfies it.
type resultWriter interface {
	Complete(ctx context.Context, leases []jobq.Lease) ([]jobq.Outcome, error)
	Fail(ctx context.Context, failures []jobq.Failure) ([]jobq.Outcome, error)
	SnoozeMany(ctx context.Context, leases []jobq.Lease, delay time.Duration) ([]jobq.Outcome, error)
}

// finishObserver is told what the engine did with each written result, and when a batch has
// been written. The Runner is one: it logs, counts metrics, reports dead jobs and forgets the
// lease, then lets a claim held back by unwritten results go.
type finishObserver interface {
	// finished is called once per result, after the write that carried it, with the engine's
	// outcome ("succeeded", "retry_pending", "dead", "snoozed", "lease_lost") and the next run
	// time where the engine gave one. ctx is the write's context.
	finished(ctx context.Context, it finishItem, outcome string, runAt *time.Time)
	// written is called after every batch written in full.
	written()
}

// backoff is a clock-free retry policy: the wait before the first retry is initial, and each
// further one doubles up to max. Callers add jitter and do the waiting.
type backoff struct {
	initial, max time.Duration
}

// next returns the wait after wait (initial when wait is zero).
func (b backoff) next(wait time.Duration) time.Duration {
	if wait <= 0 {
		return b.initial
	}
	return min(2*wait, b.max)
}

// finishRetry is the finisher's retry policy while the database fails: 50 ms, doubling up to
// 500 ms (with jitter, at most 750 ms), so that results are written within a second of the
// database answering again even when nothing else wakes the retry (see databaseAnswers).
var finishRetry = backoff{initial: 50 * time.Millisecond, max: 500 * time.Millisecond}

// finisher writes results. It writes as soon as it is idle and gathers whatever arrives while a
// write is in flight into the next one, so results are written at once when the runner is quiet
// and in batches when it is busy: one complete_jobs and one fail_jobs call per batch, and one
// snooze_jobs call per distinct delay. It talks to the engine only through its resultWriter and
// reports only to its finishObserver.
type finisher struct {
	db    resultWriter
	obs   finishObserver
	log   *slog.Logger
	retry backoff

	mu      sync.Mutex
	pending []finishItem
	// spare is the array of the last batch written, cleared (recycle), that pending takes next
	// (nil while none): a busy runner's results then go back and forth between two arrays
	// instead of a new one each batch.
	spare    []finishItem
	signal   chan struct{}
	answered chan struct{} // the database answered another call: retry a failed write now
	closing  chan struct{}
	limit    time.Duration // set by close: how long to keep trying to write what is left
}

// maxFinishBatch bounds one complete_jobs or fail_jobs call.
const maxFinishBatch = 1000

// newFinisher returns a finisher that writes through db, tells obs, logs to log and retries
// failed writes with the policy retry. Call run on a goroutine of its own, then close.
func newFinisher(db resultWriter, obs finishObserver, log *slog.Logger, retry backoff) *finisher {
	return &finisher{db: db, obs: obs, log: log, retry: retry,
		signal: make(chan struct{}, 1), answered: make(chan struct{}, 1), closing: make(chan struct{})}
}

// databaseAnswers tells the finisher that another call to the database just succeeded: a write
// waiting to retry after a failure is retried at once. It never blocks.
func (f *finisher) databaseAnswers() {
	select {
	case f.answered <- struct{}{}:
	default:
	}
}

// submit queues a result; it never blocks.
func (f *finisher) submit(it finishItem) {
	f.mu.Lock()
	f.pending = append(f.pending, it)
	f.mu.Unlock()
	select {
	case f.signal <- struct{}{}:
	default:
	}
}

// close makes run write what is pending, trying for at most limit, and return.
func (f *finisher) close(limit time.Duration) {
	f.mu.Lock()
	f.limit = limit
	f.mu.Unlock()
	close(f.closing)
}

func (f *finisher) take() []finishItem {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := min(len(f.pending), maxFinishBatch)
	if n == 0 {
		return nil
	}
	if n == len(f.pending) {
		// All of it: the batch keeps the array, and the spare one, if any, takes what comes next.
		batch := f.pending
		f.pending, f.spare = f.spare, nil
		return batch
	}
	batch := f.pending[:n:n]
	f.pending = f.pending[n:]
	select {
	case f.signal <- struct{}{}:
	default:
	}
	return batch
}

// recycle keeps the array of a written batch as the spare, cleared so that it holds no finished
// job.
func (f *finisher) recycle(batch []finishItem) {
	clear(batch[:cap(batch)])
	f.mu.Lock()
	if f.spare == nil {
		f.spare = batch[:0]
	}
	f.mu.Unlock()
}

// run writes what is submitted until close is called and what is pending is written or given
// up.
func (f *finisher) run() {
	errs := newErrorLog(f.log, "writing job results failed; retrying")
	var giveUp <-chan time.Time
	for {
		select {
		case <-f.signal:
		case <-f.closing:
			if giveUp == nil {
				f.mu.Lock()
				giveUp = time.After(f.limit)
				f.mu.Unlock()
			}
			batch := f.take()
			if len(batch) == 0 {
				return
			}
			if !f.write(batch, errs, giveUp) {
				f.abandon()
				return
			}
			continue
		}
		if batch := f.take(); len(batch) > 0 && f.write(batch, errs, nil) {
			f.recycle(batch)
		}
	}
}

// abandon logs the results that could not be written before the shutdown deadline.
func (f *finisher) abandon() {
	f.mu.Lock()
	left := f.pending
	f.pending = nil
	f.mu.Unlock()
	for _, it := range left {
		f.log.Error("job result not written before shutdown; the job runs again after its lease expires",
			jobAttrs(it.rj.job)...)
	}
}

// write writes batch, retrying with backoff while the database fails, until it succeeds or
// giveUp fires (nil: never). It reports whether everything was written.
func (f *finisher) write(batch []finishItem, errs *errorLog, giveUp <-chan time.Time) bool {
	// The completions, nearly every result, are gathered in place, in batch's own array.
	completes := batch[:0:len(batch)]
	var fails, snoozes []finishItem
	for _, it := range batch {
		switch it.kind {
		case finishCommitted:
			f.obs.finished(context.Background(), it, "succeeded", nil)
		case finishComplete:
			completes = append(completes, it)
		case finishFail:
			fails = append(fails, it)
		case finishSnooze:
			snoozes = append(snoozes, it)
		}
	}
	wait := f.retry.next(0)
	for {
		var err error
		if len(completes) > 0 {
			if err = f.complete(completes); err == nil {
				completes = nil
			}
		}
		if err == nil && len(fails) > 0 {
			if err = f.fail(fails); err == nil {
				fails = nil
			}
		}
		for err == nil && len(snoozes) > 0 {
			// One snooze_jobs call per delay: a shutdown hands back many jobs with delay 0.
			same := sameDelay(snoozes)
			if err = f.snooze(snoozes[:same]); err == nil {
				snoozes = snoozes[same:]
			}
		}
		if err == nil {
			errs.ok()
			f.obs.written() // a claim held back by unwritten results may go now
			return true
		}
		errs.failed(err)
		// Results that fail to write are retried with the ones that arrived meanwhile.
		select {
		case <-time.After(jitter(wait)):
		case <-f.answered:
		case <-giveUp:
			f.mu.Lock()
			f.pending = append(append(append(f.pending, completes...), fails...), snoozes...)
			f.mu.Unlock()
			return false
		}
		wait = f.retry.next(wait)
		if giveUp == nil {
			select {
			case <-f.closing:
				// A shutdown started while retrying: from now on retry within its limit.
				f.mu.Lock()
				f.pending = append(append(append(f.pending, completes...), fails...), snoozes...)
				f.mu.Unlock()
				select {
				case f.signal <- struct{}{}:
				default:
				}
				return false
			default:
			}
		}
	}
}

// attemptCompleter completes attempts with what they left behind (the output's tail, an exit
// status). *engine.Engine is one; a resultWriter that is not completes with the leases alone.
type attemptCompleter interface {
	CompleteAttempts(ctx context.Context, done []engine.Completion) ([]jobq.Outcome, error)
}

func (f *finisher) complete(items []finishItem) error {
	leases := make([]jobq.Lease, len(items))
	var done []engine.Completion // nil while no attempt left anything behind: the plain statement serves
	for i, it := range items {
		leases[i] = it.rj.job.Lease()
		result := it.rj.result.get()
		if output, code := it.rj.notes.taken(); output != "" || code != nil || result != nil {
			if done == nil {
				done = make([]engine.Completion, len(items))
			}
			done[i] = engine.Completion{Output: output, ExitCode: code, Result: result}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), dbCallTimeout)
	defer cancel()
	var outs []jobq.Outcome
	var err error
	if c, ok := f.db.(attemptCompleter); ok && done != nil {
		for i := range done {
			done[i].Lease = leases[i]
		}
		outs, err = c.CompleteAttempts(ctx, done)
	} else {
		outs, err = f.db.Complete(ctx, leases)
	}
	if err != nil {
		return err
	}
	for i, it := range items {
		if outs[i].Outcome == "result_too_large" {
			// Nothing was written and the job still runs under its lease: its attempt fails
			// instead, not retryable (the same handler would give the same result), and an
			// operator may requeue it after raising the setting.
			f.submit(finishItem{rj: it.rj, kind: finishFail, duration: it.duration, err: jobq.ErrResultTooLarge,
				failure: jobq.Failure{Lease: leases[i], Fatal: true, ErrorCode: jobq.ErrResultTooLarge.Code,
					Error: fmt.Sprintf("the result is %d bytes of JSON text, above the setting max_result_bytes", len(it.rj.result.get()))}})
			continue
		}
		f.obs.finished(ctx, it, outs[i].Outcome, nil)
	}
	return nil
}

func (f *finisher) fail(items []finishItem) error {
	failures := make([]jobq.Failure, len(items))
	for i, it := range items {
		failures[i] = it.failure
		if _, code := it.rj.notes.taken(); code != nil && failures[i].ExitCode == nil {
			failures[i].ExitCode = code
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), dbCallTimeout)
	defer cancel()
	outs, err := f.db.Fail(ctx, failures)
	if err != nil {
		return err
	}
	for i, it := range items {
		f.obs.finished(ctx, it, outs[i].Outcome, outs[i].RunAt)
	}
	return nil
}

// sameDelay returns how many items from the first have the first item's delay, moving the
// others behind them.
func sameDelay(items []finishItem) int {
	n := 1
	for i := 1; i < len(items); i++ {
		if items[i].delay == items[0].delay {
			items[n], items[i] = items[i], items[n]
			n++
		}
	}
	return n
}

// snooze writes snoozes that share one delay in one snooze_jobs call.
func (f *finisher) snooze(items []finishItem) error {
	leases := make([]jobq.Lease, len(items))
	for i, it := range items {
		leases[i] = it.rj.job.Lease()
	}
	ctx, cancel := context.WithTimeout(context.Background(), dbCallTimeout)
	defer cancel()
	outs, err := f.db.SnoozeMany(ctx, leases, items[0].delay)
	if err != nil {
		return err
	}
	for i, it := range items {
		outcome := outs[i].Outcome
		if outcome == "queued" {
			outcome = "snoozed"
		}
		f.obs.finished(ctx, it, outcome, outs[i].RunAt)
	}
	return nil
}

// resultMetrics are the counters of written results, all parts of one runner's metrics.
type resultMetrics struct {
	completed, failed, dead, snoozed, returned, leaseLost *prometheus.CounterVec
}

// results returns the written results' part of m.
func (m *metrics) results() resultMetrics {
	return resultMetrics{completed: m.completed, failed: m.failed, dead: m.dead, snoozed: m.snoozed,
		returned: m.returned, leaseLost: m.leaseLost}
}

// resultRecorder is the runner's finishObserver: it logs each written result, counts it, reports
// dead jobs and drops the lease from the runner's table, and lets a claim held back by unwritten
// results go after each batch. It needs only those two hooks, its counters, the Reporter (nil:
// none) and a logger.
type resultRecorder struct {
	forget      func(*runningJob) // drops a held lease
	claimWanted func()            // wakes the claim loop if it waits for capacity
	metrics     resultMetrics
	reporter    Reporter
	log         *slog.Logger
}

// written lets a claim held back by unwritten results go.
func (r *resultRecorder) written() { r.claimWanted() }

// finished records what the engine did with one result: logs, metrics, the reporter.
func (r *resultRecorder) finished(ctx context.Context, it finishItem, outcome string, runAt *time.Time) {
	job := it.rj.job
	r.forget(it.rj)
	if outcome == "succeeded" {
		// The hot path: its log line's attributes are built only when Info is on.
		r.metrics.completed.WithLabelValues(job.Task).Inc()
		if r.log.Enabled(ctx, slog.LevelInfo) {
			r.log.Info("job succeeded", append(jobAttrs(job), "duration", ms(it.duration))...)
		}
		return
	}
	attrs := append(jobAttrs(job), "duration", ms(it.duration))
	switch outcome {
	case "retry_pending":
		r.metrics.failed.WithLabelValues(job.Task).Inc()
		if runAt != nil {
			attrs = append(attrs, "runAt", runAt.UTC().Format(time.RFC3339Nano))
		}
		r.log.Info("job retry", append(attrs, "error", firstLine(it.failure.Error))...)
	case "dead":
		r.metrics.failed.WithLabelValues(job.Task).Inc()
		r.metrics.dead.WithLabelValues(job.Task).Inc()
		reason := "exhausted"
		switch {
		case it.failure.Fatal:
			reason = "not_retryable"
		case it.failure.Reason == "timed_out":
			reason = "timed_out"
		}
		r.log.Error("job dead", append(attrs, "reason", reason, "error", firstLine(it.failure.Error))...)
		if r.reporter != nil {
			d := DeadJob{JobID: job.ID, Task: job.Task, Queue: job.Queue, Attempt: job.Attempt,
				Error: it.failure.Error, Reason: reason, Duration: it.duration}
			if job.StoreID != nil {
				d.StoreID = *job.StoreID
			}
			r.reporter.ReportDead(ctx, d)
		}
	case "snoozed":
		if runAt != nil {
			attrs = append(attrs, "runAt", runAt.UTC().Format(time.RFC3339Nano))
		}
		if it.handBack != "" {
			r.metrics.returned.WithLabelValues(job.Task).Inc()
			r.log.Info("job handed back", append(attrs, "reason", it.handBack)...)
		} else if it.shutdown {
			r.metrics.returned.WithLabelValues(job.Task).Inc()
			r.log.Info("job handed back at shutdown", attrs...)
		} else {
			r.metrics.snoozed.WithLabelValues(job.Task).Inc()
			r.log.Info("job snoozed", attrs...)
		}
	case "lease_lost":
		r.metrics.leaseLost.WithLabelValues(job.Task).Inc()
		r.log.Warn("lease lost", append(attrs, "during", kindName(it.kind),
			"detail", "the engine refused the write: the job was rescued, cancelled or finished elsewhere")...)
	default:
		r.log.Error("unexpected outcome from the engine", append(attrs, "outcome", outcome)...)
	}
}

func kindName(k finishKind) string {
	switch k {
	case finishComplete:
		return "complete"
	case finishFail:
		return "fail"
	case finishCommitted:
		return "complete (in the handler's transaction)"
	default:
		return "snooze"
	}
}
