package jobq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/jobqdev/jobq/internal/jobsql"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DoneChannel is the channel on which the engine notifies, at the commit, that a job ended
// (succeeded, dead or canceled): the payload is the job's id alone.
const DoneChannel = "jobq_done"

// JobResult is what jobq.job_result says of a job: its state, the result its succeeded attempt
// returned (nil when none, or while it has not finished) and when it finished (nil while live).
type JobResult struct {
	JobID      int64
	State      string
	Result     json.RawMessage
	FinishedAt *time.Time
}

// Finished reports whether the job has ended: succeeded, dead or canceled.
func (r JobResult) Finished() bool { return r.FinishedAt != nil }

// Succeeded reports whether the job ended successfully.
func (r JobResult) Succeeded() bool { return r.State == "succeeded" }

// ErrJobNotSucceeded is returned by AwaitResultOf for a job that ended dead or canceled.
var ErrJobNotSucceeded = errors.New("jobq: the job ended without succeeding")

// JobResult reads the state and result of job id (jobq.job_result) as the caller may: an
// application its store's jobs only. ErrNotFound when there is no such job, its history row was
// pruned, or the caller may not see it.
func (c *Client) JobResult(ctx context.Context, id int64) (JobResult, error) {
	r := JobResult{JobID: id}
	var result []byte
	err := c.db.QueryRow(ctx, `SELECT state, result, finished_at FROM jobq.job_result($1)`, id).Scan(&r.State, &result, &r.FinishedAt)
	if err != nil {
		return JobResult{}, jobsql.Wrap(err, "job_result")
	}
	if result != nil {
		r.Result = json.RawMessage(result)
	}
	return r, nil
}

// defaultAwaitBackstop is how long AwaitResult waits for a notification before it reads the job
// again anyway: a notification is a hint, never the only way to learn that a job ended.
const defaultAwaitBackstop = 5 * time.Second

func (c *Client) backstop() time.Duration {
	if c.awaitBackstop > 0 {
		return c.awaitBackstop
	}
	return defaultAwaitBackstop
}

// The done doorbell's retries: while hold_done_doorbell says false (an end probes it, for
// microseconds) or done_quiet says false (an end that did not notify is still in flight),
// AwaitResult reads the job and asks again after doneRetryMin, doubling up to doneRetryMax.
const (
	doneRetryMin = time.Millisecond
	doneRetryMax = 100 * time.Millisecond
)

// AwaitResult waits until job id has ended and returns its state and result. It listens on
// DoneChannel first, then holds the done doorbell (jobq.hold_done_doorbell: the engine notifies
// the end of a job only while some awaiter holds it) and waits until no end that could have
// missed the doorbell is in flight (jobq.done_quiet), reading the job meanwhile; then it reads the
// job again on each notification naming it and every few seconds in any case, until the job has
// ended or ctx is done (give ctx a deadline: context.WithTimeout). The doorbell is let go and the
// LISTEN undone on every way out. It needs a connection of its own for the wait: the Client's DB
// must be a *pgxpool.Pool (a connection is acquired and released) or a *pgx.Conn (not in use by
// anything else meanwhile), never a transaction, whose LISTEN would not take effect before its
// commit. The job is read as the Client's role may: an application waits for its store's jobs
// only (ErrNotFound otherwise).
func (c *Client) AwaitResult(ctx context.Context, id int64) (JobResult, error) {
	var conn *pgx.Conn
	switch db := c.db.(type) {
	case *pgxpool.Pool:
		pc, err := db.Acquire(ctx)
		if err != nil {
			return JobResult{}, fmt.Errorf("jobq: await result of job %d: %w", id, err)
		}
		defer pc.Release()
		conn = pc.Conn()
	case *pgx.Conn:
		conn = db
	default:
		return JobResult{}, errors.New("jobq: AwaitResult needs a Client on a *pgxpool.Pool or a *pgx.Conn, not a transaction")
	}
	if _, err := conn.Exec(ctx, "LISTEN "+DoneChannel); err != nil {
		return JobResult{}, jobsql.Wrap(err, "listen "+DoneChannel)
	}
	held := false
	defer func() {
		// The connection goes back to its pool or its owner without the doorbell and the LISTEN;
		// one that cannot say so is closed (a pool then drops it, and its session lock goes).
		uctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var err error
		if held {
			_, err = conn.Exec(uctx, "SELECT jobq.release_done_doorbell()")
		}
		if err == nil {
			_, err = conn.Exec(uctx, "UNLISTEN "+DoneChannel)
		}
		if err != nil {
			_ = conn.Close(uctx)
		}
	}()
	read := NewClient(conn)
	want := strconv.FormatInt(id, 10)
	// Hold the doorbell, then read until no silent end is in flight: a job that ended before is
	// read here, one that ends after notifies.
	var r JobResult
	for delay := doneRetryMin; ; delay = min(2*delay, doneRetryMax) {
		quiet := false
		if !held {
			if err := conn.QueryRow(ctx, "SELECT jobq.hold_done_doorbell()").Scan(&held); err != nil {
				return JobResult{}, jobsql.Wrap(err, "hold_done_doorbell")
			}
		}
		if held {
			if err := conn.QueryRow(ctx, "SELECT jobq.done_quiet()").Scan(&quiet); err != nil {
				return JobResult{}, jobsql.Wrap(err, "done_quiet")
			}
		}
		var err error
		if r, err = read.JobResult(ctx, id); err != nil || r.Finished() {
			return r, err
		}
		if quiet {
			break
		}
		select {
		case <-ctx.Done():
			return JobResult{}, fmt.Errorf("jobq: await result of job %d (state %s): %w", id, r.State, ctx.Err())
		case <-time.After(delay):
		}
	}
	for {
		for woke := false; !woke; {
			wctx, cancel := context.WithTimeout(ctx, c.backstop())
			n, err := conn.WaitForNotification(wctx)
			cancel()
			switch {
			case ctx.Err() != nil:
				return JobResult{}, fmt.Errorf("jobq: await result of job %d (state %s): %w", id, r.State, ctx.Err())
			case err != nil && wctx.Err() != nil:
				woke = true // the backstop: read again
			case err != nil:
				return JobResult{}, fmt.Errorf("jobq: await result of job %d: %w", id, err)
			case n.Channel == DoneChannel && n.Payload == want:
				woke = true
			}
		}
		var err error
		if r, err = read.JobResult(ctx, id); err != nil || r.Finished() {
			return r, err
		}
	}
}

// AwaitResultOf is AwaitResult that decodes a succeeded job's result into a T. A job that ended
// dead or canceled returns ErrJobNotSucceeded (with its JobResult); a succeeded job without a
// result returns T's zero value.
func AwaitResultOf[T any](ctx context.Context, c *Client, id int64) (T, JobResult, error) {
	var v T
	r, err := c.AwaitResult(ctx, id)
	if err != nil {
		return v, r, err
	}
	if !r.Succeeded() {
		return v, r, fmt.Errorf("jobq: job %d ended %s: %w", id, r.State, ErrJobNotSucceeded)
	}
	if r.Result != nil {
		if err := json.Unmarshal(r.Result, &v); err != nil {
			return v, r, fmt.Errorf("jobq: decode the result of job %d: %w", id, err)
		}
	}
	return v, r, nil
}
