package runner_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"maps"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// claimCutter is a TCP proxy in front of PostgreSQL that can lose a claim's answer for real:
// armed, it holds back the server's answer to the next simple-protocol query that calls
// jobq.claim_job; when that answer holds rows and ends in ReadyForQuery (the claim committed),
// it drops the answer and closes both sides of the connection, so the client sees a broken
// connection for a claim that took jobs.
type claimCutter struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	armed  bool
	cutAt  time.Time
	cutRow int // DataRows dropped with the answer
	conns  []net.Conn
}

func newClaimCutter(t *testing.T, target string) *claimCutter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &claimCutter{ln: ln, target: target}
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.conns {
			c.Close()
		}
	})
	go p.accept()
	return p
}

func (p *claimCutter) port() uint16 { return uint16(p.ln.Addr().(*net.TCPAddr).Port) }

func (p *claimCutter) arm() {
	p.mu.Lock()
	p.armed = true
	p.mu.Unlock()
}

// cut returns when the answer was lost and how many rows it carried (zero time: not yet).
func (p *claimCutter) cut() (time.Time, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cutAt, p.cutRow
}

func (p *claimCutter) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, client, server)
		p.mu.Unlock()
		var inClaim atomic.Bool
		go p.clientToServer(client, server, &inClaim)
		go p.serverToClient(server, client, &inClaim)
	}
}

// clientToServer forwards the client's bytes; a query that calls jobq.claim_job while the proxy
// is armed marks the connection, before the server can answer it.
func (p *claimCutter) clientToServer(client, server net.Conn, inClaim *atomic.Bool) {
	defer server.Close()
	buf := make([]byte, 64<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			if bytes.Contains(buf[:n], []byte("jobq.claim_job(")) {
				p.mu.Lock()
				if p.armed {
					inClaim.Store(true)
				}
				p.mu.Unlock()
			}
			if _, werr := server.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// serverToClient forwards the server's messages one by one (every server message is a type
// byte and a length); the answer to a marked query is held back until its ReadyForQuery, then
// forwarded when it carried no row, or dropped with the connection when it did.
func (p *claimCutter) serverToClient(server, client net.Conn, inClaim *atomic.Bool) {
	defer client.Close()
	r := bufio.NewReader(server)
	var held bytes.Buffer
	rows := 0
	head := make([]byte, 5)
	for {
		if _, err := io.ReadFull(r, head); err != nil {
			return
		}
		body := make([]byte, int(binary.BigEndian.Uint32(head[1:]))-4)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		msg := append(append([]byte(nil), head...), body...)
		if !inClaim.Load() {
			if _, err := client.Write(msg); err != nil {
				return
			}
			continue
		}
		held.Write(msg)
		if head[0] == 'D' {
			rows++
		}
		if head[0] != 'Z' {
			continue
		}
		inClaim.Store(false)
		if rows == 0 {
			if _, err := client.Write(held.Bytes()); err != nil {
				return
			}
			held.Reset()
			continue
		}
		// The claim committed (ReadyForQuery follows the commit) and took rows: lose the answer.
		p.mu.Lock()
		if p.armed {
			p.armed = false
			p.cutAt, p.cutRow = time.Now(), rows
			p.mu.Unlock()
			client.Close()
			server.Close()
			return
		}
		p.mu.Unlock()
		if _, err := client.Write(held.Bytes()); err != nil {
			return
		}
		held.Reset()
		rows = 0
	}
}

// Issue 16, point 3: a claim commits but its answer never reaches the worker (the connection
// breaks between the commit and the answer). The worker's next claim first hands the jobs back
// (jobq.hand_back_unheld): they run at once, not after their lease (two minutes), each once, and
// the lost claim uses no attempt.
func TestRunnerLostClaimAnswerJobsRunAgainQuickly(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.define(t, "lost-claim")
	ctx := context.Background()

	cfg, err := pgxpool.ParseConfig(b.db.URL("worker_runtime"))
	require.NoError(t, err)
	cutter := newClaimCutter(t, net.JoinHostPort(cfg.ConnConfig.Host, strconv.Itoa(int(cfg.ConnConfig.Port))))
	cfg.ConnConfig.Host, cfg.ConnConfig.Port = "127.0.0.1", cutter.port()
	cfg.ConnConfig.Fallbacks = nil
	// The simple protocol: each claim is one Query message carrying its SQL, answered by rows
	// and a ReadyForQuery after the commit, which the proxy can recognise.
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	cfg.MaxConns = 10
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)

	const n = 5
	var mu sync.Mutex
	runs := map[int64]int{}
	rc := b.config()
	rc.Pool = pool
	rc.WorkerID = "lost-claim-worker"
	rc.Concurrency = n
	rc.Lease = 2 * time.Minute // far longer than the wait for every job: only the hand-back runs them in time
	rc.NoLeader = true
	r, err := runner.New(rc)
	require.NoError(t, err)
	r.HandleFunc("lost-claim", func(ctx context.Context, job *jobq.Job) error {
		mu.Lock()
		runs[job.ID]++
		mu.Unlock()
		return nil
	})
	start(t, r)

	cutter.arm()
	specs := make([]jobq.JobSpec, n)
	for i := range specs {
		specs[i] = jobq.JobSpec{Task: "lost-claim", Payload: map[string]int{"i": i}}
	}
	ids, err := b.client.EnqueueMany(ctx, specs) // one commit, one wake-up, one claim of all n
	require.NoError(t, err)
	waitFor(t, waitCeiling, "a claim's answer lost", func() bool { at, _ := cutter.cut(); return !at.IsZero() })
	cutAt, lostRows := cutter.cut()
	waitFor(t, waitCeiling, "every job succeeded", func() bool {
		return b.count(t, `SELECT count(*) FROM jobq.job_history WHERE state = 'succeeded' AND id = ANY($1)`, ids) == n
	})
	took := time.Since(cutAt)
	t.Logf("a claim of %d jobs lost its answer; every job succeeded %s later (lease %s)", lostRows, took.Round(time.Millisecond), rc.Lease)
	require.Less(t, took, rc.Lease/2, "the lost jobs run again at once, not after their lease")
	require.Equal(t, n, lostRows, "the lost answer carried every job")

	mu.Lock()
	counted := maps.Clone(runs)
	mu.Unlock() // never held across a require: the runner's handlers take it
	for _, id := range ids {
		require.Equal(t, 1, counted[id], "job %d ran once", id)
	}
	require.Equal(t, n, b.count(t, `SELECT count(*) FROM jobq.job_history WHERE id = ANY($1) AND attempt = 1`, ids),
		"the lost claim used no attempt")
	lines := b.logs.lines("jobs handed back: a claim committed but its answer was lost")
	require.Len(t, lines, 1)
	require.Equal(t, float64(lostRows), lines[0]["jobs"])
}
