package jobq_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/testbundle"
)

// Enqueue and EnqueueMany keep the W3C trace context of their context's span with the job
// (jobq.jobs.traceparent, tracestate), whose attempts' spans continue it; without a span the job
// has none, and the statement is the one of before traces. The claim returns the context.
func TestEnqueueKeepsTheContextsTraceContext(t *testing.T) {
	t.Parallel()
	b := testbundle.New(t)
	b.Define(t, "traced")
	state, err := trace.ParseTraceState("vendor=abc,other=x")
	require.NoError(t, err)
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:  trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}, TraceFlags: trace.FlagsSampled, TraceState: state})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	const want = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

	one, err := b.Worker.Enqueue(ctx, "traced", nil, jobq.EnqueueOptions{Queue: "traced"})
	require.NoError(t, err)
	many, err := b.Worker.EnqueueMany(ctx, []jobq.JobSpec{{Task: "traced", EnqueueOptions: jobq.EnqueueOptions{Queue: "traced"}},
		{Task: "traced", EnqueueOptions: jobq.EnqueueOptions{Queue: "traced", JobKey: "k"}}})
	require.NoError(t, err)
	plain, err := b.Worker.Enqueue(context.Background(), "traced", nil, jobq.EnqueueOptions{Queue: "plain"})
	require.NoError(t, err)

	var traced int
	require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT count(*) FROM jobq.jobs WHERE id = ANY ($1)
		AND traceparent = $2 AND tracestate = 'vendor=abc,other=x'`, append(many, one), want).Scan(&traced))
	require.Equal(t, 3, traced, "Enqueue and EnqueueMany (keyless and keyed) keep the span's context")
	var none bool
	require.NoError(t, b.Admin.QueryRow(b.Ctx, `SELECT traceparent IS NULL AND tracestate IS NULL FROM jobq.jobs WHERE id = $1`, plain).Scan(&none))
	require.True(t, none, "a context without a span enqueues without a trace context")

	jobs, err := b.Worker.Claim(b.Ctx, "w", []string{"traced"}, 3, time.Minute)
	require.NoError(t, err)
	require.Len(t, jobs, 3)
	for _, j := range jobs {
		require.Equal(t, want, j.Traceparent)
		require.Equal(t, "vendor=abc,other=x", j.Tracestate)
	}
}
