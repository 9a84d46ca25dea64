package jobqtest_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/jobqtest"
	"github.com/jobqdev/jobq/runner"
)

// exampleT stands in for the *testing.T of a real test: it panics with the failure.
type exampleT struct{}

func (exampleT) Helper()                           {}
func (exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// A test of application code asserts the job it enqueued, then runs the queue with the
// application's handlers, through the engine's claim, complete and fail.
func Example() {
	ctx := context.Background()
	t := exampleT{}                                          // in a test: the *testing.T
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL")) // the test database's owner
	if err != nil {
		panic(err)
	}
	defer pool.Close()
	client := jobq.NewClient(pool)
	for _, task := range []string{"send-receipt", "sync-ledger"} {
		if err := client.DefineTask(ctx, jobq.TaskDefinition{Name: task, Scope: jobq.ScopeSystem, AppEnqueue: true}); err != nil {
			panic(err)
		}
	}

	// The code under test enqueues.
	for _, order := range []int{7, 8} {
		if _, err := client.Enqueue(ctx, "send-receipt", map[string]any{"orderId": order, "locale": "en"}, jobq.EnqueueOptions{}); err != nil {
			panic(err)
		}
	}
	if _, err := client.Enqueue(ctx, "sync-ledger", nil, jobq.EnqueueOptions{MaxAttempts: 1}); err != nil {
		panic(err)
	}

	job := jobqtest.RequireEnqueued(t, pool, "send-receipt", map[string]any{"orderId": 8}, jobqtest.Options{})
	fmt.Println("enqueued:", job.Task, job.State)
	jobqtest.RequireNotEnqueued(t, pool, "send-receipt", map[string]any{"orderId": 9}, jobqtest.Options{})

	// Run that one job, then everything else due in the queue.
	res := jobqtest.RunJob(t, ctx, pool, runner.HandlerFunc(func(ctx context.Context, job *jobq.Job) error {
		fmt.Printf("sending receipt %s\n", job.Payload)
		return nil
	}), job.ID)
	fmt.Println("RunJob:", res.Outcome)

	counts := jobqtest.Drain(t, ctx, pool, "default", map[string]runner.Handler{
		"send-receipt": runner.HandlerFunc(func(ctx context.Context, job *jobq.Job) error { return nil }),
		"sync-ledger": runner.HandlerFunc(func(ctx context.Context, job *jobq.Job) error {
			return errors.New("ledger unreachable")
		}),
	})
	fmt.Printf("Drain: %d succeeded, %d dead\n", counts.Succeeded, counts.Dead)
	jobqtest.RequireNotEnqueued(t, pool, "send-receipt", nil, jobqtest.Options{})
	// Output:
	// enqueued: send-receipt queued
	// sending receipt {"locale": "en", "orderId": 8}
	// RunJob: succeeded
	// Drain: 1 succeeded, 1 dead
}
