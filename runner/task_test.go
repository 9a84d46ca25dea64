package runner_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/proctest"
	"github.com/jobqdev/jobq/runner"
)

// The payloads of seed 000 §5.2, as Go types. A store task's payload leaves out the store: it
// is an argument of the task's Enqueue.
type AggregateDailySalesForStore struct {
	TargetDate string `json:"targetDate"`
}

type Greeting struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

var (
	aggregateTask = runner.NewStoreTask[AggregateDailySalesForStore]("aggregate-daily-sales-for-store",
		jobq.EnqueueOptions{MaxAttempts: 25, JobKeyMode: jobq.JobKeyPreserveRunAt})
	greetTask = runner.NewTask[Greeting]("greet", jobq.EnqueueOptions{Queue: "default", MaxAttempts: 3})
)

func TestTypedTask(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tenantTable(t, b)
	r, err := runner.New(b.config())
	require.NoError(t, err)
	greetings := make(chan Greeting, 1)
	runner.Handle(r, greetTask, func(ctx context.Context, job *runner.Job[Greeting]) error {
		greetings <- job.Args
		return nil
	})
	type seen struct {
		args     AggregateDailySalesForStore
		store    string
		setting  string
		bookings int
	}
	aggregates := make(chan seen, 1)
	runner.HandleStore(r, aggregateTask, func(ctx context.Context, tx pgx.Tx, job *runner.Job[AggregateDailySalesForStore]) error {
		s := seen{args: job.Args, store: job.Store()}
		if err := tx.QueryRow(ctx, `SELECT current_setting('app.current_store_id')`).Scan(&s.setting); err != nil {
			return err
		}
		n, err := countBookings(ctx, tx)
		s.bookings = n
		aggregates <- s
		return err
	})
	start(t, r)
	ctx := context.Background()

	t.Run("EnqueueInTheCallersTransaction", func(t *testing.T) {
		tx, err := b.pool.Begin(ctx)
		require.NoError(t, err)
		defer tx.Rollback(ctx)
		id, err := greetTask.Enqueue(ctx, tx, Greeting{Name: "Ada", Count: 2}, nil)
		require.NoError(t, err)
		require.NoError(t, tx.Commit(ctx))
		require.Equal(t, Greeting{Name: "Ada", Count: 2}, <-greetings)
		row := b.waitState(t, id, "succeeded")
		require.Equal(t, 1, row.Attempt)
		require.Equal(t, 3, b.count(t, `SELECT max_attempts FROM jobq.job_history WHERE id = $1`, id), "the task's defaults apply")
	})
	t.Run("StoreTaskRunsInItsTenant", func(t *testing.T) {
		payload := AggregateDailySalesForStore{TargetDate: "2026-05-05"}
		// A store's job is enqueued in a transaction of that store.
		var id int64
		err := runner.WithTenant(ctx, b.pool, storeA, func(ctx context.Context, tx pgx.Tx) error {
			var err error
			id, err = aggregateTask.Enqueue(ctx, tx, storeA, payload, &jobq.EnqueueOptions{JobKey: "aggregate_daily_sales:" + storeA + ":2026-05-05"})
			return err
		})
		require.NoError(t, err)
		got := <-aggregates
		require.Equal(t, payload, got.args)
		require.Equal(t, storeA, got.store)
		require.Equal(t, storeA, got.setting)
		require.Equal(t, 2, got.bookings, "only store A's rows are visible")
		b.waitState(t, id, "succeeded")
		var store string
		require.NoError(t, b.admin.QueryRow(ctx, `SELECT store_id::text FROM jobq.job_history WHERE id = $1`, id).Scan(&store))
		require.Equal(t, storeA, store, "store_id is the store passed to Enqueue")
		require.Equal(t, 1, b.count(t, `SELECT count(*) FROM jobq.job_history WHERE id = $1 AND payload = $2::jsonb`, id,
			`{"storeId": "`+storeA+`", "targetDate": "2026-05-05"}`), "the payload names the store too, as fan_out writes it")
	})
	t.Run("StoreTaskRefusesAnEmptyStore", func(t *testing.T) {
		_, err := aggregateTask.Enqueue(ctx, b.pool, "", AggregateDailySalesForStore{TargetDate: "2026-05-05"}, nil)
		require.ErrorIs(t, err, runner.ErrPayloadInvalid)
		require.Equal(t, 0, b.count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'aggregate-daily-sales-for-store' AND store_id IS NULL`))
	})
	t.Run("UndecodablePayloadDiesAtOnce", func(t *testing.T) {
		// The runner declared greet with the contract of Greeting: the engine refuses a payload
		// that breaks it before any runner sees it.
		_, err := b.client.Enqueue(ctx, "greet", map[string]any{"name": "Ada", "count": "three"}, jobq.EnqueueOptions{MaxAttempts: 5})
		require.ErrorIs(t, err, jobq.ErrPayloadInvalid)
		require.ErrorContains(t, err, `key count must be an integer, not "three"`)
		// An integer too large for Go's int keeps the contract and still does not decode.
		id := b.enqueue(t, "greet", json.RawMessage(`{"name": "Ada", "count": 99999999999999999999}`), jobq.EnqueueOptions{MaxAttempts: 5})
		row := b.waitState(t, id, "dead")
		require.Equal(t, runner.ErrPayloadInvalid.Code, row.ErrorCode)
		require.Equal(t, 1, row.Attempt)
	})
}

// gwtProgram is the start of every program the compile tests build: the seed's task
// declarations, written once in Go.
const gwtProgram = `package main

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

type AggregateDailySalesForStore struct {
	TargetDate string ` + "`json:\"targetDate\"`" + `
}

type ExpireTentativeForStore struct{}

var aggregateDailySalesForStore = runner.NewStoreTask[AggregateDailySalesForStore](
	"aggregate-daily-sales-for-store", jobq.EnqueueOptions{MaxAttempts: 25})

var _ = pgx.Identifier{}
var _ = context.Background

func main() {
	ctx := context.Background()
	var db jobq.DB
	storeID, targetDate := "6f1c0a56-59b4-4d3c-9a43-0d8c3f0e5a11", "2026-05-05"
	_, _ = storeID, targetDate
	_, _ = ctx, db
`

// buildProgram compiles body (after gwtProgram) as a main package inside the module and returns
// the build's output and error.
func buildProgram(t *testing.T, body string) (string, error) {
	t.Helper()
	return proctest.Compile(t, gwtProgram+body+"\n}\n")
}

// GWT-1: enqueueJob('aggregate-daily-sales-for-store', {storeId, targetDate}) compiles.
func TestGWT1TypedEnqueueCompiles(t *testing.T) {
	t.Parallel()
	out, err := buildProgram(t, `
	_, _ = aggregateDailySalesForStore.Enqueue(ctx, db, storeID,
		AggregateDailySalesForStore{TargetDate: targetDate},
		&jobq.EnqueueOptions{JobKey: "aggregate_daily_sales:" + storeID + ":" + targetDate, JobKeyMode: jobq.JobKeyPreserveRunAt})
	var r *runner.Runner
	runner.HandleStore(r, aggregateDailySalesForStore,
		func(ctx context.Context, tx pgx.Tx, job *runner.Job[AggregateDailySalesForStore]) error {
			_ = job.Store() + job.Args.TargetDate
			return nil
		})`)
	require.NoError(t, err, out)
}

// GWT-2: an enqueue that leaves out the store id, a payload that misspells a field or belongs
// to another task does not compile, and the compiler names the problem.
func TestGWT2BrokenPayloadDoesNotCompile(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		want       []string
	}{
		{"EnqueueWithoutStoreID", `
	_, _ = aggregateDailySalesForStore.Enqueue(ctx, db, AggregateDailySalesForStore{TargetDate: targetDate}, nil)`,
			[]string{"not enough arguments in call to aggregateDailySalesForStore.Enqueue"}},
		{"SpecWithoutStoreID", `
	_, _ = aggregateDailySalesForStore.Spec(AggregateDailySalesForStore{TargetDate: targetDate}, nil)`,
			[]string{"not enough arguments in call to aggregateDailySalesForStore.Spec"}},
		{"MisspelledField", `
	_, _ = aggregateDailySalesForStore.Enqueue(ctx, db, storeID, AggregateDailySalesForStore{TargetDat: targetDate}, nil)`,
			[]string{"unknown field TargetDat"}},
		{"AnotherTasksPayload", `
	_, _ = aggregateDailySalesForStore.Enqueue(ctx, db, storeID, ExpireTentativeForStore{}, nil)`,
			[]string{"cannot use", "ExpireTentativeForStore"}},
		{"UntypedMap", `
	_, _ = aggregateDailySalesForStore.Enqueue(ctx, db, storeID, map[string]any{"targetDate": targetDate}, nil)`,
			[]string{"cannot use", "map[string]any"}},
		{"HandlerReadsAFieldThePayloadLacks", `
	var r *runner.Runner
	runner.HandleStore(r, aggregateDailySalesForStore,
		func(ctx context.Context, tx pgx.Tx, job *runner.Job[AggregateDailySalesForStore]) error {
			_ = job.Args.StoreName
			return nil
		})`,
			[]string{"job.Args.StoreName undefined", "has no field or method StoreName"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, err := buildProgram(t, c.body)
			require.Error(t, err, "the build must fail")
			for _, w := range c.want {
				require.Contains(t, out, w)
			}
			require.NotContains(t, strings.ToLower(out), "no required module", "failed for the right reason")
		})
	}
}
