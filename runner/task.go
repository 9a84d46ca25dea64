package runner

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq"
)

// Task is a task whose payload has the Go type T. Declare it once, next to T, and use it on
// both sides: Enqueue accepts only a T, and Handle gives the handler a decoded T. A payload with
// a misspelled or absent field, or of another task's type, then fails to compile instead of
// failing a job:
//
//	type SendEmail struct {
//		To      string `json:"to"`
//		Subject string `json:"subject"`
//	}
//
//	var SendEmailTask = runner.NewTask[SendEmail]("send-email", jobq.EnqueueOptions{MaxAttempts: 5})
//
//	id, err := SendEmailTask.Enqueue(ctx, tx, SendEmail{To: "a@example.com", Subject: "Hi"}, nil)
//
//	runner.Handle(r, SendEmailTask, func(ctx context.Context, job *runner.Job[SendEmail]) error {
//		return send(ctx, job.Args.To, job.Args.Subject)
//	})
//
// T must marshal to a JSON object (a struct, usually).
type Task[T any] struct {
	name     string
	defaults jobq.EnqueueOptions
}

// NewTask declares the task name with payload type T. defaults are the enqueue options every
// enqueue of the task starts from (queue, max attempts, timeout, backoff, job key mode...).
func NewTask[T any](name string, defaults jobq.EnqueueOptions) Task[T] {
	return Task[T]{name: name, defaults: defaults}
}

// Name returns the task name.
func (t Task[T]) Name() string { return t.name }

// Enqueue adds one job of this task on db (a pool, a connection, or the caller's transaction).
// opts, when not nil, override the task's defaults field by field: a zero field keeps the
// default.
func (t Task[T]) Enqueue(ctx context.Context, db jobq.DB, payload T, opts *jobq.EnqueueOptions) (int64, error) {
	return jobq.NewClient(db).Enqueue(ctx, t.name, payload, t.options(opts))
}

// Spec returns the job as a jobq.JobSpec for Client.EnqueueMany.
func (t Task[T]) Spec(payload T, opts *jobq.EnqueueOptions) jobq.JobSpec {
	return jobq.JobSpec{Task: t.name, Payload: payload, EnqueueOptions: t.options(opts)}
}

func (t Task[T]) options(opts *jobq.EnqueueOptions) jobq.EnqueueOptions {
	d := t.defaults
	if opts == nil {
		return d
	}
	o := *opts
	if o.Queue == "" {
		o.Queue = d.Queue
	}
	if o.Priority == 0 {
		o.Priority = d.Priority
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = d.MaxAttempts
	}
	if o.JobKey == "" {
		o.JobKey = d.JobKey
	}
	if o.JobKeyMode == "" {
		o.JobKeyMode = d.JobKeyMode
	}
	if o.RunAt.IsZero() && o.Delay == 0 {
		o.RunAt, o.Delay = d.RunAt, d.Delay
	}
	if o.StoreID == "" {
		o.StoreID = d.StoreID
	}
	if o.Timeout == 0 {
		o.Timeout = d.Timeout
	}
	if o.BackoffBase == 0 {
		o.BackoffBase = d.BackoffBase
	}
	if o.BackoffMax == 0 {
		o.BackoffMax = d.BackoffMax
	}
	return o
}

// StoreScoped is the payload of a store-scoped task: it names the store the job works on. A
// payload type without the method cannot be used with NewStoreTask (a compile error), so a
// store-scoped payload can never lack its store.
type StoreScoped interface {
	JobStoreID() string
}

// StoreTask is a store-scoped task: every job works on one store, named by its payload. Its
// Enqueue sets the job's store_id from the payload, and its handler (HandleStore) runs inside
// WithTenant for that store.
type StoreTask[T StoreScoped] struct {
	Task[T]
}

// NewStoreTask declares the store-scoped task name with payload type T; see NewTask.
func NewStoreTask[T StoreScoped](name string, defaults jobq.EnqueueOptions) StoreTask[T] {
	return StoreTask[T]{Task: NewTask[T](name, defaults)}
}

// Enqueue adds one job of this task for the payload's store. It refuses, with an
// ErrPayloadInvalid error and without writing, a payload whose store id is empty.
func (t StoreTask[T]) Enqueue(ctx context.Context, db jobq.DB, payload T, opts *jobq.EnqueueOptions) (int64, error) {
	spec, err := t.Spec(payload, opts)
	if err != nil {
		return 0, err
	}
	return jobq.NewClient(db).Enqueue(ctx, t.name, payload, spec.EnqueueOptions)
}

// Spec returns the job as a jobq.JobSpec for Client.EnqueueMany, with the payload's store.
func (t StoreTask[T]) Spec(payload T, opts *jobq.EnqueueOptions) (jobq.JobSpec, error) {
	store := payload.JobStoreID()
	if store == "" {
		return jobq.JobSpec{}, codeError(ErrPayloadInvalid, "Set the store id in the payload.",
			"task %s is store-scoped and its payload names no store", t.name)
	}
	spec := t.Task.Spec(payload, opts)
	spec.StoreID = store
	return spec, nil
}

// Job is a claimed job with its payload decoded into Args.
type Job[T any] struct {
	*jobq.Job
	Args T
}

// Handle registers fn for task t on r. The payload is decoded into a T before fn runs; a
// payload that does not decode fails the attempt without retry (error code
// JOB.PAYLOAD_INVALID). It panics like Runner.Handle.
func Handle[T any](r *Runner, t Task[T], fn func(ctx context.Context, job *Job[T]) error) {
	r.Handle(t.name, HandlerFunc(func(ctx context.Context, job *jobq.Job) error {
		typed, err := decode[T](job)
		if err != nil {
			return err
		}
		return fn(ctx, typed)
	}))
}

// HandleStore registers fn for the store-scoped task t on r. fn runs inside WithTenant for the
// job's store: tx is a transaction with app.current_store_id set, committed when fn returns nil.
// A job whose store_id is missing or differs from its payload's fails without retry (error code
// JOB.PAYLOAD_INVALID). It panics like Runner.Handle.
func HandleStore[T StoreScoped](r *Runner, t StoreTask[T], fn func(ctx context.Context, tx pgx.Tx, job *Job[T]) error) {
	r.Handle(t.name, HandlerFunc(func(ctx context.Context, job *jobq.Job) error {
		typed, err := decode[T](job)
		if err != nil {
			return err
		}
		store := typed.Args.JobStoreID()
		if job.StoreID == nil || *job.StoreID != store || store == "" {
			return Permanent(WithCode(codeError(ErrPayloadInvalid, "",
				"task %s is store-scoped: the job's store_id (%s) must be the payload's store (%q)",
				t.name, storeOf(job), store), ErrPayloadInvalid.Code))
		}
		return r.WithTenant(ctx, store, func(ctx context.Context, tx pgx.Tx) error {
			return fn(ctx, tx, typed)
		})
	}))
}

func decode[T any](job *jobq.Job) (*Job[T], error) {
	typed := &Job[T]{Job: job}
	if err := json.Unmarshal(job.Payload, &typed.Args); err != nil {
		return nil, Permanent(WithCode(codeError(ErrPayloadInvalid, "",
			"task %s: payload does not decode into %T: %v", job.Task, typed.Args, err), ErrPayloadInvalid.Code))
	}
	return typed, nil
}

func storeOf(job *jobq.Job) string {
	if job.StoreID == nil {
		return "none"
	}
	return *job.StoreID
}
