package jobsql

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DB is what a Client needs of a database handle. *pgxpool.Pool, *pgx.Conn and pgx.Tx all
// satisfy it, so an enqueue can join the caller's transaction.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Job is a claimed job as the runner sees it.
type Job struct {
	ID             int64
	Task           string
	Queue          string
	Payload        json.RawMessage
	StoreID        *string
	Priority       int16
	RunAt          time.Time
	Attempt        int
	MaxAttempts    int
	JobKey         *string
	LeaseToken     string
	ClaimedAt      time.Time
	LeaseExpiresAt time.Time
	DeadlineAt     *time.Time
	LastError      *string
	CreatedAt      time.Time
	// Traceparent and Tracestate are the W3C trace context its producer enqueued it under
	// (jobq.jobs.traceparent, tracestate: the session settings jobq.traceparent and
	// jobq.tracestate at the enqueue); "" when none.
	Traceparent string
	Tracestate  string
}

// Lease identifies one claimed attempt: the job and the token its claim was given.
func (j *Job) Lease() Lease { return Lease{JobID: j.ID, Token: j.LeaseToken} }

// Lease is a job id with the lease token of the claim that holds it. Every write about a claimed
// job is accepted only with the current token.
type Lease struct {
	JobID int64
	Token string
}

// Outcome is what the engine did with one complete or fail: "succeeded", "retry_pending",
// "dead" or "lease_lost" (the write was refused because the lease is gone; nothing changed).
type Outcome struct {
	JobID   int64
	Outcome string
	RunAt   *time.Time // the next run of a retry_pending job
}
