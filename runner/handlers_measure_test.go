//go:build measure

// The handler throughput of this file is built only with the tag measure: it asserts nothing
// about time.

package runner_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/runner"
)

// BenchmarkHandlerThroughput drains jobs whose handler does nothing, at one concurrency, with
// a Go function, a command (/bin/true, under its supervisor), a shell command (true, run by
// /bin/sh -c) and an HTTP endpoint (a local server answering 204), and reports jobs/s. Each
// iteration drains a fresh backlog with a runner in Once mode.
//
//	jobq sandbox -- go test -tags measure -run '^$' -bench HandlerThroughput -benchtime 3x ./runner/
func BenchmarkHandlerThroughput(b *testing.B) {
	const concurrency, jobs = 10, 2000
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(srv.Close)
	kinds := []struct {
		name string
		h    func(b *testing.B) runner.Handler
	}{
		{"go", func(*testing.B) runner.Handler {
			return runner.HandlerFunc(func(context.Context, *jobq.Job) error { return nil })
		}},
		{"command", func(b *testing.B) runner.Handler {
			h, err := runner.Command(runner.CommandConfig{Argv: []string{"true"}})
			require.NoError(b, err)
			return h
		}},
		{"shell", func(b *testing.B) runner.Handler {
			h, err := runner.Command(runner.CommandConfig{Argv: []string{"true"}, Shell: true})
			require.NoError(b, err)
			return h
		}},
		{"http", func(b *testing.B) runner.Handler {
			h, err := runner.HTTPEndpoint(runner.HTTPConfig{URL: srv.URL + "/jobs", Secret: []byte("0123456789abcdef")})
			require.NoError(b, err)
			return h
		}},
	}
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			db := dbtest.New(b)
			pool := db.Pool(b, "worker_runtime", concurrency+5)
			admin := jobq.NewClient(db.Pool(b, "postgres", 2))
			require.NoError(b, admin.DefineTask(context.Background(), jobq.TaskDefinition{Name: "noop"}))
			h := k.h(b)
			specs := make([]jobq.JobSpec, jobs)
			for i := range specs {
				specs[i] = jobq.JobSpec{Task: "noop", Payload: map[string]int{"i": i}}
			}
			var elapsed time.Duration
			for b.Loop() {
				b.StopTimer()
				_, err := admin.EnqueueMany(context.Background(), specs)
				require.NoError(b, err)
				r, err := runner.New(runner.Config{Pool: pool, Concurrency: concurrency, Once: true,
					Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
				require.NoError(b, err)
				r.Handle("noop", h)
				b.StartTimer()
				began := time.Now()
				require.NoError(b, r.Run(context.Background()))
				elapsed += time.Since(began)
			}
			b.ReportMetric(float64(jobs*b.N)/elapsed.Seconds(), "jobs/s")
		})
	}
}
