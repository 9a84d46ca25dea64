package runner

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"

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
// A Task also carries its declaration for jobq.tasks (Definition): the runner that handles it
// declares it at start-up, so the engine refuses, from any language, a payload that breaks the
// contract derived from T (see PayloadSchemaOf). T must marshal to a JSON object (a struct,
// usually).
type Task[T any] struct {
	name     string
	defaults jobq.EnqueueOptions
	def      jobq.TaskDefinition
}

// NewTask declares the system task name (kebab-case, such as "send-email") with payload type T.
// defaults are the enqueue options every enqueue of the task starts from (queue, max attempts,
// timeout, backoff, job key mode...). The task's declaration (Definition) has scope system, the
// payload contract PayloadSchemaOf derives from T, and as the task's defaults in jobq.tasks
// MaxAttempts, Queue, Priority (when not 0), Timeout, BackoffBase and BackoffMax of defaults;
// zero fields declare no default (the engine's settings apply). The name is checked when the
// task is declared: the runner refuses to start with an ErrInvalidTaskName error.
func NewTask[T any](name string, defaults jobq.EnqueueOptions) Task[T] {
	return newTask[T](name, jobq.ScopeSystem, defaults)
}

func newTask[T any](name string, scope jobq.TaskScope, defaults jobq.EnqueueOptions) Task[T] {
	def := jobq.TaskDefinition{
		Name:          name,
		Scope:         scope,
		PayloadSchema: PayloadSchemaOf(reflect.TypeFor[T](), scope),
		MaxAttempts:   defaults.MaxAttempts,
		Queue:         defaults.Queue,
		Timeout:       defaults.Timeout,
		BackoffBase:   defaults.BackoffBase,
		BackoffMax:    defaults.BackoffMax,
	}
	if defaults.Priority != 0 {
		p := defaults.Priority
		def.Priority = &p
	}
	return Task[T]{name: name, defaults: defaults, def: def}
}

// WithDescription returns the task with description text in its declaration (jobq.tasks
// description, for operators). The default is no description.
func (t Task[T]) WithDescription(text string) Task[T] {
	t.def.Description = text
	return t
}

// Definition returns the task's declaration for jobq.tasks: what a runner that handles the task
// declares at start-up, and what a service that only enqueues it may put in Config.Tasks.
func (t Task[T]) Definition() jobq.TaskDefinition {
	def := t.def
	def.PayloadSchema = maps.Clone(t.def.PayloadSchema)
	if t.def.Priority != nil {
		p := *t.def.Priority
		def.Priority = &p
	}
	return def
}

// Name returns the task name.
func (t Task[T]) Name() string { return t.name }

// Schedule returns a schedule that enqueues this task with payload at every slot of cron, for
// Config.Schedules; set the other fields of the result (Timezone, ConcurrencyPolicy,
// BackfillWindow...) as needed. Each job's payload is payload's JSON object plus the slot's
// instant (UTC, RFC 3339) under the key "slotAt": a field `json:"slotAt,omitempty"` of type
// string in T reads it. Only system tasks can be scheduled: the engine refuses a store-scoped one; schedule
// a system task that fans out instead.
//
//	cfg.Schedules = []jobq.ScheduleDefinition{
//		ReportTask.Schedule("nightly-report", "0 3 * * *", Report{Kind: "sales"}),
//	}
func (t Task[T]) Schedule(name, cron string, payload T) jobq.ScheduleDefinition {
	return jobq.ScheduleDefinition{Name: name, Cron: cron, Task: t.name, Payload: payload}
}

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

// NewStoreTask declares the store-scoped task name with payload type T; see NewTask. Its
// declaration has scope store, and in its payload contract the key storeId, when T's encoding
// has one of type string, is a uuid.
func NewStoreTask[T StoreScoped](name string, defaults jobq.EnqueueOptions) StoreTask[T] {
	return StoreTask[T]{Task: newTask[T](name, jobq.ScopeStore, defaults)}
}

// WithDescription returns the task with description text in its declaration; see
// Task.WithDescription.
func (t StoreTask[T]) WithDescription(text string) StoreTask[T] {
	t.Task = t.Task.WithDescription(text)
	return t
}

// Enqueue adds one job of this task for the payload's store. It refuses, with an
// ErrPayloadInvalid error and without writing, a payload whose store id is empty. Unless the
// caller has jobq_operator's rights, db must be in a transaction whose app.current_store_id is
// that store (WithTenant; a store-scoped handler's tx is one): the engine refuses any other
// store with jobq.ErrTenantMismatch. Use Client.FanOut to enqueue the task for every store.
func (t StoreTask[T]) Enqueue(ctx context.Context, db jobq.DB, payload T, opts *jobq.EnqueueOptions) (int64, error) {
	spec, err := t.Spec(payload, opts)
	if err != nil {
		return 0, err
	}
	return jobq.NewClient(db).Enqueue(ctx, t.name, spec.Payload, spec.EnqueueOptions)
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

// Handle registers fn for task t on r, and t's declaration (Definition), which Run declares in
// jobq.tasks before it claims. The payload is decoded into a T before fn runs; a payload that
// does not decode fails the attempt without retry (error code JOB.PAYLOAD_INVALID). It panics
// like Runner.Handle, and when Config.Tasks declares t's name too.
func Handle[T any](r *Runner, t Task[T], fn func(ctx context.Context, job *Job[T]) error) {
	r.handleTyped(t.Definition(), HandlerFunc(func(ctx context.Context, job *jobq.Job) error {
		typed, err := decode[T](job)
		if err != nil {
			return err
		}
		return fn(ctx, typed)
	}))
}

// HandleStore registers fn for the store-scoped task t on r, and t's declaration, which Run
// declares in jobq.tasks before it claims. fn runs inside WithTenant for the job's store: tx is
// a transaction with app.current_store_id set, committed when fn returns nil; row-level security
// confines what fn reads and writes through tx to that store, and an enqueue through tx may add
// jobs of that store only. A job whose store_id is missing or differs from its payload's fails
// without retry (error code JOB.PAYLOAD_INVALID). It panics like Handle.
func HandleStore[T StoreScoped](r *Runner, t StoreTask[T], fn func(ctx context.Context, tx pgx.Tx, job *Job[T]) error) {
	r.handleTyped(t.Definition(), HandlerFunc(func(ctx context.Context, job *jobq.Job) error {
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
