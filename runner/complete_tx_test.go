package runner_test

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/proctest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.Cleanup()
	os.Exit(code)
}

// Issue 16, point 6: a handler that completes its job in its own transaction (CompleteTx) applies
// its business write exactly once, whenever its worker dies: killed with kill -9 between the
// business write and the commit, neither the write nor the completion holds and the job runs
// again on another worker; killed after the commit, both hold and the job never runs again. The
// business table's counter ends at exactly 1 per job.
func TestCompleteTxCrashAppliesNoEffectTwice(t *testing.T) {
	t.Parallel()
	for _, point := range []string{"before-commit", "after-commit"} {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			_, err := b.admin.Exec(ctx, `
				CREATE TABLE public.tx_effects (job_id bigint PRIMARY KEY, n integer NOT NULL);
				GRANT SELECT, INSERT, UPDATE ON public.tx_effects TO worker_runtime`)
			require.NoError(t, err)
			b.define(t, "tx-effect")
			const n = 3
			ids := make([]int64, n)
			for i := range ids {
				ids[i] = b.enqueue(t, "tx-effect", map[string]int{"i": i}, jobq.EnqueueOptions{})
			}
			bin := proctest.Build(t, "./testdata/txworker")
			url := "WORKER_DATABASE_URL=" + b.db.URL("worker_runtime")
			a := proctest.Start(t, bin, []string{url, "WORKER_ID=tx-a", "CRASH_POINT=" + point})
			proctest.WaitUntil(t, 15*time.Second, "every handler at the crash point", func() bool {
				return len(a.Lines("at crash point")) == n
			})
			a.Signal(syscall.SIGKILL)
			a.Wait(5 * time.Second)

			if point == "after-commit" {
				require.Equal(t, n, b.count(t, `SELECT count(*) FROM jobq.job_history
					WHERE state = 'succeeded' AND attempt = 1 AND locked_by = 'tx-a' AND id = ANY($1)`, ids),
					"the commit completed every job with its business write")
			} else {
				require.Equal(t, 0, b.count(t, `SELECT count(*) FROM public.tx_effects`), "no business write committed")
				require.Equal(t, n, b.count(t, `SELECT count(*) FROM jobq.jobs WHERE state = 'running' AND id = ANY($1)`, ids),
					"no completion committed: the jobs still run under the dead worker's lease")
			}
			proctest.Start(t, bin, []string{url, "WORKER_ID=tx-b"})
			proctest.WaitUntil(t, 20*time.Second, "every job succeeded", func() bool {
				return b.count(t, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded' AND id = ANY($1)`, ids) == n
			})
			if point == "before-commit" {
				require.Equal(t, n, b.count(t, `SELECT count(*) FROM jobq.job_history
					WHERE attempt = 2 AND locked_by = 'tx-b' AND id = ANY($1)`, ids), "each job ran again on tx-b")
			} else {
				// Past the lease (3 s) and a sweep: a job completed in the handler's transaction is
				// never rescued nor run again.
				time.Sleep(5 * time.Second)
			}
			require.Equal(t, n, b.count(t, `SELECT count(*) FROM public.tx_effects WHERE n = 1 AND job_id = ANY($1)`, ids),
				"the business counter is exactly 1 per job")
			require.Equal(t, n, b.count(t, `SELECT count(*) FROM public.tx_effects`))
		})
	}
}
