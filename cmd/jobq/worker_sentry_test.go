package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
)

// sentryServer receives real Sentry envelopes and keeps their events.
type sentryServer struct {
	*httptest.Server
	mu     sync.Mutex
	events []map[string]any
}

func newSentryServer(t *testing.T) *sentryServer {
	s := &sentryServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			gz, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body = gz
		}
		raw, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/envelope/") {
			s.mu.Lock()
			s.events = append(s.events, envelopeEvents(raw)...)
			s.mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"0"}`))
	}))
	t.Cleanup(s.Close)
	return s
}

// envelopeEvents returns the payloads of the "event" items of a Sentry envelope: a header line,
// then for each item a header line and its payload.
func envelopeEvents(raw []byte) []map[string]any {
	var events []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	sc.Scan() // envelope header
	for sc.Scan() {
		var item struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(sc.Bytes(), &item) != nil || !sc.Scan() {
			break
		}
		if item.Type == "event" {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				events = append(events, ev)
			}
		}
	}
	return events
}

func (s *sentryServer) received() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.events...)
}

// GWT-10: the final failure of a job sends exactly one Sentry event, with task name, storeId,
// attempt and error; a failure that will be retried sends none.
func TestWorkerSentryOneEventPerDeadJob(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	admin := db.Pool(t, "postgres", 2)
	sentry := newSentryServer(t)
	dsn := strings.Replace(sentry.URL, "http://", "http://publickey@", 1) + "/42"
	w := startWorker(t, []string{"SENTRY_DSN=" + dsn}, "--database-url", db.URL("worker_runtime"),
		"--exec-command", `echo "card declined for $JOBQ_JOB_ID" >&2; exit 1`)

	w.waitStarted()

	c := jobq.NewClient(admin)
	store := "0b7d1e6e-2f0a-4a5e-8d0c-3c1f4a9b6e21"
	diesSecond := enqueue(t, c, "exec", nil, jobq.EnqueueOptions{MaxAttempts: 2, BackoffBase: 100 * time.Millisecond})
	retries := enqueue(t, c, "exec", nil, jobq.EnqueueOptions{MaxAttempts: 5, BackoffBase: time.Hour})
	// The worker declared exec as a system task. For a dead job of a store, the test declares
	// exec store-scoped from SQL (the declaration holds until a worker starts again); the worker
	// runs exec jobs whatever their scope.
	require.NoError(t, c.DefineTask(context.Background(), jobq.TaskDefinition{Name: "exec", Scope: jobq.ScopeStore}))
	diesAtOnce := enqueue(t, c, "exec", nil, jobq.EnqueueOptions{MaxAttempts: 1, StoreID: store})
	waitUntil(t, 15*time.Second, "two dead jobs and one retry", func() bool {
		s1, _ := liveOrFinished(t, admin, diesAtOnce)
		s2, _ := liveOrFinished(t, admin, diesSecond)
		s3, _ := liveOrFinished(t, admin, retries)
		return s1 == "dead" && s2 == "dead" && s3 == "retry_pending"
	})
	w.signal(syscall.SIGTERM) // the worker flushes Sentry before it exits
	require.Equal(t, 0, w.wait(15*time.Second))

	byJob := map[string][]map[string]any{}
	for _, ev := range sentry.received() {
		tags, _ := ev["tags"].(map[string]any)
		id, _ := tags["jobId"].(string)
		byJob[id] = append(byJob[id], ev)
	}
	require.Len(t, byJob, 2, "events for the two dead jobs only: %v", byJob)
	key := func(id int64) string { return strconv.FormatInt(id, 10) }
	require.Len(t, byJob[key(diesAtOnce)], 1, "exactly one event for a job that dies")
	require.Len(t, byJob[key(diesSecond)], 1, "one event for its final failure, none for its retry")
	require.Empty(t, byJob[key(retries)], "no event for a retry")

	ev := byJob[key(diesAtOnce)][0]
	tags := ev["tags"].(map[string]any)
	require.Equal(t, "exec", tags["taskName"])
	require.Equal(t, store, tags["storeId"])
	require.Equal(t, "1", tags["attempt"])
	require.Equal(t, "2", byJob[key(diesSecond)][0]["tags"].(map[string]any)["attempt"])
	evJSON, _ := json.Marshal(ev)
	require.Contains(t, string(evJSON), "card declined for "+key(diesAtOnce), "the error is in the event")
}
