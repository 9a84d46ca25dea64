package sql_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
)

var jobKeyModes = []jobq.JobKeyMode{jobq.JobKeyReplace, jobq.JobKeyPreserveRunAt, jobq.JobKeyUnsafeDedupe}

type keyStormOptions struct {
	Key   string
	Mode  jobq.JobKeyMode
	Conns []*pgxpool.Conn // one enqueuer per connection
	Base  int             // enqueuer i sends payload {"n": Base+i}
}

// keyStorm releases one enqueuer per connection at the same moment, each enqueuing Key under Mode
// with its own payload, and returns the ids they got. Any error fails the test.
func keyStorm(t *testing.T, b *testbundle.Bundle, opts keyStormOptions) []int64 {
	t.Helper()
	ids := make([]int64, len(opts.Conns))
	errs := together(len(opts.Conns), func(i int) error {
		var err error
		ids[i], err = jobq.NewClient(opts.Conns[i]).Enqueue(b.Ctx, "keyed", testbundle.Payload{N: opts.Base + i},
			jobq.EnqueueOptions{JobKey: opts.Key, JobKeyMode: opts.Mode})
		return err
	})
	requireNoErrors(t, errs, fmt.Sprintf("enqueue of key %s (%s)", opts.Key, opts.Mode))
	for i, id := range ids {
		require.NotZero(t, id, "enqueuer %d got no id", i)
		require.Equal(t, ids[0], id, "enqueuers 0 and %d of key %s got different jobs", i, opts.Key)
	}
	return ids
}

// keyed returns the one live job holding key, failing the test when there is not exactly one.
func keyed(t *testing.T, b *testbundle.Bundle, key string) testbundle.JobRow {
	t.Helper()
	got := b.Rows(t, "jobs", "job_key = $1", key)
	require.Len(t, got, 1, "live jobs with key %s", key)
	return got[0]
}

// TestJobKeyEnqueueStorm: 50 connections enqueue one job key at the same moment, round after
// round, in each mode. They all get the one job's id, there is one live job with the key, and the
// job is what the mode promises.
func TestJobKeyEnqueueStorm(t *testing.T) {
	t.Parallel()
	const enqueuers, rounds = 50, 6

	for _, mode := range jobKeyModes {
		t.Run(camel(string(mode)), func(t *testing.T) {
			t.Parallel()
			b := testbundle.NewWith(t, testbundle.Options{WorkerConns: enqueuers + 2})
			b.Define(t, "keyed")
			cs := conns(t, b.WorkerPool, enqueuers) // keyed system jobs: runners' enqueues (applications may not key them)

			for round := range rounds {
				key := fmt.Sprintf("%s-%d", mode, round)
				// Odd rounds find a waiting job with the key, due in an hour; even rounds race to insert it.
				var existing *testbundle.JobRow
				if round%2 == 1 {
					id := b.Enqueue(t, testbundle.EnqueueArgs{Task: "keyed", Payload: testbundle.Payload{N: -1},
						EnqueueOptions: jobq.EnqueueOptions{JobKey: key, JobKeyMode: mode, Delay: time.Hour}})
					existing = testbundle.Ptr(b.Live(t, id))
				}

				ids := keyStorm(t, b, keyStormOptions{Key: key, Mode: mode, Conns: cs})
				job := keyed(t, b, key)
				require.Equal(t, ids[0], job.ID, "round %d", round)
				require.Equal(t, "queued", job.State, "round %d", round)
				require.Zero(t, job.Attempt, "round %d", round)
				n := job.PayloadN(t)

				switch {
				case existing != nil:
					require.Equal(t, existing.ID, job.ID, "round %d: the waiting job keeps its id", round)
					if mode == jobq.JobKeyUnsafeDedupe {
						require.Equal(t, -1, n, "round %d: unsafe_dedupe changed the waiting job", round)
						require.Equal(t, existing.RunAt, job.RunAt, "round %d", round)
					} else {
						require.True(t, n >= 0 && n < enqueuers, "round %d: payload %d is none of the storm's", round, n)
					}
					if mode == jobq.JobKeyPreserveRunAt {
						require.Equal(t, existing.RunAt, job.RunAt, "round %d: preserve_run_at moved run_at", round)
					}
					if mode == jobq.JobKeyReplace {
						require.True(t, job.RunAt.Before(existing.RunAt), "round %d: replace kept the old run_at", round)
						require.LessOrEqual(t, job.RunAt, b.DBNow(t), "round %d: replace did not take the new run_at", round)
					}
				default:
					require.True(t, n >= 0 && n < enqueuers, "round %d: payload %d is none of the storm's", round, n)
				}

				if mode == jobq.JobKeyUnsafeDedupe {
					// A later enqueue finds the job and leaves it as it is.
					again, err := b.Worker.Enqueue(b.Ctx, "keyed", testbundle.Payload{N: 999},
						jobq.EnqueueOptions{JobKey: key, JobKeyMode: mode})
					require.NoError(t, err)
					require.Equal(t, job.ID, again)
					after := keyed(t, b, key)
					require.Equal(t, n, after.PayloadN(t), "round %d: a later unsafe_dedupe changed the payload", round)
					require.Equal(t, job.RunAt, after.RunAt, "round %d", round)
				}

				require.Equal(t, round+1, b.Count(t, `SELECT count(*) FROM jobq.jobs`),
					"round %d: the storms left extra live jobs", round)
				require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.job_history`), "round %d", round)
			}
		})
	}
}

// TestJobKeyEnqueueManyOverlap: 10 connections each send batches of the same 100 keys, shuffled
// differently, at the same time. _enqueue_keyed takes rows in key order so that overlapping
// batches never wait on each other in a cycle: no batch may fail with a deadlock (40P01), every key
// ends with exactly one live job, and every batch reports that job's id at the key's position.
func TestJobKeyEnqueueManyOverlap(t *testing.T) {
	t.Parallel()

	for _, tc := range []struct {
		name string
		mode func(sender, batch, key int) jobq.JobKeyMode
	}{
		// Each batch uses one mode; the senders use all three at once.
		{"OneModePerBatch", func(sender, batch, _ int) jobq.JobKeyMode {
			return jobKeyModes[(sender+batch)%len(jobKeyModes)]
		}},
		// The keys of one batch use different modes (replace and preserve_run_at both lock the
		// waiting job they update).
		{"ModesMixedInBatch", func(sender, batch, key int) jobq.JobKeyMode {
			return jobKeyModes[(sender+batch+key)%2]
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const senders, keys, batches = 10, 100, 8
			b := testbundle.NewWith(t, testbundle.Options{WorkerConns: senders + 2})
			b.Define(t, "keyed")
			cs := conns(t, b.WorkerPool, senders) // keyed system jobs: runners' enqueues (applications may not key them)

			type sent struct {
				keys []string
				ids  []int64
			}
			results := make([][]sent, senders)
			// The first failure stops the other senders, so a deadlock fails the test at once
			// instead of after every sender has waited out its own deadlock_timeout.
			ctx, stop := context.WithCancel(b.Ctx)
			defer stop()
			errs := together(senders, func(i int) error {
				client := jobq.NewClient(cs[i])
				rng := rand.New(rand.NewPCG(uint64(i), 42))
				for batch := range batches {
					order := rng.Perm(keys)
					specs := make([]jobq.JobSpec, keys)
					s := sent{keys: make([]string, keys)}
					for pos, k := range order {
						s.keys[pos] = fmt.Sprintf("key-%03d", k)
						specs[pos] = jobq.JobSpec{Task: "keyed", Payload: testbundle.Payload{N: i*1000 + batch},
							EnqueueOptions: jobq.EnqueueOptions{JobKey: s.keys[pos], JobKeyMode: tc.mode(i, batch, k)}}
					}
					ids, err := client.EnqueueMany(ctx, specs)
					if err != nil {
						if ctx.Err() != nil {
							return nil // another sender failed first
						}
						stop()
						var pg *pgconn.PgError
						if errors.As(err, &pg) && pg.Code == "40P01" {
							return fmt.Errorf("batch %d deadlocked: %w\n%s", batch, err, pg.Detail)
						}
						return fmt.Errorf("batch %d: %w", batch, err)
					}
					s.ids = ids
					results[i] = append(results[i], s)
				}
				return nil
			})
			requireNoErrors(t, errs, "sender")

			live := b.Rows(t, "jobs", "true")
			require.Len(t, live, keys, "one live job per key")
			idOf := make(map[string]int64, keys)
			for _, j := range live {
				require.NotNil(t, j.JobKey)
				_, dup := idOf[*j.JobKey]
				require.False(t, dup, "two live jobs hold key %s", *j.JobKey)
				idOf[*j.JobKey] = j.ID
				require.Equal(t, "queued", j.State)
			}
			for i, sends := range results {
				require.Len(t, sends, batches)
				for batch, s := range sends {
					require.Len(t, s.ids, keys, "sender %d batch %d", i, batch)
					for pos, k := range s.keys {
						require.Equal(t, idOf[k], s.ids[pos], "sender %d batch %d position %d (key %s)", i, batch, pos, k)
					}
				}
			}
			require.Zero(t, b.Count(t, `SELECT count(*) FROM jobq.job_history`))
		})
	}
}

// TestJobKeyRunningJob: the job holding a key is running when 20 enqueues of the key arrive at
// once. Under replace and preserve_run_at the running job gives the key up and exactly one new
// waiting job takes it; under unsafe_dedupe every enqueue gets the running job. Either way the
// running job still ends under its own lease.
func TestJobKeyRunningJob(t *testing.T) {
	t.Parallel()
	const enqueuers = 20

	for _, mode := range jobKeyModes {
		t.Run(camel(string(mode)), func(t *testing.T) {
			t.Parallel()
			b := testbundle.NewWith(t, testbundle.Options{WorkerConns: enqueuers + 2})
			b.Define(t, "keyed")
			cs := conns(t, b.WorkerPool, enqueuers) // keyed system jobs: runners' enqueues (applications may not key them)
			const key = "nightly-report"

			runningID := b.Enqueue(t, testbundle.EnqueueArgs{Task: "keyed", Payload: testbundle.Payload{N: -1},
				EnqueueOptions: jobq.EnqueueOptions{JobKey: key, JobKeyMode: mode}})
			running := b.ClaimOne(t, testbundle.ClaimArgs{Worker: "runner"})
			require.Equal(t, runningID, running.ID)
			require.Equal(t, testbundle.Ptr(key), running.JobKey)

			ids := keyStorm(t, b, keyStormOptions{Key: key, Mode: mode, Conns: cs})

			old := b.Live(t, runningID)
			require.Equal(t, "running", old.State, "the running job was touched")
			require.Equal(t, testbundle.Ptr(running.LeaseToken), old.LeaseToken)
			require.Equal(t, testbundle.Ptr("runner"), old.LockedBy)
			require.Equal(t, -1, old.PayloadN(t), "the running job's payload was changed")

			if mode == jobq.JobKeyUnsafeDedupe {
				require.Equal(t, runningID, ids[0], "unsafe_dedupe returns the running job")
				require.Equal(t, testbundle.Ptr(key), old.JobKey)
				require.Equal(t, 1, b.Count(t, `SELECT count(*) FROM jobq.jobs`))
			} else {
				require.NotEqual(t, runningID, ids[0], "the storm got the running job")
				require.Nil(t, old.JobKey, "the running job kept its key")
				waiting := keyed(t, b, key)
				require.Equal(t, ids[0], waiting.ID)
				require.Equal(t, "queued", waiting.State)
				require.Zero(t, waiting.Attempt)
				n := waiting.PayloadN(t)
				require.True(t, n >= 0 && n < enqueuers, "payload %d is none of the storm's", n)
				require.Equal(t, 2, b.Count(t, `SELECT count(*) FROM jobq.jobs`), "exactly one new job")
			}

			out, err := b.Worker.Complete(b.Ctx, []jobq.Lease{running.Lease()})
			require.NoError(t, err)
			require.Equal(t, []jobq.Outcome{{JobID: runningID, Outcome: "succeeded"}}, out)
			h := b.Finished(t, runningID)
			require.Equal(t, "succeeded", h.State)
			require.Equal(t, -1, h.PayloadN(t))

			if mode != jobq.JobKeyUnsafeDedupe {
				require.Nil(t, h.JobKey)
				next := b.ClaimOne(t, testbundle.ClaimArgs{Worker: "runner"})
				require.Equal(t, ids[0], next.ID, "the new job with the key runs next")
				require.Equal(t, testbundle.Ptr(key), next.JobKey)
				require.Equal(t, 1, next.Attempt)
			}
		})
	}
}

// camel turns a mode such as preserve_run_at into a subtest name such as PreserveRunAt.
func camel(s string) string {
	out := []byte{}
	upper := true
	for _, c := range []byte(s) {
		switch {
		case c == '_':
			upper = true
		case upper:
			out = append(out, c-'a'+'A')
			upper = false
		default:
			out = append(out, c)
		}
	}
	return string(out)
}
