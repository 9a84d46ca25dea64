package sql_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
)

// The engine's concurrency tests race goroutines on their own connections (conns, together) and
// run the sweeper on a clock ahead of the database's (rescueAt); the rest of what they share with
// the client API's tests is in internal/testbundle.

// conns acquires n connections of pool up front, so that goroutines released together each run
// on their own backend instead of queueing for a connection. They are released when t ends.
func conns(t *testing.T, pool *pgxpool.Pool, n int) []*pgxpool.Conn {
	t.Helper()
	out := make([]*pgxpool.Conn, n)
	for i := range out {
		c, err := pool.Acquire(t.Context())
		require.NoError(t, err, "acquire connection %d of %d", i+1, n)
		out[i] = c
		t.Cleanup(c.Release)
	}
	return out
}

// together runs fn(i) for i in [0, n) on n goroutines that are all started and waiting before any
// of them is released, and waits for all of them. Errors come back by index, for the test goroutine
// to check (require must not be called off it).
func together(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			errs[i] = fn(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
	return errs
}

func requireNoErrors(t *testing.T, errs []error, what string) {
	t.Helper()
	for i, err := range errs {
		require.NoError(t, err, "%s: goroutine %d", what, i)
	}
}

// --- rescue (superuser) ----------------------------------------------------------------------

type rescued struct {
	JobID   int64
	Outcome string
	Reason  string
}

// rescueAt runs the sweeper as if the clock read now() + ahead (a PostgreSQL interval).
func rescueAt(t *testing.T, b *testbundle.Bundle, batch int, ahead string) []rescued {
	t.Helper()
	rows, err := b.Admin.Query(b.Ctx, `SELECT job_id, outcome, reason FROM jobq._rescue($1, now() + $2::interval)`, batch, ahead)
	require.NoError(t, err)
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[rescued])
	require.NoError(t, err)
	return out
}

func leasesOf(jobs []jobq.Job) []jobq.Lease {
	out := make([]jobq.Lease, len(jobs))
	for i := range jobs {
		out[i] = jobs[i].Lease()
	}
	return out
}

// completeSucceeded completes the claimed jobs as worker and returns an error unless every one
// of them succeeded, in order: the 50-claimer tests' check that no claim handed out a job twice.
func completeSucceeded(ctx context.Context, client *jobq.Client, worker string, jobs []jobq.Job) error {
	outcomes, err := client.Complete(ctx, leasesOf(jobs))
	if err != nil {
		return fmt.Errorf("%s: complete: %w", worker, err)
	}
	for k, o := range outcomes {
		if o.JobID != jobs[k].ID || o.Outcome != "succeeded" {
			return fmt.Errorf("%s: complete of job %d gave %+v", worker, jobs[k].ID, o)
		}
	}
	return nil
}

// setControls runs each of sets, calls of the engine's control setters, and requires that each
// changed its setting (returned true).
func setControls(t *testing.T, b *testbundle.Bundle, sets ...string) {
	t.Helper()
	for _, set := range sets {
		var changed bool
		require.NoError(t, b.Admin.QueryRow(b.Ctx, set).Scan(&changed), set)
		require.True(t, changed, set)
	}
}

// sampler reads one row of integers, one statement after another on its own connection, from
// startSampler until finish: the continuous samples the limit tests check every one of.
type sampler struct {
	stop    atomic.Bool
	wg      sync.WaitGroup
	samples [][]int
	err     error
}

// startSampler starts reading query, whose one row has n integer columns, on a connection of pool
// of its own, released when t ends.
func startSampler(t *testing.T, ctx context.Context, pool *pgxpool.Pool, query string, n int) *sampler {
	t.Helper()
	conn := conns(t, pool, 1)[0]
	s := &sampler{}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for !s.stop.Load() {
			row := make([]int, n)
			dest := make([]any, n)
			for i := range row {
				dest[i] = &row[i]
			}
			if s.err = conn.QueryRow(ctx, query).Scan(dest...); s.err != nil {
				return
			}
			s.samples = append(s.samples, row)
		}
	}()
	return s
}

// finish stops the sampler and returns the rows it read and the error that stopped it, if any.
func (s *sampler) finish() ([][]int, error) {
	s.stop.Store(true)
	s.wg.Wait()
	return s.samples, s.err
}

// claimPlan says what claimer i claims: the queues it lists, in order, and the most jobs a claim
// asks for.
type claimPlan func(i int) (queues []string, batch int)

// rotated is the claimPlan of claimers that list every queue, rotated by i (so that claimers list
// them in different orders), and ask for 1 to 4 jobs.
func rotated(queues []string) claimPlan {
	return func(i int) ([]string, int) {
		k := i % len(queues)
		return append(append([]string{}, queues[k:]...), queues[:k]...), 1 + i%4
	}
}

// drainTogether runs one claimer per connection, all released at once (together), until total
// jobs are claimed and completed: claimer i is worker claimer-NN, claims as plan says, passes
// what it got to seen when it is not nil, holds it for hold, and completes it
// (completeSucceeded). A claim that finds nothing is tried again a millisecond later. Errors come
// back by claimer.
func drainTogether(ctx context.Context, workerConns []*pgxpool.Conn, plan claimPlan, total int, hold time.Duration,
	seen func(i int, jobs []jobq.Job)) []error {
	var done atomic.Int64
	return together(len(workerConns), func(i int) error {
		client := jobq.NewClient(workerConns[i])
		worker := fmt.Sprintf("claimer-%02d", i)
		mine, batch := plan(i)
		for done.Load() < int64(total) {
			jobs, err := client.Claim(ctx, worker, mine, batch, 30*time.Second)
			if err != nil {
				return fmt.Errorf("%s: claim: %w", worker, err)
			}
			if len(jobs) == 0 {
				time.Sleep(time.Millisecond)
				continue
			}
			if seen != nil {
				seen(i, jobs)
			}
			time.Sleep(hold)
			if err := completeSucceeded(ctx, client, worker, jobs); err != nil {
				return err
			}
			done.Add(int64(len(jobs)))
		}
		return nil
	})
}
