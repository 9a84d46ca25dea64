package jobq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/jobqdev/jobq/internal/jobsql"
	"time"

	"github.com/jackc/pgx/v5"
)

// BatchOptions are the arguments of Client.CreateBatch. Each callback is nil (none) or a job the
// engine enqueues once, in the batch's store, when the batch settles (sealed and every one of its
// jobs ended); its payload gets the key "batch" with the batch's id and final counts. A callback
// has no StoreID (the batch's applies) nor RunAt (it runs at the settle); it is checked when the
// batch is created (ErrBatchCallbackInvalid).
type BatchOptions struct {
	OnSuccess  *JobSpec // every job succeeded
	OnComplete *JobSpec // every job ended, whatever the outcome
	OnDiscard  *JobSpec // at least one job ended dead or canceled
	// StoreID is the batch's store; "" is the session's app.current_store_id, none a system batch.
	StoreID     string
	Description string // at most 1000 characters
	// Jobs are added in the same call, as BatchEnqueue would; Seal seals the batch in it too, so
	// one call makes a whole batch (an empty one settles at once).
	Jobs []JobSpec
	Seal bool
}

// BatchStatus is one batch as jobq.batch_status reports it.
type BatchStatus struct {
	ID                               int64
	StoreID                          *string // nil: a system batch
	State                            string  // open, sealed, settled
	Total, Succeeded, Dead, Canceled int64
	Pending                          int64 // not ended yet
	SettledAt                        *time.Time
	CallbackJobIDs                   []int64
	CallbackError                    *string // why a callback could not be enqueued at the settle
}

// CreateBatch creates a batch and returns its id (jobq.create_batch): open, unless o.Seal; add
// (more) jobs with BatchEnqueue, then SealBatch. Errors: ErrBatchCallbackInvalid,
// ErrTenantMismatch, ErrNotAllowed, and those of BatchEnqueue for o.Jobs.
func (c *Client) CreateBatch(ctx context.Context, o BatchOptions) (int64, error) {
	var cb [3]*json.RawMessage
	for i, spec := range []*JobSpec{o.OnSuccess, o.OnComplete, o.OnDiscard} {
		if spec == nil {
			continue
		}
		if spec.StoreID != "" || !spec.RunAt.IsZero() {
			return 0, fmt.Errorf("jobq: create_batch: a callback takes no StoreID nor RunAt: %w", ErrBatchCallbackInvalid)
		}
		doc, err := encodeSpecs([]JobSpec{*spec}, "create_batch")
		if err != nil {
			return 0, err
		}
		var one []json.RawMessage
		if err := json.Unmarshal(doc, &one); err != nil {
			return 0, fmt.Errorf("jobq: create_batch: %w", err)
		}
		cb[i] = &one[0]
	}
	var jobs []byte
	if o.Jobs != nil {
		var err error
		if jobs, err = encodeSpecs(o.Jobs, "create_batch"); err != nil {
			return 0, err
		}
	}
	var id int64
	arg, args := withTrace(ctx, "$6::jsonb", 8, []any{cb[0], cb[1], cb[2], jobsql.NullString(o.StoreID), jobsql.NullString(o.Description), jobs, o.Seal})
	err := c.db.QueryRow(ctx, `SELECT jobq.create_batch($1::jsonb, $2::jsonb, $3::jsonb, $4::uuid, $5, `+arg+`, $7)`, args...).Scan(&id)
	return id, jobsql.Wrap(err, "create_batch")
}

// BatchEnqueue adds jobs to open batch batchID and returns their ids in order
// (jobq.batch_enqueue): all or nothing, as EnqueueMany; a spec without StoreID takes the batch's,
// and none may have a JobKey or UniqueFor. Errors: ErrBatchNotFound, ErrBatchSealed,
// ErrBatchStoreMismatch, and those of EnqueueMany.
func (c *Client) BatchEnqueue(ctx context.Context, batchID int64, specs []JobSpec) ([]int64, error) {
	doc, err := encodeSpecs(specs, "batch_enqueue")
	if err != nil {
		return nil, err
	}
	arg, args := withTrace(ctx, "$2::jsonb", 3, []any{batchID, doc})
	rows, err := c.db.Query(ctx, `SELECT id FROM jobq.batch_enqueue($1, `+arg+`) AS id`, args...)
	if err != nil {
		return nil, jobsql.Wrap(err, "batch_enqueue")
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return ids, jobsql.Wrap(err, "batch_enqueue")
}

// SealBatch seals batch batchID (jobq.seal_batch): no more jobs; it settles, enqueuing its
// callbacks once, when every one of its jobs has ended. It reports whether the batch settled at
// once. Sealing a sealed batch changes nothing. Errors: ErrBatchNotFound.
func (c *Client) SealBatch(ctx context.Context, batchID int64) (settled bool, err error) {
	var state string
	err = c.db.QueryRow(ctx, `SELECT jobq.seal_batch($1)`, batchID).Scan(&state)
	return state == "settled", jobsql.Wrap(err, "seal_batch")
}

// BatchStatus reads batch id (jobq.batch_status). Errors: ErrBatchNotFound (also for another
// store's batch).
func (c *Client) BatchStatus(ctx context.Context, id int64) (BatchStatus, error) {
	var b BatchStatus
	err := c.db.QueryRow(ctx, `SELECT id, store_id::text, state, total, succeeded, dead, canceled, pending, settled_at,
		callback_job_ids, callback_error FROM jobq.batch_status($1)`, id).
		Scan(&b.ID, &b.StoreID, &b.State, &b.Total, &b.Succeeded, &b.Dead, &b.Canceled, &b.Pending, &b.SettledAt,
			&b.CallbackJobIDs, &b.CallbackError)
	if errors.Is(err, pgx.ErrNoRows) {
		return b, fmt.Errorf("jobq: batch_status: batch %d: %w", id, ErrBatchNotFound)
	}
	return b, jobsql.Wrap(err, "batch_status")
}
