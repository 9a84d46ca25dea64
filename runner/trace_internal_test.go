package runner

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobqdev/jobq"
)

// Without OTEL_* variables that ask for traces (or with the SDK disabled, or the exporter none)
// the runner makes no span: OpenTelemetry's no-op tracer, nothing recorded or exported; a job's
// trace context still reaches the handler's context. A protocol other than http/protobuf is
// refused.
func TestTracesAreANoOpUnlessTheEnvironmentAsksForThem(t *testing.T) {
	// Not parallel: the variables are the process's.
	for _, name := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER",
		"OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		t.Setenv(name, "")
	}
	job := &jobq.Job{ID: 7, Task: "t", Queue: "q", Attempt: 2, CreatedAt: time.Now(),
		Traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	noop := func(t *testing.T) {
		t.Helper()
		tr, err := newAttemptTracing(nil)
		require.NoError(t, err)
		require.Nil(t, tr.shutdown, "no provider, nothing to flush")
		ctx, end := tr.start(context.Background(), job)
		span := trace.SpanFromContext(ctx)
		require.False(t, span.IsRecording(), "nothing is recorded")
		require.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", span.SpanContext().TraceID().String(), "the job's trace context")
		end(nil)
		// A job enqueued without a trace context runs under none, not under the span of the
		// context the runner was given.
		outer := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled}))
		plain := &jobq.Job{ID: 8, Task: "t", Queue: "q", Attempt: 1, CreatedAt: time.Now()}
		ctx, end = tr.start(outer, plain)
		require.False(t, trace.SpanContextFromContext(ctx).IsValid(), "no trace context for a job enqueued without one")
		end(nil)
		// And it builds no span: no attributes, links or span IDs (a span's attributes alone are
		// a dozen allocations), at most the context that carries the trace context.
		allocs := testing.AllocsPerRun(100, func() {
			_, end := tr.start(outer, plain)
			end(nil)
		})
		require.LessOrEqual(t, allocs, 2.0, "allocations of an attempt without a span")
	}
	t.Run("NoVariables", noop)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_SDK_DISABLED", "true")
	t.Run("SDKDisabled", noop)
	t.Setenv("OTEL_SDK_DISABLED", "")
	t.Setenv("OTEL_TRACES_EXPORTER", "none")
	t.Run("ExporterNone", noop)
	t.Setenv("OTEL_TRACES_EXPORTER", "")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	_, err := newAttemptTracing(nil)
	require.ErrorContains(t, err, "OTLP/HTTP only")
}
