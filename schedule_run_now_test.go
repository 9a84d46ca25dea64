package jobq_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
	"github.com/jobqdev/jobq/operator"
)

// Fifty operators press "run now" on one schedule at the same instant, each on its own
// connection. The schedule's row lock serialises them, and each applies the concurrency policy to
// the run the one before it left: under forbid exactly one enqueues and the other 49 are refused
// with ErrScheduleOverlap; under replace each cancels the one before it, so exactly one run is
// live and 49 are canceled as replaced; under allow all fifty run. (Two run-nows whose
// transactions start in the same microsecond share the job key schedule:<name>:manual:<now>, so
// under allow they return one job: the live count is that of the distinct ids returned.)
func TestRunScheduleNowHonoursTheConcurrencyPolicyUnderFiftyConcurrentCalls(t *testing.T) {
	t.Parallel()
	const callers = 50
	for _, tc := range []struct {
		policy                  jobq.ConcurrencyPolicy
		enqueued, refused, live int
		replaced                int
	}{
		{jobq.ConcurrencyForbid, 1, callers - 1, 1, 0},
		{jobq.ConcurrencyReplace, callers, 0, 1, callers - 1},
		{jobq.ConcurrencyAllow, callers, 0, -1, 0},
	} {
		t.Run(string(tc.policy), func(t *testing.T) {
			t.Parallel()
			b := testbundle.New(t)
			b.Define(t, "report")
			_, err := b.Worker.Schedule(b.Ctx, jobq.ScheduleDefinition{Name: "nightly", Cron: "0 3 * * *", Task: "report",
				ConcurrencyPolicy: tc.policy})
			require.NoError(t, err)
			pool := b.DB.Pool(t, "jobq_operator", callers)
			op := operator.New(pool)
			// Open every connection first, so the calls start together rather than as each
			// connection comes up.
			conns := make([]func(), 0, callers)
			for range callers {
				c, err := pool.Acquire(b.Ctx)
				require.NoError(t, err)
				conns = append(conns, c.Release)
			}
			for _, release := range conns {
				release()
			}

			start := make(chan struct{})
			var wg sync.WaitGroup
			results := make(chan error, callers)
			ids := make(chan int64, callers)
			for range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					id, err := op.RunScheduleNow(b.Ctx, "nightly")
					if err == nil {
						ids <- id
					}
					results <- err
				}()
			}
			close(start)
			wg.Wait()
			close(results)
			close(ids)

			distinct := map[int64]bool{}
			for id := range ids {
				distinct[id] = true
			}
			if tc.live < 0 {
				tc.live = len(distinct)
			} else {
				require.Len(t, distinct, tc.enqueued, "each run now that enqueued has its own job")
			}
			enqueued, refused := 0, 0
			for err := range results {
				switch {
				case err == nil:
					enqueued++
				case errors.Is(err, jobq.ErrScheduleOverlap):
					refused++
				default:
					t.Fatalf("run now: %v", err)
				}
			}
			require.Equal(t, tc.enqueued, enqueued, "run-nows that enqueued")
			require.Equal(t, tc.refused, refused, "run-nows refused with ErrScheduleOverlap")
			require.Equal(t, tc.live, b.Count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'report'`), "live runs")
			require.Equal(t, tc.replaced, b.Count(t, `SELECT count(*) FROM jobq.job_history WHERE task = 'report' AND state = 'canceled' AND reason = 'replaced'`),
				"runs canceled as replaced")
			require.Equal(t, tc.replaced, b.Count(t, `SELECT count(*) FROM jobq.audit_log WHERE action = 'schedule_replaced'`),
				"each replaced run audited")
			require.Equal(t, tc.enqueued, b.Count(t, `SELECT count(*) FROM jobq.audit_log WHERE action = 'run_schedule_now'`),
				"each run now that enqueued audited, no refused one")
			require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.schedules s JOIN jobq.jobs j ON j.id = s.last_job_id`),
				"the schedule's last run is live")
		})
	}
}
