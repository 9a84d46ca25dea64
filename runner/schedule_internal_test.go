package runner

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
)

// The schedule sync, given only the engine's call, the schedules and a logger, declares each
// schedule in jobq.schedules, logs each with its next slot once however often it runs, and
// names the schedule the engine refuses.
func TestScheduleSync(t *testing.T) {
	t.Parallel()
	b := setupUnit(t)
	ctx := context.Background()
	require.NoError(t, jobq.NewClient(b.admin).DefineTask(ctx, jobq.TaskDefinition{Name: "nightly"}))
	s := &scheduleSync{engine: b.client, log: b.log, schedules: []jobq.ScheduleDefinition{
		{Name: "nightly-report", Cron: "0 3 * * *", Task: "nightly"},
		{Name: "hourly-report", Cron: "@hourly", Task: "nightly"},
	}}
	require.NoError(t, s.declare(ctx))
	require.NoError(t, s.declare(ctx))
	var n int
	require.NoError(t, b.admin.QueryRow(ctx, `SELECT count(*) FROM jobq.schedules
		WHERE (name, cron, task) IN (('nightly-report', '0 3 * * *', 'nightly'), ('hourly-report', '@hourly', 'nightly'))`).Scan(&n))
	require.Equal(t, 2, n)
	logged := b.logs.lines("schedule declared")
	require.Len(t, logged, 2, "logged once, not at every declaration")
	next, err := time.Parse(time.RFC3339, logged[0]["nextSlotAt"].(string))
	require.NoError(t, err)
	require.Equal(t, 3, next.Hour())

	bad := &scheduleSync{engine: b.client, log: b.log, schedules: []jobq.ScheduleDefinition{
		{Name: "broken", Cron: "61 * * * *", Task: "nightly"},
	}}
	err = bad.declare(ctx)
	require.ErrorIs(t, err, jobq.ErrInvalidCron)
	require.ErrorContains(t, err, `declare schedule "broken"`)
}
