package engine

import (
	"context"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq/internal/jobsql"
)

// QueueLag is how long the next due job of a queue has waited past its run_at.
type QueueLag struct {
	Queue string
	Lag   time.Duration
}

// QueueDepth is how many live jobs a queue holds by state, and how many of its jobs died in the
// last hour.
type QueueDepth struct {
	Queue        string
	Queued       int64 // due, waiting to be claimed
	RetryPending int64 // waiting for a retry
	Running      int64
	Scheduled    int64 // queued with a future run_at
	Blocked      int64 // waiting for its parents or its sequence (docs/dependencies.md)
	DeadLastHour int64 // moved to jobq.job_history as dead in the last hour
}

// QueueLag reports, per queue (all queues with live jobs when queues is nil), how long the next
// job due to be claimed has waited past its run_at.
func (e *Engine) QueueLag(ctx context.Context, queues []string) ([]QueueLag, error) {
	rows, err := e.db.Query(ctx, `SELECT queue, extract(epoch FROM lag)::float8 FROM jobq.queue_lag($1)`, queues)
	if err != nil {
		return nil, jobsql.Wrap(err, "queue_lag")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (QueueLag, error) {
		var q QueueLag
		var secs float64
		err := row.Scan(&q.Queue, &secs)
		q.Lag = time.Duration(secs * float64(time.Second))
		return q, err
	})
	return out, jobsql.Wrap(err, "queue_lag")
}

// QueueDepth reports, per queue (all queues with live jobs when queues is nil), its live jobs by
// state and its dead jobs of the last hour (jobq.queue_depth).
func (e *Engine) QueueDepth(ctx context.Context, queues []string) ([]QueueDepth, error) {
	rows, err := e.db.Query(ctx, `SELECT queue, queued, retry_pending, running, scheduled, blocked, dead_last_hour
		FROM jobq.queue_depth($1)`, queues)
	if err != nil {
		return nil, jobsql.Wrap(err, "queue_depth")
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[QueueDepth])
	return out, jobsql.Wrap(err, "queue_depth")
}

// QueueNotServed is how many waiting jobs of a queue no live worker serves (no live worker of the
// queue registered their task), and how long the oldest due one has waited.
type QueueNotServed struct {
	Queue     string
	NotServed int64          // waiting jobs (queued or retry_pending, due or not), counted up to 10001
	OldestAge *time.Duration // nil when none of them is due
}

// QueueNotServed reports, per queue given, the waiting jobs no live worker serves
// (jobq.queue_not_served).
func (e *Engine) QueueNotServed(ctx context.Context, queues []string) ([]QueueNotServed, error) {
	rows, err := e.db.Query(ctx, `SELECT queue, not_served, extract(epoch FROM oldest_age)::float8
		FROM jobq.queue_not_served($1)`, queues)
	if err != nil {
		return nil, jobsql.Wrap(err, "queue_not_served")
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (QueueNotServed, error) {
		var q QueueNotServed
		var secs *float64 // extract counts a month as 30 days, as the setting intervals do
		err := row.Scan(&q.Queue, &q.NotServed, &secs)
		if secs != nil {
			age := time.Duration(math.Round(*secs*1e6)) * time.Microsecond
			q.OldestAge = &age
		}
		return q, err
	})
	return out, jobsql.Wrap(err, "queue_not_served")
}
