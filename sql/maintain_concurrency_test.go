package sql_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/engine"
	"github.com/jobqdev/jobq/internal/testbundle"
)

// simClock is a simulated clock shared by the runners of a test: each tick moves it forward.
type simClock struct {
	mu       sync.Mutex
	now, end time.Time
}

// tick advances the clock by step (not past the end) and returns the new time, or false once the
// end was reached.
func (c *simClock) tick(step time.Duration) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.now.Before(c.end) {
		return time.Time{}, false
	}
	c.now = c.now.Add(step)
	if c.now.After(c.end) {
		c.now = c.end
	}
	return c.now, true
}

// simStats is what the simulated runners saw, gathered for the test goroutine.
type simStats struct {
	mu         sync.Mutex
	holders    map[int64]string // epoch → the one worker acquire_leadership gave it to
	maintained int              // fenced maintains that acted
	fencedLive int              // maintains with the epoch just acquired that came back fenced
	stale      int              // maintains with a stale epoch (all must be fenced and write nothing)
	unfenced   int
	problems   []string
}

func (s *simStats) problem(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.problems = append(s.problems, fmt.Sprintf(format, args...))
}

// simMaintain calls jobq._maintain at time at, in a transaction that also reports how many rows
// of the jobq schema the call inserted, updated or deleted: the growth, across the call, of the
// transaction's own counters in pg_stat_xact_all_tables (a backend reports its counters only when
// idle outside a transaction, so within one they move only by what it does).
func simMaintain(ctx context.Context, conn *pgxpool.Conn, worker *string, epoch *int64, at time.Time) (engine.MaintainResult, int64, error) {
	const written = `SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::bigint
		FROM pg_catalog.pg_stat_xact_all_tables WHERE schemaname = 'jobq'`
	var res engine.MaintainResult
	var before, after int64
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, written).Scan(&before); err != nil {
			return err
		}
		var doc []byte
		if err := tx.QueryRow(ctx, `SELECT jobq._maintain($1, $2, $3)`, worker, epoch, at).Scan(&doc); err != nil {
			return err
		}
		if err := json.Unmarshal(doc, &res); err != nil {
			return err
		}
		return tx.QueryRow(ctx, written).Scan(&after)
	})
	return res, after - before, err
}

// TestMaintainThreeRunnersSimulatedHour: three runners, each on its own connection, tick the same
// schedules through one simulated hour. A shared simulated clock advances by random steps of
// 10-90 s; at each tick a runner calls jobq._acquire_leadership(id, '15 seconds', t) and, when it
// got an epoch, jobq._maintain(id, epoch, t); it also calls maintain with a stale epoch (an
// epoch it held before, or one below its current one), and sometimes the unfenced form
// _maintain(NULL, NULL, t), as pg_cron would. The calls of the three interleave for real.
// Every slot of the hour gets exactly one job and one schedule_runs row, no job key appears
// twice, every epoch has one holder, and every maintain with a stale epoch answered fenced and
// wrote nothing.
func TestMaintainThreeRunnersSimulatedHour(t *testing.T) {
	t.Parallel()
	b := testbundle.New(t)
	b.Define(t, "tick")
	// The simulated clock moves 10-90 s at every tick of any runner, also while the others wait
	// for a lock or keep fencing each other, so under load minutes of simulated time can pass
	// without an acting maintain. Real clocks do not jump like that; a backfill window longer
	// than the hour keeps such a stretch from counting as downtime (slots skipped as late, which
	// pgtap/schedules covers), and every slot must still get exactly one job.
	const window = 2 * time.Hour
	schedules := []jobq.ScheduleDefinition{
		{Name: "every-minute", Cron: "* * * * *", Task: "tick", BackfillWindow: window},
		{Name: "every-five", Cron: "*/5 * * * *", Task: "tick", BackfillWindow: window},
		{Name: "at-seven", Cron: "7 * * * *", Task: "tick", BackfillWindow: window},
		{Name: "tokyo-half-past", Cron: "30 * * * *", Task: "tick", Timezone: "Asia/Tokyo", Payload: map[string]int{"n": 1}, BackfillWindow: window},
	}
	for _, s := range schedules {
		_, err := b.Worker.Schedule(b.Ctx, s)
		require.NoError(t, err)
	}
	var base time.Time
	require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT date_trunc('hour', now()) + interval '1 day' + interval '3 minutes'`).Scan(&base))
	_, err := b.Admin.Exec(b.Ctx, `UPDATE jobq.schedules SET next_slot_at = jobq.cron_next(cron, $1, timezone)`, base)
	require.NoError(t, err)
	end := base.Add(time.Hour)

	clock := &simClock{now: base, end: end}
	stats := &simStats{holders: map[int64]string{}}
	cs := conns(t, b.Admin, 3) // these take p_now: private functions, superuser only
	errs := together(3, func(i int) error {
		conn := cs[i]
		id := fmt.Sprintf("runner-%d", i+1)
		rng := rand.New(rand.NewPCG(2026, uint64(i)))
		var held []int64 // epochs this runner was given, oldest first
		for {
			at, ok := clock.tick(time.Duration(10+rng.IntN(81)) * time.Second)
			if !ok {
				return nil
			}
			var epoch *int64
			if err := conn.QueryRow(b.Ctx, `SELECT jobq._acquire_leadership($1, '15 seconds', $2)`, id, at).Scan(&epoch); err != nil {
				return fmt.Errorf("%s acquire at %s: %w", id, at, err)
			}
			if epoch != nil {
				stats.mu.Lock()
				if h, seen := stats.holders[*epoch]; seen && h != id {
					stats.problems = append(stats.problems, fmt.Sprintf("epoch %d given to %s and to %s", *epoch, h, id))
				}
				stats.holders[*epoch] = id
				stats.mu.Unlock()
				if len(held) == 0 || held[len(held)-1] != *epoch {
					held = append(held, *epoch)
				}
				res, written, err := simMaintain(b.Ctx, conn, &id, epoch, at)
				if err != nil {
					return fmt.Errorf("%s maintain(%d) at %s: %w", id, *epoch, at, err)
				}
				if res.Fenced && written != 0 || res.SlotsEnqueued > 0 && written == 0 {
					// The second: the measurement itself would be broken.
					stats.problem("%s maintain(%d) at %s: fenced=%v, %d slots enqueued, %d rows written",
						id, *epoch, at, res.Fenced, res.SlotsEnqueued, written)
				}
				stats.mu.Lock()
				if res.Fenced {
					stats.fencedLive++ // another runner took over (at a later simulated time) in between
				} else {
					stats.maintained++
				}
				stats.mu.Unlock()
			}
			// A stale epoch: one this runner held before, or one below the epoch it holds now.
			var stale []int64
			for _, e := range held {
				if epoch == nil || e != *epoch {
					stale = append(stale, e)
				}
			}
			if epoch != nil && *epoch > 1 {
				stale = append(stale, *epoch-1)
			}
			if len(stale) > 0 {
				e := stale[rng.IntN(len(stale))]
				res, written, err := simMaintain(b.Ctx, conn, &id, &e, at)
				if err != nil {
					return fmt.Errorf("%s stale maintain(%d) at %s: %w", id, e, at, err)
				}
				stats.mu.Lock()
				stats.stale++
				stats.mu.Unlock()
				if !res.Fenced || written != 0 {
					stats.problem("%s maintain with stale epoch %d at %s: fenced=%v, %d rows written", id, e, at, res.Fenced, written)
				}
			}
			if rng.IntN(3) == 0 {
				res, _, err := simMaintain(b.Ctx, conn, nil, nil, at)
				if err != nil {
					return fmt.Errorf("%s unfenced maintain at %s: %w", id, at, err)
				}
				if res.Fenced {
					stats.problem("unfenced maintain answered fenced")
				}
				stats.mu.Lock()
				stats.unfenced++
				stats.mu.Unlock()
			}
		}
	})
	requireNoErrors(t, errs, "simulated runners")
	// The last tick may have gone to a runner that did not lead: a final unfenced maintain at the
	// end of the hour, as pg_cron would make, handles what is due then.
	_, _, err = simMaintain(b.Ctx, cs[0], nil, nil, end)
	require.NoError(t, err)

	t.Logf("epochs %d, acting maintains %d, fenced right after acquire %d, stale maintains %d (all fenced), unfenced %d",
		len(stats.holders), stats.maintained, stats.fencedLive, stats.stale, stats.unfenced)
	require.Empty(t, stats.problems)
	require.Greater(t, len(stats.holders), 1, "the leadership changed hands")
	require.Positive(t, stats.stale, "stale epochs were tried")
	require.Positive(t, stats.maintained)

	// A slot whose enqueue failed is skipped with reason error and the error in detail; show
	// them before the counts, which such a skip would break.
	rows, err := b.Admin.Query(b.Ctx, `SELECT schedule || ' ' || slot_at || ' ' || outcome || ' ' || coalesce(reason, '') || ' ' || coalesce(detail::text, '')
		FROM jobq.schedule_runs WHERE outcome <> 'enqueued' ORDER BY slot_at`)
	require.NoError(t, err)
	skipped, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Empty(t, skipped, "no slot skipped")

	for _, s := range schedules {
		tz := s.Timezone
		if tz == "" {
			tz = "UTC"
		}
		var slots []time.Time
		rows, err := b.Admin.Query(b.Ctx, `SELECT s FROM jobq.cron_slots($1, $2, $3, $4) AS s`, s.Cron, base, end, tz)
		require.NoError(t, err)
		slots, err = pgx.CollectRows(rows, pgx.RowTo[time.Time])
		require.NoError(t, err)
		require.NotEmpty(t, slots)

		var runs, enqueued, withJob int
		var first, last time.Time
		require.NoError(t, b.Admin.QueryRow(b.Ctx, `
			SELECT count(*), count(*) FILTER (WHERE outcome = 'enqueued'), count(DISTINCT job_id), min(slot_at), max(slot_at)
			FROM jobq.schedule_runs WHERE schedule = $1`, s.Name).Scan(&runs, &enqueued, &withJob, &first, &last))
		require.Equal(t, len(slots), runs, "%s: one schedule_runs row per slot", s.Name)
		require.Equal(t, len(slots), enqueued, "%s: every slot enqueued", s.Name)
		require.Equal(t, len(slots), withJob, "%s: a job of its own per slot", s.Name)
		require.True(t, first.Equal(slots[0]) && last.Equal(slots[len(slots)-1]), "%s: runs from %s to %s", s.Name, first, last)
		require.Equal(t, len(slots), b.Count(t, `
			SELECT count(*) FROM jobq.schedule_runs r JOIN unnest($2::timestamptz[]) AS s(at) ON s.at = r.slot_at
			WHERE r.schedule = $1`, s.Name, slots), "%s: the runs are the cron slots", s.Name)

		jobs := b.Count(t, `
			SELECT count(*) FROM (SELECT job_key, payload FROM jobq.jobs UNION ALL SELECT job_key, payload FROM jobq.job_history) j
			WHERE job_key LIKE 'schedule:' || $1 || ':%'
			  AND (payload->>'slotAt')::timestamptz = ANY ($2::timestamptz[])`, s.Name, slots)
		require.Equal(t, len(slots), jobs, "%s: exactly one job per slot, with the slot in its payload", s.Name)
	}
	require.Zero(t, b.Count(t, `
		SELECT count(*) FROM (
			SELECT job_key FROM (SELECT job_key FROM jobq.jobs UNION ALL SELECT job_key FROM jobq.job_history) j
			WHERE job_key IS NOT NULL GROUP BY job_key HAVING count(*) > 1) d`), "no job key twice")
	require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.schedule_runs WHERE outcome <> 'enqueued'`), "no slot skipped")
	require.Equal(t, len(stats.holders), b.Count(t, `SELECT count(*) FROM jobq.audit_log WHERE action = 'leader_changed'`),
		"one audited leader change per epoch")
}
