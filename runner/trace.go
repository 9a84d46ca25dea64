package runner

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobqdev/jobq"
)

// TracerName is the instrumentation scope of the runner's spans.
const TracerName = "github.com/jobqdev/jobq/runner"

// attemptTracing makes the span of each attempt: a consumer span named "process TASK", the child
// of the trace context the job was enqueued under (jobq.jobs.traceparent), with the job's
// attributes; a retry links to its first attempt's span. Without a tracer provider it makes no
// span and builds none of its attributes: the handler's context carries the job's trace context
// only (building the attributes for OpenTelemetry's no-op tracer was a tenth of an idle-handler
// runner's CPU, measured).
type attemptTracing struct {
	tracer   trace.Tracer                // nil: no provider, no span
	shutdown func(context.Context) error // flushes and stops the provider the runner made; nil for none
}

// tracesConfigured reports whether the standard OTEL_* variables ask for traces: an OTLP endpoint
// is set (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or
// OTEL_TRACES_EXPORTER is otlp, and neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none.
func tracesConfigured() bool {
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER"))) {
	case "none":
		return false
	case "otlp":
		return true
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// newAttemptTracing returns the tracing of a runner: provider when given, else an OTLP/HTTP
// exporter configured by the standard OTEL_* variables when they ask for traces, else none.
func newAttemptTracing(provider trace.TracerProvider) (*attemptTracing, error) {
	if provider != nil {
		return &attemptTracing{tracer: provider.Tracer(TracerName)}, nil
	}
	if !tracesConfigured() {
		return &attemptTracing{}, nil
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := os.Getenv(name); p != "" {
			if p != "http/protobuf" {
				return nil, fmt.Errorf("runner: %s=%s: the runner exports traces over OTLP/HTTP only (http/protobuf)", name, p)
			}
			break
		}
	}
	// The exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT, _COMPRESSION
	// and the certificates itself; the provider reads OTEL_TRACES_SAMPLER(_ARG) and the batch
	// processor's OTEL_BSP_*; the resource OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
	exp, err := otlptracehttp.New(context.Background())
	if err != nil {
		return nil, fmt.Errorf("runner: OTLP trace exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.Environment())
	if err != nil && res == nil {
		res = resource.Default()
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(attemptIDs{}))
	return &attemptTracing{tracer: tp.Tracer(TracerName), shutdown: tp.Shutdown}, nil
}

// close flushes the spans not yet exported (for up to timeout) and stops the provider the
// runner made.
func (t *attemptTracing) close(timeout time.Duration) error {
	if t == nil || t.shutdown == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return t.shutdown(ctx)
}

// endNoSpan ends an attempt that has no span.
func endNoSpan(error) {}

// jobTraceContext is the trace context job was enqueued under, as a remote span context;
// invalid when it has none (or one that does not parse).
func jobTraceContext(job *jobq.Job) trace.SpanContext {
	if job.Traceparent == "" {
		return trace.SpanContext{}
	}
	carrier := propagation.MapCarrier{"traceparent": job.Traceparent, "tracestate": job.Tracestate}
	return trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), carrier))
}

// attemptKey carries, in the context of an attempt's span start, the job and attempt whose span
// IDs attemptIDs derives.
type attemptKey struct{}

type attemptRef struct {
	jobID   int64
	created time.Time
	attempt int
}

// attemptIDs gives an attempt's span (and, for a job enqueued without a trace context, its
// trace) IDs derived from the job's id, creation time and attempt number, so that a retry, on
// any runner, can link to its first attempt's span without anything stored; other spans get
// random IDs.
type attemptIDs struct{}

var randomIDs = struct {
	sync.Mutex
	r *rand.ChaCha8
}{r: rand.NewChaCha8(seed())}

func seed() (s [32]byte) {
	binary.LittleEndian.PutUint64(s[:], rand.Uint64())
	binary.LittleEndian.PutUint64(s[8:], rand.Uint64())
	binary.LittleEndian.PutUint64(s[16:], rand.Uint64())
	binary.LittleEndian.PutUint64(s[24:], rand.Uint64())
	return s
}

func randomFill(b []byte) {
	randomIDs.Lock()
	defer randomIDs.Unlock()
	_, _ = randomIDs.r.Read(b)
}

func (attemptIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if a, ok := ctx.Value(attemptKey{}).(attemptRef); ok {
		tid := jobTraceID(a.jobID, a.created)
		return tid, attemptSpanID(tid, a.jobID, a.attempt)
	}
	var tid trace.TraceID
	var sid trace.SpanID
	for !tid.IsValid() {
		randomFill(tid[:])
	}
	for !sid.IsValid() {
		randomFill(sid[:])
	}
	return tid, sid
}

func (attemptIDs) NewSpanID(ctx context.Context, traceID trace.TraceID) trace.SpanID {
	if a, ok := ctx.Value(attemptKey{}).(attemptRef); ok {
		return attemptSpanID(traceID, a.jobID, a.attempt)
	}
	var sid trace.SpanID
	for !sid.IsValid() {
		randomFill(sid[:])
	}
	return sid
}

// jobTraceID is the trace of a job enqueued without a trace context: every attempt shares it.
func jobTraceID(jobID int64, created time.Time) trace.TraceID {
	h := sha256.Sum256([]byte("jobq trace " + strconv.FormatInt(jobID, 10) + " " + strconv.FormatInt(created.UnixNano(), 10)))
	var tid trace.TraceID
	copy(tid[:], h[:])
	if !tid.IsValid() {
		tid[0] = 1
	}
	return tid
}

// attemptSpanID is the span of attempt n of a job in trace tid.
func attemptSpanID(tid trace.TraceID, jobID int64, n int) trace.SpanID {
	h := sha256.Sum256([]byte("jobq attempt " + tid.String() + " " + strconv.FormatInt(jobID, 10) + " " + strconv.Itoa(n)))
	var sid trace.SpanID
	copy(sid[:], h[:])
	if !sid.IsValid() {
		sid[0] = 1
	}
	return sid
}

// start starts the span of job's attempt under ctx (the handler's context, which the span's
// context replaces) and returns the function that ends it with the handler's error.
func (t *attemptTracing) start(ctx context.Context, job *jobq.Job) (context.Context, func(error)) {
	parent := jobTraceContext(job)
	// The attempt runs under the job's trace context, or under none: not a child of whatever
	// span ctx carries (the attempt starts its job's own trace).
	if parent.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, parent)
	} else {
		ctx = trace.ContextWithSpanContext(ctx, trace.SpanContext{})
	}
	if t.tracer == nil {
		return ctx, endNoSpan // no span: the handler's context carries the trace context only
	}
	attrs := []attribute.KeyValue{
		attribute.String("messaging.system", "jobq"),
		attribute.String("messaging.operation.type", "process"),
		attribute.String("messaging.destination.name", job.Queue),
		attribute.String("messaging.message.id", strconv.FormatInt(job.ID, 10)),
		attribute.Int64("jobq.job.id", job.ID),
		attribute.String("jobq.task", job.Task),
		attribute.String("jobq.queue", job.Queue),
		attribute.Int("jobq.attempt", job.Attempt),
		attribute.Int("jobq.max_attempts", job.MaxAttempts),
	}
	if job.StoreID != nil {
		attrs = append(attrs, attribute.String("jobq.store_id", *job.StoreID))
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(attrs...)}
	if job.Attempt > 1 {
		// A retry links to its first attempt, whose span ID is derived as its own is.
		tid := parent.TraceID()
		if !parent.IsValid() {
			tid = jobTraceID(job.ID, job.CreatedAt)
		}
		first := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: attemptSpanID(tid, job.ID, 1),
			TraceFlags: parent.TraceFlags() | trace.FlagsSampled, Remote: true})
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: first,
			Attributes: []attribute.KeyValue{attribute.String("jobq.link", "first_attempt")}}))
	}
	spanCtx := context.WithValue(ctx, attemptKey{}, attemptRef{jobID: job.ID, created: job.CreatedAt, attempt: job.Attempt})
	spanCtx, span := t.tracer.Start(spanCtx, "process "+job.Task, opts...)
	return spanCtx, func(err error) {
		if err != nil {
			var he *handlerError
			if !errors.As(err, &he) || !he.isSnooze { // a snooze is no error
				span.RecordError(err)
				span.SetStatus(codes.Error, firstLine(err.Error()))
			}
		}
		span.End()
	}
}
