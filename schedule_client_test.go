package jobq_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/engine"
	"github.com/jobqdev/jobq/internal/testbundle"
	"github.com/jobqdev/jobq/operator"
)

func TestClientScheduleIsIdempotentAndMapsErrors(t *testing.T) {
	t.Parallel()
	b := testbundle.New(t)
	b.Define(t, "nightly-report")
	b.DefineStore(t, "per-store")
	def := jobq.ScheduleDefinition{Name: "nightly", Cron: "0 3 * * *", Task: "nightly-report", Payload: map[string]string{"kind": "sales"},
		Timezone: "Asia/Tokyo", ConcurrencyPolicy: jobq.ConcurrencyForbid}
	next, err := b.Worker.Schedule(b.Ctx, def)
	require.NoError(t, err)
	require.Equal(t, 3, next.In(mustZone(t, "Asia/Tokyo")).Hour(), "the slot is 03:00 in Tokyo")
	require.True(t, next.After(b.DBNow(t)))

	var updated time.Time
	var payload, policy, window, slotKey string
	read := func() {
		require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT updated_at, payload::text, concurrency_policy, backfill_window::text, slot_key
			FROM jobq.schedules WHERE name = 'nightly'`).Scan(&updated, &payload, &policy, &window, &slotKey))
	}
	read()
	first := updated
	require.JSONEq(t, `{"kind": "sales"}`, payload)
	require.Equal(t, "forbid", policy)
	require.Equal(t, "00:15:00", window, "the default backfill window")
	require.Equal(t, "slotAt", slotKey)

	again, err := b.Worker.Schedule(b.Ctx, def)
	require.NoError(t, err)
	require.True(t, again.Equal(next))
	read()
	require.True(t, updated.Equal(first), "declaring the same schedule again changes nothing")

	def.Payload = map[string]string{"kind": "stock"}
	def.BackfillWindow = time.Hour
	again, err = b.Worker.Schedule(b.Ctx, def)
	require.NoError(t, err)
	require.True(t, again.Equal(next), "a change of payload keeps the schedule's place")
	read()
	require.JSONEq(t, `{"kind": "stock"}`, payload)
	require.Equal(t, "01:00:00", window)

	for _, tc := range []struct {
		def  jobq.ScheduleDefinition
		want *jobq.Error
	}{
		{jobq.ScheduleDefinition{Name: "bad", Cron: "61 * * * *", Task: "nightly-report"}, jobq.ErrInvalidCron},
		{jobq.ScheduleDefinition{Name: "bad", Cron: "0 0 30 2 *", Task: "nightly-report"}, jobq.ErrInvalidCron},
		{jobq.ScheduleDefinition{Name: "bad", Cron: "@daily", Task: "nightly-report", Timezone: "Mars/Olympus"}, jobq.ErrInvalidTimezone},
		{jobq.ScheduleDefinition{Name: "bad", Cron: "@daily", Task: "nobody"}, jobq.ErrUnknownTask},
		{jobq.ScheduleDefinition{Name: "bad", Cron: "@daily", Task: "per-store"}, jobq.ErrInvalidArgument},
		{jobq.ScheduleDefinition{Name: "Bad Name", Cron: "@daily", Task: "nightly-report"}, jobq.ErrInvalidArgument},
		{jobq.ScheduleDefinition{Name: "bad", Cron: "@daily", Task: "nightly-report", Payload: []int{1}}, jobq.ErrPayloadNotObject},
	} {
		_, err := b.Worker.Schedule(b.Ctx, tc.def)
		require.ErrorIs(t, err, tc.want, "%+v", tc.def)
	}
	require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.schedules`), "refused declarations wrote nothing")

	operator := jobq.NewClient(b.DB.Pool(t, "jobq_operator", 1))
	require.ErrorIs(t, operator.Unschedule(b.Ctx, "nope"), jobq.ErrUnknownSchedule)
	require.NoError(t, operator.Unschedule(b.Ctx, "nightly"))
	require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.schedules`))
}

func TestClientWorkersAndLeadership(t *testing.T) {
	t.Parallel()
	b := testbundle.New(t)
	ctx := b.Ctx
	// A setting in another interval syntax: PostgreSQL parses it, not Go.
	_, err := b.Admin.Exec(ctx, `SELECT jobq.set_setting('poll_interval', '00:00:00.25')`)
	require.NoError(t, err)
	settings, err := engine.New(b.WorkerPool).RegisterWorker(ctx, engine.WorkerInfo{ID: "w-a", Node: "host-1", PID: 42, Queues: []string{"default"}, Concurrency: 4, Version: "test"})
	require.NoError(t, err)
	for name, want := range map[string]time.Duration{
		"worker_heartbeat_interval": 5 * time.Second, "worker_timeout": 30 * time.Second, "leader_ttl": 15 * time.Second,
		"maintain_interval": time.Second, "poll_interval": 250 * time.Millisecond, "default_lease": 30 * time.Second,
	} {
		got, ok := settings.Interval(name)
		require.True(t, ok, name)
		require.Equal(t, want, got, name)
	}
	require.Equal(t, "25", settings.Values["default_max_attempts"])
	_, ok := settings.Interval("default_max_attempts")
	require.False(t, ok, "an integer setting is not an interval")

	_, err = engine.New(b.WorkerPool).RegisterWorker(ctx, engine.WorkerInfo{ID: "w-b", Node: "host-2", Queues: nil, Concurrency: 1})
	require.ErrorIs(t, err, jobq.ErrInvalidArgument, "queues are required")
	_, err = engine.New(b.WorkerPool).RegisterWorker(ctx, engine.WorkerInfo{ID: "w-b", Node: "host-2", Queues: []string{"default"}, Concurrency: 1})
	require.NoError(t, err)

	state, _, err := engine.New(b.WorkerPool).WorkerHeartbeat(ctx, "w-a", 3)
	require.NoError(t, err)
	require.Equal(t, engine.WorkerActive, state)
	require.Equal(t, 3, b.Count(t, `SELECT running FROM jobq.workers WHERE id = 'w-a'`))
	_, _, err = engine.New(b.WorkerPool).WorkerHeartbeat(ctx, "w-nobody", 0)
	require.ErrorIs(t, err, jobq.ErrUnknownWorker)

	ops := operator.New(b.DB.Pool(t, "jobq_operator", 1))
	require.NoError(t, ops.DrainWorker(ctx, "w-a"))
	state, _, err = engine.New(b.WorkerPool).WorkerHeartbeat(ctx, "w-a", 0)
	require.NoError(t, err)
	require.Equal(t, engine.WorkerDraining, state)
	require.NoError(t, ops.ResumeWorker(ctx, "w-a"))
	state, _, err = engine.New(b.WorkerPool).WorkerHeartbeat(ctx, "w-a", 0)
	require.NoError(t, err)
	require.Equal(t, engine.WorkerActive, state)
	n, err := ops.DetachWorker(ctx, "w-a")
	require.NoError(t, err)
	require.Zero(t, n, "w-a held no lease")
	state, _, err = engine.New(b.WorkerPool).WorkerHeartbeat(ctx, "w-a", 0)
	require.NoError(t, err)
	require.Equal(t, engine.WorkerDetached, state)
	require.ErrorIs(t, ops.DrainWorker(ctx, "w-nobody"), jobq.ErrUnknownWorker)

	// A detached worker does not lead; resumed, it may.
	_, leads, err := engine.New(b.WorkerPool).AcquireLeadership(ctx, "w-a", 0)
	require.NoError(t, err)
	require.False(t, leads, "a detached worker is refused the leadership")
	require.NoError(t, ops.ResumeWorker(ctx, "w-a"))

	// Leadership: one leader, fenced by its epoch.
	epoch, leads, err := engine.New(b.WorkerPool).AcquireLeadership(ctx, "w-a", 0)
	require.NoError(t, err)
	require.True(t, leads)
	require.Equal(t, int64(1), epoch)
	_, leads, err = engine.New(b.WorkerPool).AcquireLeadership(ctx, "w-b", time.Minute)
	require.NoError(t, err)
	require.False(t, leads, "w-a holds a live lease")
	renewed, leads, err := engine.New(b.WorkerPool).AcquireLeadership(ctx, "w-a", time.Minute)
	require.NoError(t, err)
	require.True(t, leads)
	require.Equal(t, epoch, renewed, "a renewal keeps the epoch")
	_, _, err = engine.New(b.WorkerPool).AcquireLeadership(ctx, "w-a", -time.Second)
	require.NoError(t, err, "a non-positive ttl means the default")

	res, err := engine.New(b.WorkerPool).Maintain(ctx, "w-a", epoch)
	require.NoError(t, err)
	require.False(t, res.Fenced)
	require.Equal(t, epoch, *res.Epoch)
	res, err = engine.New(b.WorkerPool).Maintain(ctx, "w-b", epoch)
	require.NoError(t, err)
	require.True(t, res.Fenced, "w-b does not lead")
	require.Equal(t, "w-a", *res.Holder)
	require.Equal(t, epoch, res.CurrentEpoch)
	res, err = engine.New(b.WorkerPool).Maintain(ctx, "", 0)
	require.NoError(t, err)
	require.False(t, res.Fenced, "unfenced")
	require.Nil(t, res.Epoch)

	// A clean exit hands the leadership over at once.
	require.NoError(t, engine.New(b.WorkerPool).DeregisterWorker(ctx, "w-a"))
	require.Equal(t, "stopped", queryText(t, b, `SELECT state FROM jobq.workers WHERE id = 'w-a'`))
	next, leads, err := engine.New(b.WorkerPool).AcquireLeadership(ctx, "w-b", time.Minute)
	require.NoError(t, err)
	require.True(t, leads)
	require.Equal(t, epoch+1, next)
	res, err = engine.New(b.WorkerPool).Maintain(ctx, "w-a", epoch)
	require.NoError(t, err)
	require.True(t, res.Fenced, "the old epoch is fenced")
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	return loc
}

func queryText(t *testing.T, b *testbundle.Bundle, query string, args ...any) string {
	t.Helper()
	var s string
	require.NoError(t, b.Admin.QueryRow(b.Ctx, query, args...).Scan(&s))
	return s
}
