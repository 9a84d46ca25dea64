// Command fenceworker is a worker for the self-fencing and pushed-cancel tests of package runner
// (fence_test.go). It serves three tasks, one per kind of handler, each of which records its start
// and its end in the file $EVENTS (one JSON line each, wall-clock nanoseconds, comparable across
// processes of one machine):
//
//   - fence-go: a Go handler that runs until its context ends (payload {"ms": n}: n ms at most);
//   - fence-cmd: runner.Command, a shell script that runs until SIGTERM;
//   - fence-http: runner.HTTPEndpoint POSTing to $HTTP_URL (the test's server records the events).
//
// The lease is 3 s and the heartbeat 1 s (the scenario) unless $LEASE and $HEARTBEAT say. $DATABASE_URL is the worker's
// connection (through the test's proxy, or not), $WORKER_ID its id.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// Script is fence-cmd's handler: it records its start, then its end on SIGTERM.
const script = `ev() { printf '{"task":"fence-cmd","job":%s,"attempt":%s,"worker":"%s","event":"%s","at":%s}\n' "$JOBQ_JOB_ID" "$JOBQ_ATTEMPT" "$WORKER" "$1" "$(date +%s%N)" >> "$EVENTS"; }
trap 'ev end; exit 143' TERM
ev start
while :; do sleep 0.02 & wait $!; done`

var mu sync.Mutex

func record(path, task, worker string, job *jobq.Job, event, cause string) {
	mu.Lock()
	defer mu.Unlock()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	b, _ := json.Marshal(map[string]any{"task": task, "job": job.ID, "attempt": job.Attempt, "worker": worker,
		"event": event, "at": time.Now().UnixNano(), "cause": cause})
	fmt.Fprintf(f, "%s\n", b)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	fail := func(what string, err error) {
		log.Error(what, "error", err.Error())
		os.Exit(1)
	}
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		fail("pool", err)
	}
	defer pool.Close()
	id, events := os.Getenv("WORKER_ID"), os.Getenv("EVENTS")
	tasks := []jobq.TaskDefinition{{Name: "fence-go"}, {Name: "fence-cmd"}, {Name: "fence-http"}}
	lease, heartbeat := 3*time.Second, time.Second
	if d, err := time.ParseDuration(os.Getenv("LEASE")); err == nil {
		lease = d
	}
	if d, err := time.ParseDuration(os.Getenv("HEARTBEAT")); err == nil {
		heartbeat = d
	}
	r, err := runner.New(runner.Config{Pool: pool, WorkerID: id, Concurrency: 60, Lease: lease,
		HeartbeatInterval: heartbeat, NoLeader: os.Getenv("NO_LEADER") == "1", Logger: log, Tasks: tasks, ClaimAhead: -1})
	if err != nil {
		fail("runner", err)
	}
	r.HandleFunc("fence-go", func(ctx context.Context, job *jobq.Job) error {
		record(events, "fence-go", id, job, "start", "")
		var p struct{ MS int }
		_ = json.Unmarshal(job.Payload, &p)
		limit := time.Hour
		if p.MS > 0 {
			limit = time.Duration(p.MS) * time.Millisecond
		}
		select {
		case <-ctx.Done():
			record(events, "fence-go", id, job, "end", context.Cause(ctx).Error())
			return context.Cause(ctx)
		case <-time.After(limit):
			record(events, "fence-go", id, job, "end", "returned")
			return nil
		}
	})
	cmd, err := runner.Command(runner.CommandConfig{Argv: []string{script}, Shell: true,
		Env: map[string]string{"EVENTS": events, "WORKER": id}, KillGrace: 10 * time.Second})
	if err != nil {
		fail("command", err)
	}
	r.Handle("fence-cmd", cmd)
	endpoint, err := runner.HTTPEndpoint(runner.HTTPConfig{URL: os.Getenv("HTTP_URL"), Secret: []byte("fence-test-secret-0123456789")})
	if err != nil {
		fail("endpoint", err)
	}
	r.Handle("fence-http", endpoint)
	if err := r.Run(ctx); err != nil {
		fail("run", err)
	}
}
