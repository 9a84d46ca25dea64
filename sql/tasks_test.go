package sql_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
)

// A declared task's defaults apply to every enqueue that leaves an option zero, through Enqueue
// and EnqueueMany alike; an option that is set wins.
func TestTaskDefaultsApply(t *testing.T) {
	t.Parallel()
	b := testbundle.New(t)
	priority := int16(-4)
	require.NoError(t, b.Worker.DefineTask(b.Ctx, jobq.TaskDefinition{
		Name: "send-invoice-email", Queue: "mail", Priority: &priority, MaxAttempts: 6, Timeout: 2 * time.Minute,
		BackoffBase: 3 * time.Second, BackoffMax: 4 * time.Minute, PayloadSchema: map[string]string{"invoiceId": "integer"},
		Description: "Mails an invoice.", AppEnqueue: true,
	}))
	var description string
	require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT description FROM jobq.tasks WHERE name = 'send-invoice-email'`).Scan(&description))
	require.Equal(t, "Mails an invoice.", description)

	type limits struct{ Timeout, BackoffBase, BackoffMax string }
	limitsOf := func(id int64) limits {
		var l limits
		require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT timeout::text, backoff_base::text, backoff_max::text FROM jobq.jobs WHERE id = $1`, id).
			Scan(&l.Timeout, &l.BackoffBase, &l.BackoffMax))
		return l
	}
	one := b.Enqueue(t, testbundle.EnqueueArgs{Task: "send-invoice-email", Payload: map[string]int{"invoiceId": 1}})
	many, err := b.App.EnqueueMany(b.Ctx, []jobq.JobSpec{{Task: "send-invoice-email", Payload: map[string]int{"invoiceId": 2}}})
	require.NoError(t, err)
	for _, id := range []int64{one, many[0]} {
		row := b.Live(t, id)
		require.Equal(t, "mail", row.Queue)
		require.Equal(t, int16(-4), row.Priority)
		require.Equal(t, 6, row.MaxAttempts)
		require.Equal(t, limits{"00:02:00", "00:00:03", "00:04:00"}, limitsOf(id))
	}

	set := b.Live(t, b.Enqueue(t, testbundle.EnqueueArgs{Task: "send-invoice-email", Payload: map[string]int{"invoiceId": 3},
		EnqueueOptions: jobq.EnqueueOptions{Queue: "urgent", Priority: 2, MaxAttempts: 1, Timeout: time.Second}}))
	require.Equal(t, "urgent", set.Queue)
	require.Equal(t, int16(2), set.Priority)
	require.Equal(t, 1, set.MaxAttempts)
	require.Equal(t, testbundle.Ptr("00:00:01"), set.Timeout)

	// Declaring again with the same definition changes nothing, not even updated_at.
	var before, after time.Time
	require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT updated_at FROM jobq.tasks WHERE name = 'send-invoice-email'`).Scan(&before))
	require.NoError(t, b.Worker.DefineTask(b.Ctx, jobq.TaskDefinition{
		Name: "send-invoice-email", Queue: "mail", Priority: &priority, MaxAttempts: 6, Timeout: 2 * time.Minute,
		BackoffBase: 3 * time.Second, BackoffMax: 4 * time.Minute, PayloadSchema: map[string]string{"invoiceId": "integer"},
		Description: "Mails an invoice.", AppEnqueue: true,
	}))
	require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT updated_at FROM jobq.tasks WHERE name = 'send-invoice-email'`).Scan(&after))
	require.True(t, before.Equal(after), "an unchanged declaration touched the row")
}

// A store-scoped task takes its store from the payload's storeId when the enqueue names none.
func TestStoreTaskTakesItsStoreFromThePayload(t *testing.T) {
	t.Parallel()
	b := testbundle.New(t)
	b.DefineStore(t, "expire-tentative-for-store")
	var id int64
	require.NoError(t, b.InStore(b.AppPool, testbundle.StoreID, func(c *jobq.Client) error {
		var err error
		id, err = c.Enqueue(b.Ctx, "expire-tentative-for-store", map[string]string{"storeId": testbundle.StoreID}, jobq.EnqueueOptions{})
		return err
	}))
	require.Equal(t, testbundle.Ptr(testbundle.StoreID), b.Live(t, id).StoreID)

	// A store_id that differs from the payload's storeId is refused.
	err := b.InStore(b.AppPool, testbundle.StoreID, func(c *jobq.Client) error {
		_, err := c.Enqueue(b.Ctx, "expire-tentative-for-store", map[string]string{"storeId": "9a8b7c6d-0000-4000-8000-000000000001"},
			jobq.EnqueueOptions{StoreID: testbundle.StoreID})
		return err
	})
	require.ErrorIs(t, err, jobq.ErrPayloadInvalid)
	require.ErrorContains(t, err, "differs from store_id")
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.jobs`))
}
