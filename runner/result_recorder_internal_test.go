package runner

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
)

// deadReporter is a Reporter that remembers what it was told.
type deadReporter struct {
	mu   sync.Mutex
	dead []DeadJob
}

func (d *deadReporter) ReportDead(_ context.Context, job DeadJob) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dead = append(d.dead, job)
}

// The result recorder, given only its hooks, counters, a reporter and a logger, counts each
// outcome under its task, reports a dead job with its reason, forgets every lease it is told
// about and lets a claim go after each batch. It talks to no database.
func TestResultRecorder(t *testing.T) {
	t.Parallel()
	counter := func(name string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name}, []string{"task"})
	}
	m := resultMetrics{completed: counter("completed"), failed: counter("failed"), dead: counter("dead"),
		snoozed: counter("snoozed"), returned: counter("returned"), leaseLost: counter("lease_lost")}
	var forgotten []int64
	claims := 0
	rep := &deadReporter{}
	logs := &syncBuffer{}
	r := &resultRecorder{forget: func(rj *runningJob) { forgotten = append(forgotten, rj.job.ID) },
		claimWanted: func() { claims++ }, metrics: m, reporter: rep, log: slog.New(slog.NewJSONHandler(logs, nil))}

	store := "store-1"
	job := func(id int64) *runningJob {
		return &runningJob{job: &jobq.Job{ID: id, Task: "mail", Queue: "default", Attempt: 3, StoreID: &store}}
	}
	ctx := context.Background()
	r.finished(ctx, finishItem{rj: job(1), kind: finishComplete}, "succeeded", nil)
	runAt := time.Now().Add(time.Minute)
	r.finished(ctx, finishItem{rj: job(2), kind: finishFail, failure: jobq.Failure{Error: "again"}}, "retry_pending", &runAt)
	r.finished(ctx, finishItem{rj: job(3), kind: finishFail, failure: jobq.Failure{Error: "boom\nstack", Fatal: true},
		duration: time.Second}, "dead", nil)
	r.finished(ctx, finishItem{rj: job(4), kind: finishSnooze, delay: time.Minute}, "snoozed", &runAt)
	r.finished(ctx, finishItem{rj: job(5), kind: finishSnooze, shutdown: true}, "snoozed", &runAt)
	r.finished(ctx, finishItem{rj: job(6), kind: finishComplete}, "lease_lost", nil)
	r.written()

	require.Equal(t, []int64{1, 2, 3, 4, 5, 6}, forgotten)
	require.Equal(t, 1, claims)
	require.Equal(t, 1.0, value(t, m.completed.WithLabelValues("mail")))
	require.Equal(t, 2.0, value(t, m.failed.WithLabelValues("mail")), "a retry and a death are failed attempts")
	require.Equal(t, 1.0, value(t, m.dead.WithLabelValues("mail")))
	require.Equal(t, 1.0, value(t, m.snoozed.WithLabelValues("mail")))
	require.Equal(t, 1.0, value(t, m.returned.WithLabelValues("mail")))
	require.Equal(t, 1.0, value(t, m.leaseLost.WithLabelValues("mail")))
	require.Equal(t, []DeadJob{{JobID: 3, Task: "mail", StoreID: "store-1", Queue: "default", Attempt: 3,
		Error: "boom\nstack", Reason: "not_retryable", Duration: time.Second}}, rep.dead)
	dead := logs.lines("job dead")
	require.Len(t, dead, 1)
	require.Equal(t, "boom", dead[0]["error"], "the log line carries the first line of the error")
	require.Len(t, logs.lines("job handed back at shutdown"), 1)
	lost := logs.lines("lease lost")
	require.Len(t, lost, 1)
	require.Equal(t, "complete", lost[0]["during"])
}
