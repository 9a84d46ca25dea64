package runner_test

import (
	"compress/gzip"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// otlpReceiver is an OTLP/HTTP trace collector in the test: it decodes what the runner's real
// exporter sends to /v1/traces.
type otlpReceiver struct {
	srv   *httptest.Server
	mu    sync.Mutex
	spans []*tracepb.Span
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	rc := &otlpReceiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			gz, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = gz
		}
		raw, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req collectortrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(raw, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				rc.spans = append(rc.spans, ss.Spans...)
			}
		}
		rc.mu.Unlock()
		out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// ofJob returns the received spans of job id, by attempt.
func (rc *otlpReceiver) ofJob(id int64) map[int64]*tracepb.Span {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	got := map[int64]*tracepb.Span{}
	for _, s := range rc.spans {
		if intAttr(s.Attributes, "jobq.job.id") == id {
			got[intAttr(s.Attributes, "jobq.attempt")] = s
		}
	}
	return got
}

func intAttr(attrs []*commonpb.KeyValue, key string) int64 {
	for _, a := range attrs {
		if a.Key == key {
			return a.Value.GetIntValue()
		}
	}
	return -1
}

func stringAttr(attrs []*commonpb.KeyValue, key string) string {
	for _, a := range attrs {
		if a.Key == key {
			return a.Value.GetStringValue()
		}
	}
	return ""
}

// The runner, configured by the standard OTEL_* variables only, exports one span per attempt over
// OTLP/HTTP with the job's attributes: the child of the trace context the job was enqueued under
// (by the Go client from its context's span, or by SQL from set_config('jobq.traceparent', ...)),
// seen by the handler in its context; a retry links to its first attempt's span. A job enqueued
// without one gets a trace of its own, shared by its attempts.
func TestTraceOfEachAttemptContinuesTheProducersTrace(t *testing.T) {
	// Not parallel: the variables are the process's.
	rc := newOTLPReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", rc.srv.URL)
	t.Setenv("OTEL_SERVICE_NAME", "jobq-trace-test")
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	b := setup(t)
	b.define(t, "traced", "traced-sql")
	r, err := runner.New(b.config())
	require.NoError(t, err)
	var mu sync.Mutex
	seen := map[int64]trace.SpanContext{} // the span each handler saw in its context, by job
	r.Handle("traced", runner.HandlerFunc(func(ctx context.Context, job *jobq.Job) error {
		mu.Lock()
		seen[job.ID] = trace.SpanContextFromContext(ctx)
		mu.Unlock()
		if job.Attempt == 1 {
			return errors.New("first attempt fails")
		}
		return nil
	}))
	r.Handle("traced-sql", runner.HandlerFunc(func(context.Context, *jobq.Job) error { return nil }))
	stop := start(t, r)

	// A Go producer: its context's span.
	producer := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:  trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}, TraceFlags: trace.FlagsSampled})
	ctx := trace.ContextWithSpanContext(context.Background(), producer)
	goJob, err := b.client.Enqueue(ctx, "traced", nil, jobq.EnqueueOptions{BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})
	require.NoError(t, err)

	// A psql (or Python, Node) producer: the session setting in the enqueue's transaction.
	tx, err := b.admin.Begin(context.Background())
	require.NoError(t, err)
	_, err = tx.Exec(context.Background(), `SELECT set_config('jobq.traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', true)`)
	require.NoError(t, err)
	var sqlJob int64
	require.NoError(t, tx.QueryRow(context.Background(), `SELECT jobq.enqueue('traced-sql')`).Scan(&sqlJob))
	require.NoError(t, tx.Commit(context.Background()))

	// No producer trace.
	plain := b.enqueue(t, "traced", nil, jobq.EnqueueOptions{BackoffBase: time.Millisecond, BackoffMax: time.Millisecond})

	b.waitState(t, goJob, "succeeded")
	b.waitState(t, sqlJob, "succeeded")
	b.waitState(t, plain, "succeeded")
	require.NoError(t, stop()) // flushes the spans
	waitFor(t, waitCeiling, "the spans exported", func() bool {
		return len(rc.ofJob(goJob)) == 2 && len(rc.ofJob(sqlJob)) == 1 && len(rc.ofJob(plain)) == 2
	})

	spans := rc.ofJob(goJob)
	first, second := spans[1], spans[2]
	for _, s := range []*tracepb.Span{first, second} {
		require.Equal(t, producer.TraceID().String(), hex.EncodeToString(s.TraceId), "the producer's trace")
		require.Equal(t, producer.SpanID().String(), hex.EncodeToString(s.ParentSpanId), "the child of the producer's span")
		require.Equal(t, "process traced", s.Name)
		require.Equal(t, tracepb.Span_SPAN_KIND_CONSUMER, s.Kind)
		require.Equal(t, "traced", stringAttr(s.Attributes, "jobq.task"))
		require.Equal(t, "default", stringAttr(s.Attributes, "jobq.queue"))
		require.Equal(t, "default", stringAttr(s.Attributes, "messaging.destination.name"))
		require.Equal(t, "jobq", stringAttr(s.Attributes, "messaging.system"))
	}
	require.Equal(t, tracepb.Status_STATUS_CODE_ERROR, first.Status.GetCode(), "the failed attempt")
	require.NotEqual(t, tracepb.Status_STATUS_CODE_ERROR, second.Status.GetCode())
	require.Len(t, second.Links, 1, "the retry links to its first attempt")
	require.Equal(t, first.SpanId, second.Links[0].SpanId)
	require.Equal(t, first.TraceId, second.Links[0].TraceId)
	mu.Lock()
	require.Equal(t, producer.TraceID(), seen[goJob].TraceID(), "the handler's context carries the attempt's span")
	require.Equal(t, hex.EncodeToString(second.SpanId), seen[goJob].SpanID().String())
	mu.Unlock()

	s := rc.ofJob(sqlJob)[1]
	require.Equal(t, "0af7651916cd43dd8448eb211c80319c", hex.EncodeToString(s.TraceId), "the SQL producer's trace")
	require.Equal(t, "b7ad6b7169203331", hex.EncodeToString(s.ParentSpanId))

	spans = rc.ofJob(plain)
	require.Empty(t, spans[1].ParentSpanId, "without a producer trace the first attempt is a root")
	require.Equal(t, spans[1].TraceId, spans[2].TraceId, "and its retry shares its trace")
	require.NotEqual(t, producer.TraceID().String(), hex.EncodeToString(spans[1].TraceId))
	require.Equal(t, spans[1].SpanId, spans[2].Links[0].SpanId)
}
