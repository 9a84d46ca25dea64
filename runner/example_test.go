package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// ExpireTentativeForStore is the payload of a store-scoped task: what the job needs besides its
// store, which its enqueue takes as an argument.
type ExpireTentativeForStore struct {
	Reason string `json:"reason,omitempty"`
}

// A store-scoped task declared once: its enqueue takes the store id and its payload type, so an
// enqueue without a store does not compile; the store goes into the job's store_id and its
// payload's storeId.
func ExampleNewStoreTask() {
	task := runner.NewStoreTask[ExpireTentativeForStore]("expire-tentative-for-store",
		jobq.EnqueueOptions{MaxAttempts: 10, JobKeyMode: jobq.JobKeyPreserveRunAt})

	store := "6f1c0a56-59b4-4d3c-9a43-0d8c3f0e5a11"
	spec, err := task.Spec(store, ExpireTentativeForStore{}, &jobq.EnqueueOptions{JobKey: "expire_tentative:" + store})
	fmt.Println(spec.Task, spec.StoreID, spec.MaxAttempts, spec.JobKeyMode, string(spec.Payload.(json.RawMessage)), err)

	_, err = task.Spec("", ExpireTentativeForStore{}, nil)
	fmt.Println(err)
	// Output:
	// expire-tentative-for-store 6f1c0a56-59b4-4d3c-9a43-0d8c3f0e5a11 10 preserve_run_at {"storeId":"6f1c0a56-59b4-4d3c-9a43-0d8c3f0e5a11"} <nil>
	// JOB.PAYLOAD_INVALID: task expire-tentative-for-store is store-scoped and the store id is empty
}

// A service embeds a runner: it registers its handlers and runs until its context ends.
func ExampleRunner() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("WORKER_DATABASE_URL")) // worker_runtime
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	r, err := runner.New(runner.Config{Pool: pool, Concurrency: 20, ShutdownGrace: 10 * time.Second})
	if err != nil {
		panic(err)
	}
	expire := runner.NewStoreTask[ExpireTentativeForStore]("expire-tentative-for-store", jobq.EnqueueOptions{MaxAttempts: 10})
	runner.HandleStore(r, expire, func(ctx context.Context, tx pgx.Tx, job *runner.Job[ExpireTentativeForStore]) error {
		// tx has app.current_store_id = job.Store(): row-level security applies.
		_, err := tx.Exec(ctx, `UPDATE reservations SET state = 'expired' WHERE state = 'tentative' AND expires_at < now()`)
		return err
	})
	_ = r.Run // r.Run(ctx) blocks until ctx ends, then drains; serve r.HTTPHandler() for probes.
}
