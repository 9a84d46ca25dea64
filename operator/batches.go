package operator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq"
)

// Batch is one row of jobq.batch_list: a batch of jobs (jobq.create_batch), its state (open:
// jobs may be added; sealed: no more jobs, some still pending; settled: sealed and every job
// ended, the callbacks enqueued), its counts and its callbacks. The CLI's jobq batches and the
// dashboard's batch panel show these rows.
type Batch struct {
	ID             int64      `json:"id" db:"id"`
	StoreID        *string    `json:"store_id" db:"store_id"` // nil: a system batch
	Description    *string    `json:"description" db:"description"`
	State          string     `json:"state" db:"state"`
	Total          int64      `json:"total" db:"total"`
	Succeeded      int64      `json:"succeeded" db:"succeeded"`
	Dead           int64      `json:"dead" db:"dead"`
	Canceled       int64      `json:"canceled" db:"canceled"` // canceled, or deleted while live
	Pending        int64      `json:"pending" db:"pending"`   // not ended yet
	CreatedAt      time.Time  `json:"created_at" db:"created_at"`
	SealedAt       *time.Time `json:"sealed_at" db:"sealed_at"`
	SettledAt      *time.Time `json:"settled_at" db:"settled_at"`
	OnSuccess      *string    `json:"on_success" db:"on_success"` // the callbacks' tasks
	OnComplete     *string    `json:"on_complete" db:"on_complete"`
	OnDiscard      *string    `json:"on_discard" db:"on_discard"`
	CallbackJobIDs []int64    `json:"callback_job_ids" db:"callback_job_ids"`
	CallbackError  *string    `json:"callback_error" db:"callback_error"`
}

// Ended is how many of the batch's jobs have ended.
func (b Batch) Ended() int64 { return b.Total - b.Pending }

// Percent is the share of the batch's jobs that have ended, 0 to 100 (100 for an empty batch).
func (b Batch) Percent() int {
	if b.Total == 0 {
		return 100
	}
	return int(b.Ended() * 100 / b.Total)
}

// BatchFilter selects batches: each field that is not zero must match.
type BatchFilter struct {
	StoreID string
	State   string // open, sealed, settled
	Before  int64  // ids below it: the next page
	Limit   int    // 0: 50
}

// batchColumns are the columns of jobq.batch_list and jobq.batch_status that Batch holds.
const batchColumns = `id, store_id::text AS store_id, description, state, total, succeeded, dead, canceled, pending,
	created_at, sealed_at, settled_at, on_success, on_complete, on_discard, callback_job_ids, callback_error`

// Batches reads batches matching f, newest first (jobq.batch_list; an application reads its own
// store's through row-level security).
func (o *Operator) Batches(ctx context.Context, f BatchFilter) ([]Batch, error) {
	limit := f.Limit
	if limit == 0 {
		limit = 50
	}
	return list(ctx, o, "batch_list", pgx.RowToStructByName[Batch],
		`SELECT `+batchColumns+` FROM jobq.batch_list($1::uuid, $2, $3, $4)`,
		nullString(f.StoreID), nullString(f.State), nullInt64(f.Before), limit)
}

// Batch reads batch id (jobq.batch_status). Errors: jobq.ErrBatchNotFound when no such batch is
// visible to the caller.
func (o *Operator) Batch(ctx context.Context, id int64) (Batch, error) {
	rows, err := o.db.Query(ctx, `SELECT `+batchColumns+` FROM jobq.batch_status($1)`, id)
	if err != nil {
		return Batch{}, wrap(err, "batch_status")
	}
	b, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Batch])
	if errors.Is(err, pgx.ErrNoRows) {
		return Batch{}, fmt.Errorf("jobq: batch_status: batch %d: %w", id, jobq.ErrBatchNotFound)
	}
	return b, wrap(err, "batch_status")
}

// BatchOfJob reads the batch job id belongs to (jobq.batch_list's job_id filter), live or
// finished; nil when the job is in no batch the caller sees.
func (o *Operator) BatchOfJob(ctx context.Context, jobID int64) (*Batch, error) {
	bs, err := list(ctx, o, "batch_list", pgx.RowToStructByName[Batch],
		`SELECT `+batchColumns+` FROM jobq.batch_list(job_id => $1, max_rows => 1)`, jobID)
	if err != nil || len(bs) == 0 {
		return nil, err
	}
	return &bs[0], nil
}
