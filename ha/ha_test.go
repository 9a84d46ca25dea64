//go:build ha

package ha_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/ha"
	"github.com/jobqdev/jobq/internal/proctest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.Cleanup()
	os.Exit(code)
}

// ceiling bounds every wait: a ceiling for a loaded machine, not a measure.
const ceiling = 3 * time.Minute

// jobqBin is $JOBQ_BIN (make test-ha passes bin/jobq) or a build of ./cmd/jobq.
func jobqBin(t *testing.T) string {
	if b := os.Getenv("JOBQ_BIN"); b != "" {
		return b
	}
	return proctest.Build(t, "../cmd/jobq")
}

// TestPatroniSynchronous and TestPatroniAsynchronous run every scenario, one after the other, on
// one Patroni cluster each: with synchronous_mode (no acknowledged write may be lost) and without
// (acknowledged completions lost are measured, not required to be 0).
func TestPatroniSynchronous(t *testing.T)  { runScenarios(t, true) }
func TestPatroniAsynchronous(t *testing.T) { runScenarios(t, false) }

func runScenarios(t *testing.T, syncMode bool) {
	require.NoError(t, ha.Requirements(""), "the Patroni scenarios need these binaries; never skipped")
	ctx := context.Background()
	bin := jobqBin(t)
	began := time.Now()
	c, err := ha.Start(ctx, ha.Options{JobqBin: bin, SynchronousMode: syncMode, Logf: t.Logf})
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			for _, n := range c.Nodes {
				b, _ := os.ReadFile(filepath.Join(n.Dir, "patroni.log"))
				t.Logf("%s patroni.log (tail):\n%s", n.Name, tail(string(b), 4000))
			}
		}
		require.NoError(t, c.Close())
	})
	t.Logf("cluster up in %s", time.Since(began).Round(time.Millisecond))

	admin, err := pgxpool.New(ctx, c.URL("postgres"))
	require.NoError(t, err)
	t.Cleanup(admin.Close)

	h := &harness{t: t, c: c, bin: bin, admin: admin, sync: syncMode, dir: t.TempDir()}
	// The dashboard runs through every scenario on the multi-host URL, as jobq_dashboard.
	h.dashboard = freeAddr(t)
	dash := proctest.Start(t, bin, nil, "dashboard", "--listen", h.dashboard, "--database-url", c.URL("jobq_dashboard"), "--no-sign-in")
	c.Track(dash.Cmd.Process)
	// The exec task exists once a worker declared it; the schedule needs it.
	h.declareTasks(ctx)
	_, err = admin.Exec(ctx, `SELECT jobq.schedule('ha-minute', '* * * * *', 'exec', payload => '{"cron": true}')`)
	require.NoError(t, err)
	cronFrom := time.Now()

	// Before any scenario: the checks every scenario starts from refuse a replica that is up but
	// follows nothing (Patroni 3.0.2 still reports it "running", with a lag) and name it.
	t.Run("a_replica_that_does_not_stream_is_not_healthy", func(t *testing.T) { h.replicaNotStreaming(ctx, t) })

	var rows []figures
	for _, sc := range []scenario{
		{name: "switchover", inject: h.switchover},
		{name: "postmaster kill -9", inject: h.killPostmaster},
		{name: "node crash (kill -9 Patroni + postmaster)", inject: h.crashNode},
		{name: "old primary rejoins", inject: h.rejoin},
		{name: "primary frozen past ttl", inject: h.freeze},
		{name: "etcd down past ttl", inject: h.etcdOutage},
	} {
		if !selected(sc.name) {
			continue // a developer's shortcut: make test-ha runs every scenario
		}
		ok := t.Run(strings.ReplaceAll(sc.name, " ", "_"), func(t *testing.T) {
			rows = append(rows, h.run(ctx, t, sc))
		})
		if !ok {
			break
		}
	}
	cron := h.checkCron(ctx, cronFrom)
	mode := "async"
	if syncMode {
		mode = "synchronous_mode"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nPatroni scenarios, %s (ttl 12 s, loop_wait 2 s, retry_timeout 5 s; wall %s)\n", mode, time.Since(began).Round(time.Second))
	fmt.Fprintf(&b, "| scenario | jobs | jobs lost | acked enqueues lost | acked completions lost | duplicate runs (unacked / after a lost ack) | failure → first completion | longest completion gap | leader epochs | stale maintain | note |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d (%d / %d) | %s | %s | %s | %d | %s |\n", r.name, r.jobs, r.jobsLost, r.enqueuesLost,
			r.acksLost, r.dups, r.dupsUnacked, r.dupsAfterLostAck, r.firstCompletion, r.longestGap, r.epochs, r.staleMaintain, r.short)
	}
	fmt.Fprintf(&b, "cron slots %s\n", cron)
	t.Log(b.String())
	if out := os.Getenv("JOBQ_HA_FIGURES"); out != "" {
		f, err := os.OpenFile(out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			_, _ = f.WriteString(b.String())
			f.Close()
		}
	}
}

// selected: $JOBQ_HA_ONLY, when set, is a comma-separated list of parts of scenario names to run
// (rejoin needs the node crash before it).
func selected(name string) bool {
	only := os.Getenv("JOBQ_HA_ONLY")
	if only == "" {
		return true
	}
	for _, part := range strings.Split(only, ",") {
		if strings.Contains(name, part) {
			return true
		}
	}
	return false
}

type scenario struct {
	name string
	// inject causes the failure, returns its instant, and returns once the cluster serves writes
	// again (or the failure is over).
	inject func(ctx context.Context, t *testing.T) (time.Time, string)
}

type harness struct {
	t     *testing.T
	c     *ha.Cluster
	bin   string
	admin *pgxpool.Pool
	sync  bool
	dir   string

	crashed   *ha.Node // the node crashNode killed, for rejoin
	dashboard string   // host:port of the jobq dashboard that runs through every scenario
	// retaken: the frozen node's Patroni took the leader key back after it resumed, and the
	// primary promoted meanwhile was rewound (Patroni before 3.1.0 lets a stale primary win the
	// leader race after a stall: its release notes, "Don't allow stale primary to win the leader
	// race").
	retaken bool
	defect  bool   // retaken happened in one of this cluster's scenarios
	short   string // the scenario's gist for the table, set by inject
}

type figures struct {
	name                                string
	jobs, jobsLost, enqueuesLost        int
	acksLost, dups, dupsUnacked         int
	dupsAfterLostAck, staleMaintain     int
	firstCompletion, longestGap, epochs string
	note, short                         string // the scenario's story, and its gist for the table
}

func (h *harness) declareTasks(ctx context.Context) {
	w := h.worker(h.t, filepath.Join(h.dir, "declare.runs"))
	w.WaitStarted()
	w.Signal(syscall.SIGTERM)
	require.Equal(h.t, 0, w.Wait(time.Minute))
}

// worker starts `jobq worker` on the multi-host URL with an exec handler that appends
// "<job id> <attempt> <unix time> <payload>" to runs.
func (h *harness) worker(t *testing.T, runs string) *proctest.Proc {
	w := proctest.StartServing(t, h.bin, []string{"RUNS=" + runs}, "worker",
		"--database-url", h.c.URL("worker_runtime"), "--concurrency", "4", "--lease", "10s",
		"--shutdown-grace", "5s", "--poll-interval", "500ms",
		"--exec-command", `p=$(cat); echo "$JOBQ_JOB_ID $JOBQ_ATTEMPT $(date +%s.%N) $p" >> "$RUNS"`)
	h.c.Track(w.Cmd.Process)
	return w
}

type ack struct {
	id      int64
	attempt int
	at      time.Time
	worker  int
}

type logEvent struct {
	at     time.Time
	worker int
	msg    string
	epoch  int64
}

func (h *harness) run(ctx context.Context, t *testing.T, sc scenario) figures {
	tag := fmt.Sprintf("s%d", time.Now().UnixNano())
	runs := filepath.Join(h.dir, tag+".runs")
	if h.crashed == nil {
		require.NoError(t, h.c.WaitHealthy(ctx, ceiling), "the cluster is whole before the scenario")
		require.NoError(t, h.c.WaitJobq(ctx, ceiling), "every node has jobq before the scenario")
	} else {
		_, err := h.c.WaitLeader(ctx, nil, ceiling) // a node is down: the rejoin scenario brings it back
		require.NoError(t, err)
	}
	ws := []*proctest.Proc{h.worker(t, runs), h.worker(t, runs)}

	// The enqueuer: one job every 40 ms on the multi-host URL; an acknowledged enqueue is one
	// whose call returned an id.
	pool, err := pgxpool.New(ctx, h.c.URL("postgres"))
	require.NoError(t, err)
	defer pool.Close()
	client := jobq.NewClient(pool)
	var mu sync.Mutex
	enqueued := map[int]int64{} // n -> job id, acknowledged
	attempted := 0
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(40 * time.Millisecond)
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			id, err := client.Enqueue(cctx, "exec", map[string]any{"tag": tag, "n": n}, jobq.EnqueueOptions{})
			cancel()
			mu.Lock()
			attempted++
			if err == nil {
				enqueued[n] = id
			}
			mu.Unlock()
		}
	}()
	acksSince := func(from time.Time) int {
		k := 0
		for _, a := range acks(ws) {
			if !a.at.Before(from) {
				k++
			}
		}
		return k
	}
	start := time.Now()
	proctest.WaitUntil(t, ceiling, "steady load: 30 completions", func() bool { return acksSince(start) >= 30 })

	at, note := sc.inject(ctx, t)
	recovered := time.Now()
	proctest.WaitUntil(t, ceiling, "30 completions after the failure", func() bool { return acksSince(recovered) >= 30 })
	close(stop)
	wg.Wait()

	// Every acknowledged enqueue must finish (a job whose completion was lost waits for its lease
	// to expire and the leader's rescue).
	mu.Lock()
	want := len(enqueued)
	mu.Unlock()
	// A lost job never finishes: wait until every acknowledged job succeeded or none of this
	// scenario's jobs is live any more (a job whose enqueue a rewind discarded is in neither
	// table, so nothing more can finish), at most a minute (six leases) past the last one; then count.
	var done, left int
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := h.admin.QueryRow(cctx, `
			SELECT (SELECT count(*) FROM jobq.job_history WHERE payload->>'tag' = $1 AND state = 'succeeded'),
			       (SELECT count(*) FROM jobq.jobs WHERE payload->>'tag' = $1)`, tag).Scan(&done, &left)
		cancel()
		if err == nil && (done >= want || left == 0) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, w := range ws {
		w.Signal(syscall.SIGTERM)
	}
	for _, w := range ws {
		w.Wait(time.Minute)
	}
	clients := h.checkClients(ctx, t)

	// The surviving timeline's jobs of this scenario, by the enqueuer's n: a job id is not a key,
	// since ids handed out by a primary whose writes were then discarded are handed out again.
	type final struct {
		attempt int
		state   string // succeeded, dead, canceled, or a live state
	}
	finalOf := map[int]final{}
	rows, err := h.admin.Query(ctx, `
		SELECT (payload->>'n')::int, attempt, state FROM jobq.job_history WHERE payload->>'tag' = $1
		UNION ALL SELECT (payload->>'n')::int, attempt, state::text FROM jobq.jobs WHERE payload->>'tag' = $1`, tag)
	require.NoError(t, err)
	for rows.Next() {
		var n, a int
		var st string
		require.NoError(t, rows.Scan(&n, &a, &st))
		finalOf[n] = final{a, st}
	}
	require.NoError(t, rows.Err())
	var live int
	require.NoError(t, h.admin.QueryRow(ctx, `SELECT count(*) FROM jobq.jobs WHERE payload->>'tag' = $1`, tag).Scan(&live))
	if live > 0 {
		// What a job left live looks like, for the failure below: its state and lease, and the
		// claims' receipts (jobq.leases) that list it, through which the sweep finds it.
		var left string
		if err := h.admin.QueryRow(ctx, `
			SELECT string_agg(format('job %s: %s, attempt %s, locked by %s, lease until %s, run_at %s, receipts due %s (now %s)',
			                         j.id, j.state, j.attempt, j.locked_by, j.lease_expires_at, j.run_at,
			                         (SELECT array_agg(l.check_at) FROM jobq.leases l WHERE j.id = ANY (l.job_ids)), now()), '; ')
			FROM jobq.jobs j WHERE j.payload->>'tag' = $1`, tag).Scan(&left); err == nil {
			t.Logf("%s: live jobs left: %s", sc.name, left)
		}
	}

	f := figures{name: sc.name, jobs: len(enqueued)}
	for n := range enqueued {
		fin, ok := finalOf[n]
		if !ok {
			f.jobsLost++
			f.enqueuesLost++ // the enqueue itself did not survive
		} else if fin.state != "succeeded" {
			f.jobsLost++
		}
	}

	// Every run (the exec handler's line: id, attempt, when, payload), and each acknowledged
	// completion matched to the run it completed: the latest run of that id and attempt that
	// began before the acknowledgement.
	type run struct {
		id      int64
		attempt int
		at      time.Time
		n       int
		acked   *ack
	}
	var allRuns []*run
	for _, line := range readLines(t, runs) {
		var id int64
		var a int
		var ts float64
		if _, err := fmt.Sscanf(line, "%d %d %f", &id, &a, &ts); err != nil {
			continue
		}
		var p struct {
			Tag string `json:"tag"`
			N   int    `json:"n"`
		}
		i := strings.Index(line, "{")
		if i < 0 || json.Unmarshal([]byte(line[i:]), &p) != nil || p.Tag != tag {
			continue
		}
		allRuns = append(allRuns, &run{id: id, attempt: a, at: time.Unix(0, int64(ts*1e9)), n: p.N})
	}
	var all []ack
	for _, a := range acks(ws) {
		var best *run
		for _, r := range allRuns {
			if r.id == a.id && r.attempt == a.attempt && !r.at.After(a.at) && (best == nil || r.at.After(best.at)) {
				best = r
			}
		}
		if best == nil {
			continue // a cron job or another scenario's
		}
		a := a
		best.acked = &a
		all = append(all, a)
	}
	runsOf := map[int][]*run{}
	for _, r := range allRuns {
		runsOf[r.n] = append(runsOf[r.n], r)
	}
	for n, rs := range runsOf {
		sort.Slice(rs, func(i, j int) bool { return rs[i].at.Before(rs[j].at) })
		for i, r := range rs {
			// An acknowledged completion is lost when the job ran again after it, or did not
			// end succeeded on the surviving timeline.
			lost := r.acked != nil && (i < len(rs)-1 || finalOf[n].state != "succeeded")
			if lost {
				f.acksLost++
			}
			if i > 0 {
				f.dups++
				prev := rs[i-1]
				switch {
				case prev.acked == nil:
					f.dupsUnacked++
				default:
					f.dupsAfterLostAck++
				}
			}
		}
	}
	// Time from the failure to the first completion acknowledged after it, and the longest gap
	// between two acknowledged completions around it.
	sort.Slice(all, func(i, j int) bool { return all[i].at.Before(all[j].at) })
	var first time.Time
	gap, prev := time.Duration(0), time.Time{}
	for _, a := range all {
		if first.IsZero() && a.at.After(at) {
			first = a.at
		}
		if !prev.IsZero() && a.at.After(at.Add(-5*time.Second)) && a.at.Sub(prev) > gap {
			gap = a.at.Sub(prev)
		}
		prev = a.at
	}
	f.firstCompletion = first.Sub(at).Round(10 * time.Millisecond).String()
	f.longestGap = gap.Round(10 * time.Millisecond).String()

	// Leadership: the epochs acquired, and any maintain run under an epoch older than one another
	// worker had acquired before it (a stale epoch acting).
	var evs []logEvent
	for i, w := range ws {
		for _, msg := range []string{"leadership acquired", "maintain"} {
			for _, l := range w.Lines(msg) {
				e, _ := l["epoch"].(float64)
				evs = append(evs, logEvent{at: parseTime(l["time"]), worker: i, msg: msg, epoch: int64(e)})
			}
		}
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].at.Before(evs[j].at) })
	var epochs []string
	maxAcquired := int64(0)
	for _, e := range evs {
		switch e.msg {
		case "leadership acquired":
			epochs = append(epochs, fmt.Sprintf("%d(w%d)", e.epoch, e.worker+1))
			if e.epoch > maxAcquired {
				maxAcquired = e.epoch
			}
		case "maintain":
			if e.epoch < maxAcquired {
				f.staleMaintain++
			}
		}
	}
	f.epochs = strings.Join(epochs, " ")
	if f.epochs == "" {
		f.epochs = "-"
	}
	fenced := 0
	for _, w := range ws {
		fenced += len(w.Lines("maintain fenced: this worker no longer leads with its epoch; standing down at once"))
	}
	f.note = note + "; " + clients
	f.short, h.short = h.short, ""
	if f.short == "" {
		f.short = "-"
	}

	t.Logf("%s: %s; jobs %d (attempted %d, live left %d), lost %d (enqueues lost %d), acked completions lost %d, duplicate runs %d (after an unacknowledged completion %d, after a lost acknowledged one %d), failure → first completion %s, longest completion gap %s, leadership acquired %s, stale maintain %d, maintain fenced %d",
		sc.name, f.note, f.jobs, attempted, live, f.jobsLost, f.enqueuesLost, f.acksLost, f.dups, f.dupsUnacked, f.dupsAfterLostAck,
		f.firstCompletion, f.longestGap, f.epochs, f.staleMaintain, fenced)

	require.Zero(t, f.staleMaintain, "no maintain under a stale epoch")
	// Whatever the timeline lost, a job it has must finish: one that stays queued or running
	// is jobq's failure, not the database's.
	require.Equal(t, f.enqueuesLost, f.jobsLost, "every job the surviving timeline has finished")
	if h.retaken {
		h.retaken, h.defect = false, true
		t.Logf("PATRONI DEFECT (before 3.1.0): the resumed old leader took the leader key back; what the interim primary acknowledged was rewound: %d jobs lost, %d acknowledged completions lost", f.jobsLost, f.acksLost)
		f.name += " ‡"
	} else if h.sync {
		require.Zero(t, f.jobsLost, "synchronous_mode: no acknowledged job is lost")
		require.Zero(t, f.acksLost, "synchronous_mode: no acknowledged completion is lost")
		require.Zero(t, f.dupsAfterLostAck, "synchronous_mode: no job runs again after an acknowledged completion")
	}
	return f
}

// checkClients runs the CLI and reads the dashboard through the multi-host URL after the
// scenario: both must reach the current primary (the dashboard's pool replaces its broken
// connections on its own).
func (h *harness) checkClients(ctx context.Context, t *testing.T) string {
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	out, err := exec.CommandContext(cctx, h.bin, "leader", "show", "--json", "--database-url", h.c.URL("postgres")).CombinedOutput()
	require.NoError(t, err, "jobq leader show on the multi-host URL: %s", out)
	start := time.Now()
	var code int
	proctest.WaitUntil(t, time.Minute, "the dashboard answers 200", func() bool {
		resp, err := http.Get("http://" + h.dashboard + "/")
		if err != nil {
			return false
		}
		resp.Body.Close()
		code = resp.StatusCode
		return code == 200
	})
	return fmt.Sprintf("CLI ok, dashboard 200 after %s", time.Since(start).Round(10*time.Millisecond))
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// switchover hands the leadership to a replica (the synchronous one under synchronous_mode)
// through Patroni's REST API, as patronictl switchover does.
func (h *harness) switchover(ctx context.Context, t *testing.T) (time.Time, string) {
	old := h.c.Leader(ctx)
	require.NotNil(t, old)
	ms, err := h.c.Members(ctx)
	require.NoError(t, err)
	var cand *ha.Node
	for _, m := range ms {
		if m.Name != old.Name && (m.Role == "sync_standby" || (!h.sync && m.Role == "replica")) {
			cand = h.c.Node(m.Name)
		}
	}
	require.NotNil(t, cand, "a candidate: %+v", ms)
	at := time.Now()
	require.NoError(t, h.c.Switchover(ctx, old, cand))
	n, err := h.c.WaitLeader(ctx, old, ceiling)
	require.NoError(t, err)
	return at, fmt.Sprintf("%s → %s in %s", old.Name, n.Name, time.Since(at).Round(10*time.Millisecond))
}

// killPostmaster sends SIGKILL to the primary's postmaster only: Patroni lives on and holds the
// leader key, so it restarts PostgreSQL in place (crash recovery) unless a replica takes over.
func (h *harness) killPostmaster(ctx context.Context, t *testing.T) (time.Time, string) {
	old := h.c.Leader(ctx)
	require.NotNil(t, old)
	at := time.Now()
	_, err := h.c.KillPostmaster(old)
	require.NoError(t, err)
	time.Sleep(200 * time.Millisecond) // let the old postmaster's socket close before asking who leads
	n, err := h.c.WaitLeader(ctx, nil, ceiling)
	require.NoError(t, err)
	return at, fmt.Sprintf("%s killed; leader %s after %s", old.Name, n.Name, time.Since(at).Round(10*time.Millisecond))
}

// crashNode kills the primary's Patroni and postmaster with SIGKILL (a machine gone): the leader
// key expires after ttl and a replica is promoted.
func (h *harness) crashNode(ctx context.Context, t *testing.T) (time.Time, string) {
	old := h.c.Leader(ctx)
	require.NotNil(t, old)
	at := time.Now()
	require.NoError(t, h.c.KillNode(old))
	n, err := h.c.WaitLeader(ctx, old, ceiling)
	require.NoError(t, err)
	h.crashed = old
	return at, fmt.Sprintf("%s crashed; %s promoted after %s", old.Name, n.Name, time.Since(at).Round(10*time.Millisecond))
}

// rejoin starts the crashed node's Patroni again: it must rewind (pg_rewind) and follow the new
// leader, under load.
func (h *harness) rejoin(ctx context.Context, t *testing.T) (time.Time, string) {
	require.NotNil(t, h.crashed, "the node crash scenario ran first")
	old := h.crashed
	at := time.Now()
	require.NoError(t, h.c.StartNode(old))
	require.NoError(t, h.c.WaitHealthy(ctx, ceiling))
	h.crashed = nil
	b, _ := os.ReadFile(filepath.Join(old.Dir, "patroni.log"))
	rewound := strings.Contains(string(b), "pg_rewind")
	return at, fmt.Sprintf("%s back as a replica after %s (pg_rewind in its log: %v)", old.Name, time.Since(at).Round(10*time.Millisecond), rewound)
}

// freeze stops the primary's whole node (SIGSTOP) for ttl + 8 s, then resumes it, and right then
// writes to it directly: it must not acknowledge a jobq write that the new primary lacks.
func (h *harness) freeze(ctx context.Context, t *testing.T) (time.Time, string) {
	old := h.c.Leader(ctx)
	require.NotNil(t, old)
	direct, err := pgxpool.New(ctx, h.c.NodeURL(old, "postgres"))
	require.NoError(t, err)
	defer direct.Close()
	require.NoError(t, direct.Ping(ctx))
	at := time.Now()
	require.NoError(t, h.c.Freeze(old))
	n, err := h.c.WaitLeader(ctx, old, ceiling)
	require.NoError(t, err)
	promoted := time.Since(at)
	for time.Since(at) < 20*time.Second {
		time.Sleep(100 * time.Millisecond)
	}
	require.NoError(t, h.c.Thaw(old))
	probe := fmt.Sprintf("probe-%d", time.Now().UnixNano())
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	_, werr := direct.Exec(cctx, `SELECT jobq.enqueue('exec', jsonb_build_object('probe', $1::text))`, probe)
	cancel()
	healthy := h.c.WaitHealthy(ctx, time.Minute)
	final := h.c.Leader(ctx)
	h.retaken = final != nil && final.Name == old.Name
	if healthy != nil && !h.retaken {
		// Measured, not hidden: the scenario's figures follow, then the test fails.
		t.Errorf("the old primary did not rejoin as a replica: %v", healthy)
	}
	if healthy != nil && h.retaken {
		// The same stall leaves Patroni 3.0.2's etcd3 cache stale ("Synchronous replication key
		// updated by someone else" at every loop: patroni/patroni#2779); restarting that
		// Patroni is the cure, as an operator would do.
		t.Logf("cluster not whole after the leader key was retaken (%v): restarting %s", healthy, old.Name)
		require.NoError(t, h.c.KillNode(old))
		require.NoError(t, h.c.StartNode(old))
		require.NoError(t, h.c.WaitHealthy(ctx, ceiling))
	}
	_, err = h.c.WaitLeader(ctx, nil, ceiling)
	require.NoError(t, err)
	var kept int
	require.NoError(t, h.admin.QueryRow(ctx, `SELECT (SELECT count(*) FROM jobq.jobs WHERE payload->>'probe' = $1) + (SELECT count(*) FROM jobq.job_history WHERE payload->>'probe' = $1)`, probe).Scan(&kept))
	acked := werr == nil
	if acked && kept == 0 && h.sync && !h.retaken {
		t.Errorf("the resumed old primary acknowledged a jobq write that the cluster lost")
	}
	h.short = "a write to the resumed old primary: refused"
	if acked {
		h.short = fmt.Sprintf("a write to the resumed old primary: acknowledged, kept %d", kept)
	}
	retaken := ""
	if h.retaken {
		retaken = fmt.Sprintf("; PATRONI TOOK THE LEADERSHIP BACK to %s and rewound %s", old.Name, n.Name)
	}
	return at, fmt.Sprintf("%s frozen 20 s; %s promoted after %s; write to the resumed old primary: acknowledged %v (error %v), kept %d%s",
		old.Name, n.Name, promoted.Round(10*time.Millisecond), acked, firstLine(werr), kept, retaken)
}

// etcdOutage stops etcd for ttl + 8 s: without failsafe_mode Patroni demotes the primary once it
// cannot renew the leader key, so the cluster takes no write until etcd is back.
func (h *harness) etcdOutage(ctx context.Context, t *testing.T) (time.Time, string) {
	old := h.c.Leader(ctx)
	require.NotNil(t, old)
	at := time.Now()
	require.NoError(t, h.c.StopEtcd())
	// Probe for writes during the outage.
	var writable, probes int
	var lastWrite time.Time
	for time.Since(at) < 20*time.Second {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := h.admin.Exec(cctx, `SELECT 1 FROM jobq.leader FOR UPDATE`)
		cancel()
		probes++
		if err == nil {
			writable++
			lastWrite = time.Now()
		}
		time.Sleep(200 * time.Millisecond)
	}
	back := time.Now()
	require.NoError(t, h.c.StartEtcd())
	n, err := h.c.WaitLeader(ctx, nil, ceiling)
	require.NoError(t, err)
	ro := "never"
	if !lastWrite.IsZero() {
		ro = lastWrite.Sub(at).Round(100 * time.Millisecond).String()
	}
	h.short = "writes taken until " + ro + " after etcd stopped"
	return at, fmt.Sprintf("etcd down 20 s; writes taken until %s after the stop (%d/%d probes); leader %s (was %s) %s after etcd came back",
		ro, writable, probes, n.Name, old.Name, time.Since(back).Round(10*time.Millisecond))
}

// checkCron requires exactly one handled slot per minute since the schedule was declared and at
// most one job per slot. Slots that fell between scenarios (no runner, so no leader) are caught up
// by the backfill: a runner runs until the leader has handled every slot due.
func (h *harness) checkCron(ctx context.Context, from time.Time) string {
	t := h.t
	w := h.worker(t, filepath.Join(h.dir, "cron.runs"))
	proctest.WaitUntil(t, ceiling, "every due cron slot handled", func() bool {
		var due time.Time
		err := h.admin.QueryRow(ctx, `SELECT next_slot_at FROM jobq.schedules WHERE name = 'ha-minute'`).Scan(&due)
		return err == nil && due.After(time.Now())
	})
	w.Signal(syscall.SIGTERM)
	w.Wait(time.Minute)
	var slots, enq, jobs, dupKeys int
	err := h.admin.QueryRow(ctx, `
		SELECT count(*), count(*) FILTER (WHERE outcome = 'enqueued') FROM jobq.schedule_runs
		WHERE schedule = 'ha-minute'`).Scan(&slots, &enq)
	require.NoError(t, err)
	err = h.admin.QueryRow(ctx, `
		WITH j AS (SELECT job_key FROM jobq.jobs WHERE job_key LIKE 'schedule:ha-minute:%'
		           UNION ALL SELECT job_key FROM jobq.job_history WHERE job_key LIKE 'schedule:ha-minute:%')
		SELECT count(*), count(*) - count(DISTINCT job_key) FROM j`).Scan(&jobs, &dupKeys)
	require.NoError(t, err)
	var missing int
	err = h.admin.QueryRow(ctx, `
		SELECT count(*) FROM generate_series(date_trunc('minute', $1::timestamptz) + interval '1 minute',
		                                     date_trunc('minute', now()), interval '1 minute') s
		WHERE NOT EXISTS (SELECT 1 FROM jobq.schedule_runs r WHERE r.schedule = 'ha-minute' AND r.slot_at = s)`, from).Scan(&missing)
	require.NoError(t, err)
	// Runs of each slot's job, from every exec log of this cluster (a slot's job that ran on a
	// timeline Patroni discarded, then again on the surviving one, shows here and nowhere else).
	runsBySlot := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(h.dir, "*.runs"))
	for _, file := range files {
		for _, line := range readLines(t, file) {
			i := strings.Index(line, "{")
			var p struct {
				Cron   bool   `json:"cron"`
				SlotAt string `json:"slotAt"`
			}
			if i >= 0 && json.Unmarshal([]byte(line[i:]), &p) == nil && p.Cron {
				runsBySlot[p.SlotAt]++
			}
		}
	}
	ranTwice := 0
	for _, k := range runsBySlot {
		if k > 1 {
			ranTwice++
		}
	}
	require.Zero(t, dupKeys, "at most one job per cron slot")
	require.Zero(t, missing, "every cron slot handled")
	if !h.defect {
		require.Zero(t, ranTwice, "each cron slot's job ran once")
	}
	return fmt.Sprintf("%d slots handled (%d enqueued), %d jobs, %d slots with two jobs, %d slots missing, %d slots run, %d of them twice", slots, enq, jobs, dupKeys, missing, len(runsBySlot), ranTwice)
}

func acks(ws []*proctest.Proc) []ack {
	var out []ack
	for i, w := range ws {
		for _, l := range w.Lines("job succeeded") {
			id, _ := l["jobId"].(float64)
			a, _ := l["attempt"].(float64)
			out = append(out, ack{id: int64(id), attempt: int(a), at: parseTime(l["time"]), worker: i})
		}
	}
	return out
}

func parseTime(v any) time.Time {
	s, _ := v.(string)
	ts, _ := time.Parse(time.RFC3339Nano, s)
	return ts
}

func readLines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func firstLine(err error) string {
	if err == nil {
		return "none"
	}
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// replicaNotStreaming cuts one replica (not the synchronous one: commits go on) off its leader for
// real: the replication role may no longer log in and the leader's walsender for it is
// terminated, so its walreceiver's every reconnection is refused while its PostgreSQL and Patroni
// stay up. WaitHealthy must refuse the cluster, naming that replica, and WaitJobq must name it
// once the leader's schema moves on without it (a migration row written on the leader, deleted
// afterwards). Letting the role log in again makes the cluster whole.
func (h *harness) replicaNotStreaming(ctx context.Context, t *testing.T) {
	c := h.c
	require.NoError(t, c.WaitHealthy(ctx, ceiling))
	require.NoError(t, c.WaitJobq(ctx, ceiling))
	leader := c.Leader(ctx)
	require.NotNil(t, leader)
	ms, err := c.Members(ctx)
	require.NoError(t, err)
	var cut *ha.Node
	for _, m := range ms {
		if m.Role == "replica" {
			cut = c.Node(m.Name)
		}
	}
	require.NotNil(t, cut, "a replica that is not the synchronous one: %+v", ms)
	direct, err := pgxpool.New(ctx, c.NodeURL(leader, "postgres"))
	require.NoError(t, err)
	defer direct.Close()
	restore := func() {
		_, err := direct.Exec(ctx, `ALTER ROLE replicator LOGIN`)
		require.NoError(t, err)
	}
	_, err = direct.Exec(ctx, `ALTER ROLE replicator NOLOGIN`)
	require.NoError(t, err)
	defer restore()
	_, err = direct.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_replication WHERE application_name = $1`, cut.Name)
	require.NoError(t, err)
	// The refusal holds however long one waits: the replica cannot reconnect. The wait only
	// bounds how long the test looks at it.
	err = c.WaitHealthy(ctx, 10*time.Second)
	require.Error(t, err, "a replica that streams from nobody counts as healthy")
	require.Contains(t, err.Error(), cut.Name+": no walsender of the leader "+leader.Name+" streams to it")
	for _, m := range mustMembers(ctx, t, c) {
		if m.Name == cut.Name {
			t.Logf("what Patroni's REST API says of the cut replica meanwhile: role %s, state %s, lag %v", m.Role, m.State, m.Lag)
		}
	}

	var next int64
	require.NoError(t, direct.QueryRow(ctx, `INSERT INTO jobq.goose_db_version (version_id, is_applied)
		SELECT max(version_id) + 1, true FROM jobq.goose_db_version RETURNING version_id`).Scan(&next))
	defer func() {
		_, err := direct.Exec(ctx, `DELETE FROM jobq.goose_db_version WHERE version_id = $1`, next)
		require.NoError(t, err)
	}()
	err = c.WaitJobq(ctx, 10*time.Second)
	require.Error(t, err, "a replica without the leader's newest migration passes")
	require.Contains(t, err.Error(), fmt.Sprintf("%s (replica): jobq schema at migration %d, the leader %s at %d", cut.Name, next-1, leader.Name, next))

	restore()
	require.NoError(t, c.WaitHealthy(ctx, ceiling), "the replica streams again once it may log in")
}

func mustMembers(ctx context.Context, t *testing.T, c *ha.Cluster) []ha.Member {
	ms, err := c.Members(ctx)
	require.NoError(t, err)
	return ms
}
