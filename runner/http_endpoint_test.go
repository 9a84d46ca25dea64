package runner_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

var testSecret = []byte("0123456789abcdef-test-secret")

// received is one request an endpoint got.
type received struct {
	header http.Header
	body   []byte
	at     time.Time
}

// endpointServer answers each task's path with its own function and keeps what it received.
type endpointServer struct {
	*httptest.Server
	mu   sync.Mutex
	got  map[string][]received
	cond map[string]func(w http.ResponseWriter, r *http.Request, n int)
}

func newEndpointServer(t *testing.T) *endpointServer {
	s := &endpointServer{got: map[string][]received{}, cond: map[string]func(http.ResponseWriter, *http.Request, int){}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.got[r.URL.Path] = append(s.got[r.URL.Path], received{header: r.Header.Clone(), body: body, at: time.Now()})
		n := len(s.got[r.URL.Path])
		f := s.cond[r.URL.Path]
		s.mu.Unlock()
		f(w, r, n)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *endpointServer) on(path string, f func(w http.ResponseWriter, r *http.Request, n int)) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cond[path] = f
	return s.URL + path
}

func (s *endpointServer) requests(path string) []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.got[path]...)
}

func endpoint(t *testing.T, url string) runner.Handler {
	t.Helper()
	h, err := runner.HTTPEndpoint(runner.HTTPConfig{URL: url, Secret: testSecret, Header: map[string]string{"Authorization": "Bearer app-token"}})
	require.NoError(t, err)
	return h
}

func status(code int, body string, header ...string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

// The contract seen in the tables: a runner POSTs jobs to a real HTTP server, against a real
// database.
func TestHTTPEndpointUnderRunner(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tasks := []string{"http-ok", "http-429", "http-503", "http-404", "http-500", "http-refused", "http-redirect", "http-huge", "http-late"}
	b.define(t, tasks...)
	srv := newEndpointServer(t)
	cfg := b.config()
	cfg.Lease = 3 * time.Second // a heartbeat every second notices a lost lease soon
	r, err := runner.New(cfg)
	require.NoError(t, err)

	r.Handle("http-ok", endpoint(t, srv.on("/ok", status(204, ""))))
	r.Handle("http-429", endpoint(t, srv.on("/429", status(429, "slow down", "Retry-After", "3600"))))
	r.Handle("http-503", endpoint(t, srv.on("/503", func(w http.ResponseWriter, _ *http.Request, _ int) {
		// An HTTP date two hours after the database's now.
		w.Header().Set("Retry-After", dbNow(t, b.admin).Add(2*time.Hour).UTC().Format(http.TimeFormat))
		w.WriteHeader(503)
	})))
	r.Handle("http-404", endpoint(t, srv.on("/404", status(404, "no such order"))))
	r.Handle("http-500", endpoint(t, srv.on("/500", status(500, "database is down"))))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	refused := "http://" + ln.Addr().String() + "/refused"
	require.NoError(t, ln.Close())
	r.Handle("http-refused", endpoint(t, refused))
	r.Handle("http-redirect", endpoint(t, srv.on("/redirect", status(302, "", "Location", "https://example.com/elsewhere?token=x"))))
	const huge = 10 << 20
	r.Handle("http-huge", endpoint(t, srv.on("/huge", func(w http.ResponseWriter, _ *http.Request, _ int) {
		w.WriteHeader(500)
		chunk := []byte(strings.Repeat("x", 1023) + "\n")
		for written := 0; written < huge; written += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return // the handler stopped reading and closed the connection
			}
		}
	})))
	lateCancelled := make(chan struct{})
	lateArrived := make(chan struct{}, 2)
	r.Handle("http-late", endpoint(t, srv.on("/late", func(w http.ResponseWriter, r *http.Request, n int) {
		lateArrived <- struct{}{}
		if n == 1 {
			// Answer only after the lease is gone: the request is cancelled first.
			<-r.Context().Done()
			close(lateCancelled)
			return
		}
		w.WriteHeader(200)
	})))
	start(t, r)

	slow := jobq.EnqueueOptions{MaxAttempts: 5, BackoffBase: time.Hour}
	ok := b.enqueue(t, "http-ok", map[string]any{"order": 7}, jobq.EnqueueOptions{Timeout: time.Hour})
	tooMany := b.enqueue(t, "http-429", nil, slow)
	unavailable := b.enqueue(t, "http-503", nil, slow)
	notFound := b.enqueue(t, "http-404", nil, slow)
	serverError := b.enqueue(t, "http-500", nil, slow)
	connRefused := b.enqueue(t, "http-refused", nil, slow)
	redirect := b.enqueue(t, "http-redirect", nil, slow)
	tooBig := b.enqueue(t, "http-huge", nil, slow)
	late := b.enqueue(t, "http-late", nil, jobq.EnqueueOptions{BackoffBase: 10 * time.Millisecond})

	attempt := func(id int64) (reason, output string) {
		require.NoError(t, b.admin.QueryRow(context.Background(), `SELECT reason, coalesce(output, '')
			FROM jobq.job_attempts WHERE job_id = $1 AND attempt = 1`, id).Scan(&reason, &output))
		return
	}
	t.Run("2xxCompletesAndTheRequestIsSigned", func(t *testing.T) {
		row := b.waitState(t, ok, "succeeded")
		require.Equal(t, 1, row.Attempt)
		reqs := srv.requests("/ok")
		require.Len(t, reqs, 1)
		req := reqs[0]
		var body map[string]any
		require.NoError(t, json.Unmarshal(req.body, &body))
		require.Equal(t, float64(ok), body["id"])
		require.Equal(t, "http-ok", body["task"])
		require.Equal(t, "default", body["queue"])
		require.Equal(t, float64(1), body["attempt"])
		require.Equal(t, float64(25), body["max_attempts"])
		require.Nil(t, body["store_id"])
		require.Equal(t, map[string]any{"order": float64(7)}, body["payload"])
		var deadlineAt, claimedAt time.Time
		require.NoError(t, b.admin.QueryRow(context.Background(),
			`SELECT deadline_at, claimed_at FROM jobq.job_history WHERE id = $1`, ok).Scan(&deadlineAt, &claimedAt))
		require.Equal(t, deadlineAt.UTC().Truncate(time.Millisecond).Format("2006-01-02T15:04:05.000Z"), body["deadline"])
		require.Equal(t, body["deadline"], req.header.Get("Jobq-Deadline"))
		require.Equal(t, "application/json", req.header.Get("Content-Type"))
		require.Equal(t, strconv.FormatInt(ok, 10), req.header.Get("Jobq-Job-Id"))
		require.Equal(t, "1", req.header.Get("Jobq-Attempt"))
		require.Equal(t, "Bearer app-token", req.header.Get("Authorization"))

		sig := req.header.Get("Jobq-Signature")
		require.NoError(t, runner.VerifySignature(testSecret, sig, req.body, time.Now(), time.Minute))
		require.ErrorIs(t, runner.VerifySignature([]byte("another-secret-of-16+"), sig, req.body, time.Now(), time.Minute),
			runner.ErrSignatureInvalid, "a wrong secret")
		require.ErrorIs(t, runner.VerifySignature(testSecret, sig, append(req.body, ' '), time.Now(), time.Minute),
			runner.ErrSignatureInvalid, "a changed body")
		require.ErrorIs(t, runner.VerifySignature(testSecret, sig, req.body, time.Now().Add(10*time.Minute), 5*time.Minute),
			runner.ErrSignatureExpired, "a stale timestamp")
		// t is the database's time at the request: claimed_at plus the time since the claim.
		ts, err := strconv.ParseInt(strings.TrimPrefix(strings.Split(sig, ",")[0], "t="), 10, 64)
		require.NoError(t, err)
		require.InDelta(t, claimedAt.Unix(), ts, 2)
		// Neither the secret nor the signature is logged.
		require.NotContains(t, b.logs.String(), string(testSecret))
		require.NotContains(t, b.logs.String(), strings.Split(sig, "v1=")[1])
	})
	t.Run("429SnoozesForItsRetryAfter", func(t *testing.T) {
		var row jobRow
		waitFor(t, waitCeiling, "snoozed", func() bool { row = b.job(t, tooMany); return row.State == "queued" && row.RunAtIn > time.Minute })
		require.Equal(t, 0, row.Attempt, "no attempt used")
		require.InDelta(t, time.Hour.Seconds(), row.RunAtIn.Seconds(), 60)
	})
	t.Run("503SnoozesUntilItsRetryAfterDate", func(t *testing.T) {
		var row jobRow
		waitFor(t, waitCeiling, "snoozed", func() bool {
			row = b.job(t, unavailable)
			return row.State == "queued" && row.RunAtIn > time.Minute
		})
		require.Equal(t, 0, row.Attempt)
		require.InDelta(t, (2 * time.Hour).Seconds(), row.RunAtIn.Seconds(), 60)
	})
	t.Run("404FailsForGood", func(t *testing.T) {
		row := b.waitState(t, notFound, "dead")
		require.Equal(t, "not_retryable", row.Reason)
		require.Contains(t, row.LastError, "404 Not Found")
		require.Contains(t, row.LastError, "no such order")
		_, output := attempt(notFound)
		require.Equal(t, "no such order", output)
	})
	t.Run("500Retries", func(t *testing.T) {
		row := b.waitState(t, serverError, "retry_pending")
		require.Equal(t, 1, row.Attempt)
		require.Contains(t, row.LastError, "500 Internal Server Error")
		require.Contains(t, row.LastError, "database is down")
	})
	t.Run("ConnectionRefusedRetries", func(t *testing.T) {
		row := b.waitState(t, connRefused, "retry_pending")
		require.Equal(t, 1, row.Attempt)
		require.Contains(t, row.LastError, "connection refused")
	})
	t.Run("RedirectIsNotFollowedAndFailsForGood", func(t *testing.T) {
		row := b.waitState(t, redirect, "dead")
		require.Equal(t, "not_retryable", row.Reason)
		require.Contains(t, row.LastError, "302 Found")
		require.Contains(t, row.LastError, "not followed")
		require.NotContains(t, row.LastError, "token=x", "a URL's query is not shown")
	})
	t.Run("10MBAnswerIsCut", func(t *testing.T) {
		row := b.waitState(t, tooBig, "retry_pending")
		require.Contains(t, row.LastError, "answer cut after 65536 bytes")
		require.Less(t, len(row.LastError), 8<<10)
		_, output := attempt(tooBig)
		require.Len(t, output, runner.DefaultCommandOutputTail)
	})
	t.Run("AnswerAfterTheLeaseIsCancelledAndTheJobRunsOnceMore", func(t *testing.T) {
		select {
		case <-lateArrived:
		case <-time.After(waitCeiling):
			t.Fatal("the first request never came")
		}
		// The lease expires and a sweep takes the job back, as after a worker stalled.
		require.NoError(t, pgx.BeginFunc(context.Background(), b.admin, func(tx pgx.Tx) error {
			if _, err := tx.Exec(context.Background(), `UPDATE jobq.jobs SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, late); err != nil {
				return err
			}
			_, err := tx.Exec(context.Background(), `SELECT jobq.rescue_expired()`)
			return err
		}))
		select {
		case <-lateCancelled:
		case <-time.After(waitCeiling):
			t.Fatal("the request was not cancelled when the lease was lost")
		}
		row := b.waitState(t, late, "succeeded")
		require.Equal(t, 2, row.Attempt)
		require.Len(t, srv.requests("/late"), 2, "once more, exactly")
		reason, _ := attempt(late)
		require.Equal(t, "orphaned", reason)
	})
}

func TestHTTPEndpointConfig(t *testing.T) {
	t.Parallel()
	_, err := runner.HTTPEndpoint(runner.HTTPConfig{URL: "https://alice:hunter2-password@example.com/jobs", Secret: testSecret})
	require.ErrorContains(t, err, "user or password")
	require.NotContains(t, err.Error(), "hunter2")
	for _, cfg := range []runner.HTTPConfig{
		{URL: "https://example.com/jobs"},
		{URL: "https://example.com/jobs", Secret: []byte("short")},
		{URL: "ftp://example.com/jobs", Secret: testSecret},
		{URL: "/jobs", Secret: testSecret},
		{URL: "https://example.com/jobs", Secret: testSecret, Header: map[string]string{"Jobq-Signature": "x"}},
		{URL: "https://example.com/jobs", Secret: testSecret, Header: map[string]string{"content-type": "text/plain"}},
		{URL: "https://example.com/jobs", Secret: testSecret, Timeout: -time.Second},
	} {
		_, err := runner.HTTPEndpoint(cfg)
		require.Error(t, err, "%+v", cfg)
	}
}

func TestVerifySignature(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"id":1}`)
	sig := runner.Sign(testSecret, now, body)
	require.NoError(t, runner.VerifySignature(testSecret, sig, body, now.Add(4*time.Minute), 0), "within the default tolerance")
	require.ErrorIs(t, runner.VerifySignature(testSecret, sig, body, now.Add(6*time.Minute), 0), runner.ErrSignatureExpired)
	require.ErrorIs(t, runner.VerifySignature(testSecret, sig, body, now.Add(-6*time.Minute), 0), runner.ErrSignatureExpired)
	// A rotation: two v1 signatures, one of them with the current secret.
	other := runner.Sign([]byte("the-previous-secret-0000"), now, body)
	require.NoError(t, runner.VerifySignature(testSecret, other+","+strings.Split(sig, ",")[1], body, now, 0))
	for _, bad := range []string{"", "t=", "v1=00", "t=1800000000", "t=x,v1=" + strings.Split(sig, "v1=")[1], sig + ",t=1800000001", "garbage"} {
		require.ErrorIs(t, runner.VerifySignature(testSecret, bad, body, now, 0), runner.ErrSignatureInvalid, bad)
	}
}

func TestHTTPEndpointWork(t *testing.T) {
	t.Parallel()
	srv := newEndpointServer(t)
	job := &jobq.Job{ID: 5, Task: "t", Queue: "default", Payload: json.RawMessage(`{}`), Attempt: 1, MaxAttempts: 3}
	t.Run("NoAnswerInTimeRetriesAsTimedOut", func(t *testing.T) {
		t.Parallel()
		url := srv.on("/hang", func(_ http.ResponseWriter, r *http.Request, _ int) { <-r.Context().Done() })
		h, err := runner.HTTPEndpoint(runner.HTTPConfig{URL: url, Secret: testSecret, Timeout: 300 * time.Millisecond})
		require.NoError(t, err)
		err = h.Work(context.Background(), job)
		require.ErrorIs(t, err, runner.ErrHandlerTimeout)
		v := runner.VerdictOf(job, err)
		require.Equal(t, "timed_out", v.Failure.Reason)
		require.False(t, v.Failure.Fatal)
	})
	t.Run("ConnectionResetRetries", func(t *testing.T) {
		t.Parallel()
		url := srv.on("/reset", func(w http.ResponseWriter, _ *http.Request, _ int) {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.(*net.TCPConn).SetLinger(0) // RST, not FIN
				_ = conn.Close()
			}
		})
		v := runner.VerdictOf(job, endpoint(t, url).Work(context.Background(), job))
		require.Equal(t, runner.VerdictFail, v.Kind)
		require.False(t, v.Failure.Fatal)
		require.Contains(t, v.Failure.Error, "POST "+srv.URL+"/reset: connection reset")
	})
	t.Run("RetryAfterMissingOrUnusableIsTheDefault", func(t *testing.T) {
		t.Parallel()
		for path, header := range map[string][]string{"/503-none": nil, "/503-bad": {"Retry-After", "soon"}, "/429-huge": {"Retry-After", "99999999999"}} {
			code := 503
			if strings.HasPrefix(path, "/429") {
				code = 429
			}
			v := runner.VerdictOf(job, endpoint(t, srv.on(path, status(code, "", header...))).Work(context.Background(), job))
			require.Equal(t, runner.VerdictSnooze, v.Kind, path)
			want := runner.DefaultSnooze
			if path == "/429-huge" {
				want = runner.MaxSnooze
			}
			require.Equal(t, want, v.Delay, path)
		}
	})
}
