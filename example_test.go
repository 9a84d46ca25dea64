package jobq_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq"
)

// An application enqueues a job in its own transaction, as a member of jobq_app: the job exists
// only if the transaction commits. The task must have been declared (a runner declares its typed
// tasks at start, or Client.DefineTask); the zero EnqueueOptions take the task's defaults.
func ExampleClient_Enqueue() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL")) // a member of jobq_app
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// ... the application's own writes on tx ...
		_, err := jobq.NewClient(tx).Enqueue(ctx, "send-invoice-email", map[string]int{"invoiceId": 42},
			jobq.EnqueueOptions{Delay: time.Minute})
		return err
	})
	if errors.Is(err, jobq.ErrUnknownTask) {
		fmt.Println("no runner has declared send-invoice-email yet")
	}
}

// Every method returns the engine's errors as an *Error; errors.Is matches a sentinel by code,
// however deeply the error is wrapped.
func ExampleError() {
	err := fmt.Errorf("finishing job 7: %w", &jobq.Error{Code: "JOB.LEASE_LOST", SQLState: "JQ201",
		Message: "job 7 is not running under this lease token for worker w1"})

	fmt.Println(errors.Is(err, jobq.ErrLeaseLost), errors.Is(err, jobq.ErrNotFound))
	var jerr *jobq.Error
	if errors.As(err, &jerr) {
		fmt.Println(jerr.Code, jerr)
	}
	// Output:
	// true false
	// JOB.LEASE_LOST job 7 is not running under this lease token for worker w1
}
