package runner_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// ExpireTentativeForStore is the payload of a store-scoped task: JobStoreID names its store.
type ExpireTentativeForStore struct {
	StoreID string `json:"storeId"`
}

func (p ExpireTentativeForStore) JobStoreID() string { return p.StoreID }

// A store-scoped task declared once: its enqueue takes only its payload type and sets the job's
// store from it.
func ExampleNewStoreTask() {
	task := runner.NewStoreTask[ExpireTentativeForStore]("expire-tentative-for-store",
		jobq.EnqueueOptions{MaxAttempts: 10, JobKeyMode: jobq.JobKeyPreserveRunAt})

	payload := ExpireTentativeForStore{StoreID: "6f1c0a56-59b4-4d3c-9a43-0d8c3f0e5a11"}
	spec, err := task.Spec(payload, &jobq.EnqueueOptions{JobKey: "expire_tentative:" + payload.StoreID})
	fmt.Println(spec.Task, spec.StoreID, spec.MaxAttempts, spec.JobKeyMode, err)

	_, err = task.Spec(ExpireTentativeForStore{}, nil)
	fmt.Println(err)
	// Output:
	// expire-tentative-for-store 6f1c0a56-59b4-4d3c-9a43-0d8c3f0e5a11 10 preserve_run_at <nil>
	// JOB.PAYLOAD_INVALID: task expire-tentative-for-store is store-scoped and its payload names no store
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
		// tx has app.current_store_id = job.Args.StoreID: row-level security applies.
		_, err := tx.Exec(ctx, `UPDATE reservations SET state = 'expired' WHERE state = 'tentative' AND expires_at < now()`)
		return err
	})
	_ = r.Run // r.Run(ctx) blocks until ctx ends, then drains; serve r.HTTPHandler() for probes.
}
