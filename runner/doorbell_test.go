package runner_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// pickupDeadline is how long after its commit every job of the stress test
// (TestDoorbellLosesNoWakeUpWhileRunnersGoIdleAndBusy) must have started: shorter than the silences
// between its rounds, so that a job the runners lost is not taken at the next round's first
// notification. The other tests wait up to waitCeiling for each job: their runners poll once an
// hour, so only a wake-up explains a pickup, however slow the machine.
const pickupDeadline = 2 * time.Second

// pickups records when each job's handler started.
type pickups struct {
	mu sync.Mutex
	at map[int64]time.Time
}

func (p *pickups) handler(ctx context.Context, job *jobq.Job) error {
	p.mu.Lock()
	if _, ok := p.at[job.ID]; !ok {
		p.at[job.ID] = time.Now()
	}
	p.mu.Unlock()
	time.Sleep(time.Duration(rand.IntN(15)) * time.Millisecond)
	return nil
}

func (p *pickups) get(id int64) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	at, ok := p.at[id]
	return at, ok
}

// bellRunner starts a runner on queue bell that polls once an hour. rescan is its
// RescanInterval: negative claims from the head every time (no claim positions, no passed-over
// probe: nothing but a wake-up makes it claim).
func bellRunner(t *testing.T, b *testBundle, p *pickups, concurrency int, noDoorbell bool, rescan time.Duration) *runner.Runner {
	t.Helper()
	cfg := b.config()
	cfg.Queues = []string{"bell"}
	cfg.Concurrency = concurrency
	cfg.PollInterval = time.Hour
	cfg.RescanInterval = rescan
	cfg.NoLeader = true
	r, err := runner.New(cfg)
	require.NoError(t, err)
	if noDoorbell {
		runner.WithoutDoorbell(r)
	}
	r.HandleFunc("bell", p.handler)
	start(t, r)
	return r
}

// doorbellHolders returns the pids of the runners' LISTEN connections that hold the doorbell of
// queue bell.
func doorbellHolders(t *testing.T, b *testBundle) []int32 {
	t.Helper()
	rows, err := b.admin.Query(context.Background(), `
		SELECT a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.classid = 1785790466 AND l.objid = hashtext('bell')::oid
		  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		  AND l.granted AND a.application_name = $1 ORDER BY 1`, runner.ListenerApplicationName)
	require.NoError(t, err)
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	require.NoError(t, err)
	return pids
}

// No wake-up is lost under the doorbell: runners that go idle and busy all the time while
// enqueuers commit from 24 connections. The enqueue runs in four rounds of 4 s: for the first
// 0.5 s every connection commits small bursts (one to four jobs a transaction, short gaps; more
// than the runners take, so they are busy and hold no doorbell), and a quarter of its
// transactions stay open up to 300 ms after they enqueued; then each connection enqueues once
// more, while the runners are busy, in a transaction it keeps open 0.9 to 1.2 s, so that these
// commit into the silence that follows, after the runners went idle on claims that could not see
// them, with no enqueue to wake anyone before the deadline has passed. Every job starts within pickupDeadline of its commit, with the runners
// polling once an hour. Run with JOBQ_TEST_WITHOUT_DOORBELL=1, the runners never hold a doorbell
// (as runners of the release before): enqueues then notify no one and the test fails. The race
// the runner's check that no enqueue is in flight closes is hit here only now and then; the next
// test hits it every time.
func TestDoorbellLosesNoWakeUpWhileRunnersGoIdleAndBusy(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "bell")
	require.Equal(t, "true", b.settingValue(t, "doorbell"), "the doorbell is on as installed")
	p := &pickups{at: map[int64]time.Time{}}
	without := os.Getenv("JOBQ_TEST_WITHOUT_DOORBELL") == "1"
	for range 3 {
		bellRunner(t, b, p, 2, without, -1)
	}

	enqueuers := b.db.Pool(t, "worker_runtime", 24)
	// A job left behind in a round's silence would be taken at the next round's first notification:
	// the silence after the last commit (at most busy + 1.2 s into a round) outlasts pickupDeadline.
	const conns, rounds = 24, 4
	const round, busy = 4 * time.Second, 500 * time.Millisecond
	var mu sync.Mutex
	committed := map[int64]time.Time{}
	record := func(ids []int64) {
		now := time.Now()
		mu.Lock()
		defer mu.Unlock()
		for _, id := range ids {
			committed[id] = now
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	began := time.Now()
	for i := range conns {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 17))
			for r := range rounds {
				start := began.Add(time.Duration(r) * round)
				time.Sleep(time.Until(start))
				for time.Since(start) < busy {
					ids, err := enqueueBurst(enqueuers, rng, 300*time.Millisecond, 4)
					if err != nil {
						errs <- err
						return
					}
					record(ids)
					time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
				}
				// The last one commits into the silence.
				ids, err := enqueueBurst(enqueuers, rng, 900*time.Millisecond+time.Duration(rng.IntN(300))*time.Millisecond, 1)
				if err != nil {
					errs <- err
					return
				}
				record(ids)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Greater(t, len(committed), 200, "the enqueuers committed jobs")

	// Wait out the deadline of the last commits, then judge every job.
	time.Sleep(pickupDeadline + 500*time.Millisecond)
	var late []string
	var worst time.Duration
	for id, at := range committed {
		picked, ok := p.get(id)
		switch {
		case !ok:
			late = append(late, fmt.Sprintf("job %d not started %s after its commit", id, time.Since(at).Round(time.Millisecond)))
		case picked.Sub(at) > pickupDeadline:
			late = append(late, fmt.Sprintf("job %d started %s after its commit", id, picked.Sub(at).Round(time.Millisecond)))
		default:
			worst = max(worst, picked.Sub(at))
		}
	}
	if len(late) > 0 {
		t.Fatalf("%d of %d jobs were not picked up within %s of their commit, among them:\n%s", len(late), len(committed),
			pickupDeadline, strings.Join(late[:min(len(late), 10)], "\n"))
	}
	t.Logf("%d jobs, every one started within %s of its commit (the slowest %s)", len(committed), pickupDeadline, worst)
}

// The race the doorbell must close, made to happen: an enqueue probes the doorbell while the
// runner is busy (it holds none, so the enqueue will not notify) and stays open; the runner's
// slot frees, its claim cannot see the job, and it holds its doorbell to wait; then the enqueue
// commits, unheard. Because the enqueue still held its queue's in-flight lock when the runner
// asked jobq.doorbell_quiet, the runner claims again (1 ms, doubling up to 100 ms) until that
// lock is free, and the job starts (within waitCeiling of its commit). Without that check (the
// runner waiting as soon as it holds the doorbell) the job waits for the hourly poll.
func TestDoorbellWakesARunnerForAJobWhoseEnqueueProbedBeforeItWaited(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "bell")
	p := &pickups{at: map[int64]time.Time{}}
	release, blocking := make(chan struct{}), make(chan struct{})
	var blocker atomic.Int64
	cfg := b.config()
	cfg.Queues = []string{"bell"}
	cfg.Concurrency = 1
	cfg.ClaimAhead = -1
	cfg.PollInterval = time.Hour
	cfg.RescanInterval = -1
	cfg.NoLeader = true
	r, err := runner.New(cfg)
	require.NoError(t, err)
	r.HandleFunc("bell", func(ctx context.Context, job *jobq.Job) error {
		if job.ID == blocker.Load() {
			close(blocking)
			<-release
		}
		return p.handler(ctx, job)
	})
	start(t, r)
	waitFor(t, waitCeiling, "the idle runner holds its doorbell", func() bool { return len(doorbellHolders(t, b)) == 1 })

	// The runner's one slot is taken by a job that runs until released: it holds no doorbell.
	tx, err := b.admin.Begin(context.Background())
	require.NoError(t, err)
	var busy int64
	require.NoError(t, tx.QueryRow(context.Background(), `SELECT jobq.enqueue('bell', queue => 'bell')`).Scan(&busy))
	blocker.Store(busy)
	require.NoError(t, tx.Commit(context.Background()))
	select {
	case <-blocking:
	case <-time.After(waitCeiling):
		t.Fatal("the blocking job did not start")
	}
	waitFor(t, waitCeiling, "the busy runner let go of its doorbell", func() bool { return len(doorbellHolders(t, b)) == 0 })

	// An enqueue probes now (no doorbell held: no NOTIFY at its commit) and stays open.
	open, err := b.admin.Begin(context.Background())
	require.NoError(t, err)
	defer func() { _ = open.Rollback(context.Background()) }()
	var unheard int64
	require.NoError(t, open.QueryRow(context.Background(), `SELECT jobq.enqueue('bell', queue => 'bell')`).Scan(&unheard))

	// The slot frees; the runner's claim finds nothing and it holds its doorbell to wait.
	close(release)
	waitFor(t, waitCeiling, "the idle runner holds its doorbell again", func() bool { return len(doorbellHolders(t, b)) == 1 })
	time.Sleep(300 * time.Millisecond)
	_, ok := p.get(unheard)
	require.False(t, ok, "the job of the open transaction cannot have started")

	require.NoError(t, open.Commit(context.Background()))
	committed := time.Now()
	waitFor(t, waitCeiling, "the job whose enqueue probed before the runner waited started", func() bool {
		_, ok := p.get(unheard)
		return ok
	})
	t.Logf("started %s after its commit", mustGet(t, p, unheard).Sub(committed).Round(time.Millisecond))
}

// enqueueBurst commits one to four jobs in queue bell in one transaction and returns their ids.
// A quarter of the time (always when every is 1) the transaction stays open up to hold after the
// jobs were enqueued (exactly hold when every is 1).
func enqueueBurst(pool interface {
	Begin(context.Context) (pgx.Tx, error)
}, rng *rand.Rand, hold time.Duration, every int) ([]int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tx, err := pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	c := jobq.NewClient(tx)
	var ids []int64
	for range 1 + rng.IntN(4) {
		id, err := c.Enqueue(ctx, "bell", nil, jobq.EnqueueOptions{Queue: "bell"})
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	switch {
	case every == 1:
		time.Sleep(hold)
	case rng.IntN(every) == 0:
		time.Sleep(time.Duration(rng.Int64N(int64(hold))))
	}
	return ids, tx.Commit(ctx)
}

// A runner whose LISTEN connection dies loses its doorbell with it (the lock is the
// connection's): it notices, reconnects, holds the doorbell again, and claims from the head, so
// a job that committed while it held none, without a notification, sorting before the jobs it
// claimed last (an older run_at), starts soon after the runner's return. The runner claims from
// positions and probes for passed-over jobs only once an hour, so only that claim from the head
// can take it. The listener's reconnect is held off (the test's database takes no new connection
// but the superuser's) until that job committed.
func TestDoorbellIsTakenAgainAfterTheListenerConnectionIsKilled(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "bell")
	p := &pickups{at: map[int64]time.Time{}}
	bellRunner(t, b, p, 2, false, time.Hour)
	for i := range 3 { // three claims that took a job: the claims start from positions
		id := b.enqueueSQL(t, `jobq.enqueue('bell', queue => 'bell')`)
		waitFor(t, waitCeiling, fmt.Sprintf("job %d of 3 started", i+1), func() bool { _, ok := p.get(id); return ok })
	}
	var holders []int32
	waitFor(t, waitCeiling, "the idle runner holds its doorbell", func() bool {
		holders = doorbellHolders(t, b)
		return len(holders) == 1
	})

	// The database's limit binds every role but the superuser, and no other test's database.
	dbName := pgx.Identifier{b.db.Name}.Sanitize()
	b.exec(t, `ALTER DATABASE `+dbName+` CONNECTION LIMIT 0`)
	t.Cleanup(func() { b.exec(t, `ALTER DATABASE `+dbName+` CONNECTION LIMIT -1`) })
	b.exec(t, `SELECT pg_terminate_backend($1)`, holders[0])
	waitFor(t, waitCeiling, "the doorbell let go with the connection", func() bool { return len(doorbellHolders(t, b)) == 0 })
	late := b.enqueueSQL(t, `jobq.enqueue('bell', queue => 'bell', run_at => now() - interval '1 hour')`)
	b.exec(t, `ALTER DATABASE `+dbName+` CONNECTION LIMIT -1`)
	back := time.Now()

	waitFor(t, waitCeiling, "the job committed while the listener was away started", func() bool {
		_, ok := p.get(late)
		return ok
	})
	waitFor(t, waitCeiling, "the runner holds its doorbell again on a new connection", func() bool {
		now := doorbellHolders(t, b)
		return len(now) == 1 && now[0] != holders[0]
	})
	after := b.enqueueSQL(t, `jobq.enqueue('bell', queue => 'bell')`)
	committed := time.Now()
	waitFor(t, waitCeiling, "a job enqueued after the reconnect started", func() bool { _, ok := p.get(after); return ok })
	t.Logf("listener back after %s; the late job started %s after it could reconnect, the next one %s after its commit",
		time.Since(back).Round(time.Millisecond), mustGet(t, p, late).Sub(back).Round(time.Millisecond),
		mustGet(t, p, after).Sub(committed).Round(time.Millisecond))
}

func mustGet(t *testing.T, p *pickups, id int64) time.Time {
	t.Helper()
	at, ok := p.get(id)
	require.True(t, ok)
	return at
}

// The rolling upgrade: runners of the release before never hold a doorbell. With the setting
// doorbell false (as 00013 installs while such runners are live), every due enqueue notifies as
// before, and such a runner, polling once an hour, starts each job (within waitCeiling).
func TestDoorbellFalseWakesRunnersThatHoldNoDoorbell(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "bell")
	b.exec(t, `SELECT jobq.set_setting('doorbell', 'false')`)
	p := &pickups{at: map[int64]time.Time{}}
	bellRunner(t, b, p, 2, true, -1)
	for i := range 5 {
		id := b.enqueueSQL(t, `jobq.enqueue('bell', queue => 'bell')`)
		committed := time.Now()
		waitFor(t, waitCeiling, fmt.Sprintf("job %d of 5 started", i+1), func() bool { _, ok := p.get(id); return ok })
		require.Empty(t, doorbellHolders(t, b), "a runner of the release before holds no doorbell")
		t.Logf("job %d started %s after its commit", i+1, mustGet(t, p, id).Sub(committed).Round(time.Millisecond))
	}
}

// enqueueSQL runs expr (a jobq.enqueue call) as the superuser and returns the job id.
func (b *testBundle) enqueueSQL(t *testing.T, expr string) int64 {
	t.Helper()
	var id int64
	require.NoError(t, b.admin.QueryRow(context.Background(), `SELECT `+expr).Scan(&id))
	return id
}

func (b *testBundle) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	_, err := b.admin.Exec(context.Background(), sql, args...)
	require.NoError(t, err)
}

func (b *testBundle) settingValue(t *testing.T, name string) string {
	t.Helper()
	var v string
	require.NoError(t, b.admin.QueryRow(context.Background(), `SELECT value FROM jobq.settings WHERE name = $1`, name).Scan(&v))
	return v
}
