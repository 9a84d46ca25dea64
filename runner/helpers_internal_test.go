package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/engine"
)

// The tests in the *_internal_test.go files exercise one component of the runner alone, through
// the narrow dependencies it takes, against a real database where it talks to one. No Runner is
// built.

// unitBundle is one component test's database and connections.
type unitBundle struct {
	db     *dbtest.DB
	pool   *pgxpool.Pool  // worker_runtime: what runners use
	admin  *pgxpool.Pool  // postgres: for arranging and looking at state
	client *engine.Engine // on pool: the runner's calls and a jobq.Client's
	logs   *syncBuffer
	log    *slog.Logger
}

func setupUnit(t *testing.T) *unitBundle {
	t.Helper()
	db := dbtest.New(t)
	pool := db.Pool(t, "worker_runtime", 8)
	logs := &syncBuffer{}
	b := &unitBundle{db: db, pool: pool, admin: db.Pool(t, "postgres", 4), client: engine.New(pool), logs: logs,
		log: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("logs:\n%s", logs.String())
		}
	})
	return b
}

// claimJobs declares task, enqueues n jobs of it in queue default and claims them as worker.
func (b *unitBundle) claimJobs(t *testing.T, worker, task string, n int) []jobq.Job {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, jobq.NewClient(b.admin).DefineTask(ctx, jobq.TaskDefinition{Name: task}))
	for range n {
		_, err := b.client.Enqueue(ctx, task, nil, jobq.EnqueueOptions{})
		require.NoError(t, err)
	}
	jobs, err := b.client.Claim(ctx, worker, []string{"default"}, n, time.Minute)
	require.NoError(t, err)
	require.Len(t, jobs, n)
	return jobs
}

// state returns a job's state, live or finished.
func (b *unitBundle) state(t *testing.T, id int64) string {
	t.Helper()
	var s string
	require.NoError(t, b.admin.QueryRow(context.Background(), `
		SELECT state FROM (SELECT state FROM jobq.jobs WHERE id = $1
		                   UNION ALL SELECT state FROM jobq.job_history WHERE id = $1) j`, id).Scan(&s))
	return s
}

func (b *unitBundle) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	_, err := b.admin.Exec(context.Background(), sql, args...)
	require.NoError(t, err)
}

// syncBuffer collects JSON log lines; safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// lines returns the decoded log lines whose msg is msg.
func (s *syncBuffer) lines(msg string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(s.String(), "\n") {
		var m map[string]any
		if line != "" && json.Unmarshal([]byte(line), &m) == nil && m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// waitCeiling bounds a wait for an event that must come (eventually, woken): it only stops a
// test that would otherwise hang, so it is far longer than any such event takes on a loaded
// machine (issue 29).
const waitCeiling = 60 * time.Second

// eventually polls cond every 10 ms until it holds, failing t after timeout.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sample reads one sample of reg: the metric name with the given label pairs ("reason",
// "privilege"). ok is false when no such sample exists.
func sample(t *testing.T, reg prometheus.Gatherer, name string, labels ...string) (v float64, ok bool) {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	samples:
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			for i := 0; i+1 < len(labels); i += 2 {
				if got[labels[i]] != labels[i+1] {
					continue samples
				}
			}
			switch {
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue(), true
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue(), true
			}
		}
	}
	return 0, false
}

// fixedTuning is a tuning whose intervals never change.
type fixedTuning struct{ t tunables }

func (f fixedTuning) tunables() tunables     { return f.t }
func (f fixedTuning) tuned() <-chan struct{} { return nil }

// value reads a gauge or a counter without labels.
func value(t *testing.T, c prometheus.Collector) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	require.NoError(t, err)
	require.Len(t, families, 1)
	v, ok := sample(t, reg, families[0].GetName())
	require.True(t, ok)
	return v
}
