package salon_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/proctest"
)

// gwtProgram is the start of a program that uses the salon's typed tasks the way the API does;
// the compile tests append a body and close main.
const gwtProgram = `package main

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/examples/salon"
)

var (
	_ = jobq.JobKeyPreserveRunAt
	_ pgx.Tx
)

func main() {
	ctx := context.Background()
	var db jobq.DB
	storeID, targetDate := "0b7d1e6e-2f0a-4a5e-8d0c-3c1f4a9b6e21", "2026-05-05"
	_, _, _, _ = ctx, db, storeID, targetDate
`

// build compiles gwtProgram+body and returns the compiler's output and error.
func build(t *testing.T, body string) (string, error) {
	t.Helper()
	return proctest.Compile(t, gwtProgram+body+"\n}\n")
}

// GWT-1. Given the salon's task catalogue, when the API enqueues
// aggregate-daily-sales-for-store with {storeId, targetDate}, then it compiles.
func TestGWT01TypedEnqueueCompiles(t *testing.T) {
	t.Parallel()
	out, err := build(t, `
	_, _ = salon.AggregateDailySalesForStoreTask.Enqueue(ctx, db, storeID,
		salon.AggregateDailySalesForStore{TargetDate: targetDate},
		&jobq.EnqueueOptions{JobKey: "aggregate_daily_sales:" + storeID + ":" + targetDate})`)
	require.NoError(t, err, out)
}

// GWT-2. Given the same catalogue, when an enqueue of a store task leaves out the store id (the
// store is an argument of Enqueue, never a payload field that may be left zero), or its payload
// misspells a field, belongs to another task or is an untyped map, then the build fails and the
// compiler names the problem.
func TestGWT02BrokenPayloadDoesNotCompile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"EnqueueWithoutStoreID", `
	_, _ = salon.AggregateDailySalesForStoreTask.Enqueue(ctx, db, salon.AggregateDailySalesForStore{TargetDate: targetDate}, nil)`,
			[]string{"not enough arguments in call to salon.AggregateDailySalesForStoreTask.Enqueue"}},
		{"StoreIDInThePayload", `
	_, _ = salon.AggregateDailySalesForStoreTask.Enqueue(ctx, db, storeID, salon.AggregateDailySalesForStore{StoreID: storeID, TargetDate: targetDate}, nil)`,
			[]string{"unknown field StoreID"}},
		{"MisspelledField", `
	_, _ = salon.AggregateDailySalesForStoreTask.Enqueue(ctx, db, storeID, salon.AggregateDailySalesForStore{TargetDat: targetDate}, nil)`,
			[]string{"unknown field TargetDat"}},
		{"AnotherTasksPayload", `
	_, _ = salon.AggregateDailySalesForStoreTask.Enqueue(ctx, db, storeID, salon.ExpireTentativeForStore{}, nil)`,
			[]string{"cannot use", "salon.ExpireTentativeForStore"}},
		{"UntypedMap", `
	_, _ = salon.AggregateDailySalesForStoreTask.Enqueue(ctx, db, storeID, map[string]any{"storeId": storeID, "targetDate": targetDate}, nil)`,
			[]string{"cannot use", "map[string]any"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, err := build(t, c.body)
			require.Error(t, err, "the build must fail")
			for _, w := range c.want {
				require.Contains(t, out, w)
			}
			require.NotContains(t, strings.ToLower(out), "no required module", "failed for the right reason")
		})
	}
}
