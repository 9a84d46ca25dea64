package jobq

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/trace"
)

// traceContext is the W3C traceparent and tracestate of the span ctx carries, "" when it
// carries none.
func traceContext(ctx context.Context) (traceparent, tracestate string) {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return "", ""
	}
	return fmt.Sprintf("00-%s-%s-%s", sc.TraceID(), sc.SpanID(), sc.TraceFlags()), sc.TraceState().String()
}

// withTrace makes arg, the SQL of the first argument an enqueue evaluates, set the session
// settings jobq.traceparent and jobq.tracestate (for the transaction) to the span ctx carries
// before it is evaluated, and so before the enqueue's insert, whose column defaults capture them
// (sql/migrations/00025_trace_context.sql). The two values are bound as parameters $next and
// $next+1, appended to args. Without a span, arg and args are returned as they are: the
// statement is the same as before traces.
func withTrace(ctx context.Context, arg string, next int, args []any) (string, []any) {
	traceparent, tracestate := traceContext(ctx)
	if traceparent == "" {
		return arg, args
	}
	// set_config never returns NULL, so both calls run, in order, before arg is evaluated.
	return fmt.Sprintf("CASE WHEN pg_catalog.set_config('jobq.traceparent', $%d, true) IS NOT NULL"+
			" AND pg_catalog.set_config('jobq.tracestate', $%d, true) IS NOT NULL THEN %s END", next, next+1, arg),
		append(args, traceparent, tracestate)
}
