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

// StoreTask is a store-scoped task: every job works on one store. The store id is a required
// argument of Enqueue and Spec, not a field of the payload T, so an enqueue that leaves it out
// does not compile (GWT-2). Its handler (HandleStore) runs inside WithTenant for the job's store
// and reads it from Job.Store.
type StoreTask[T any] struct {
	Task[T]
}

// NewStoreTask declares the store-scoped task name with payload type T; see NewTask. Its
// declaration has scope store. T carries what the job needs besides its store; in its payload
// contract a key storeId of type string, should T have one, is a uuid.
func NewStoreTask[T any](name string, defaults jobq.EnqueueOptions) StoreTask[T] {
	return StoreTask[T]{Task: newTask[T](name, jobq.ScopeStore, defaults)}
}

// WithDescription returns the task with description text in its declaration; see
// Task.WithDescription.
func (t StoreTask[T]) WithDescription(text string) StoreTask[T] {
	t.Task = t.Task.WithDescription(text)
	return t
}

// Enqueue adds one job of this task for store storeID. It refuses, with an ErrPayloadInvalid
// error and without writing, an empty storeID, a payload that does not encode as a JSON object,
// and a payload whose own storeId names another store. The job's store_id is storeID and its
// payload gets "storeId": storeID, as jobq.fan_out writes it. Unless the caller has
// jobq_operator's rights, db must be in a transaction whose app.current_store_id is that store
// (WithTenant; a store-scoped handler's tx is one): the engine refuses any other store with
// jobq.ErrTenantMismatch. Use Client.FanOut to enqueue the task for every store.
func (t StoreTask[T]) Enqueue(ctx context.Context, db jobq.DB, storeID string, payload T, opts *jobq.EnqueueOptions) (int64, error) {
	spec, err := t.Spec(storeID, payload, opts)
	if err != nil {
		return 0, err
	}
	return jobq.NewClient(db).Enqueue(ctx, t.name, spec.Payload, spec.EnqueueOptions)
}

// Spec returns the job for store storeID as a jobq.JobSpec for Client.EnqueueMany; see Enqueue.
func (t StoreTask[T]) Spec(storeID string, payload T, opts *jobq.EnqueueOptions) (jobq.JobSpec, error) {
	if storeID == "" {
		return jobq.JobSpec{}, codeError(ErrPayloadInvalid, "Pass the store id to Enqueue.",
			"task %s is store-scoped and the store id is empty", t.name)
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return jobq.JobSpec{}, codeError(ErrPayloadInvalid, "", "task %s: payload does not encode: %v", t.name, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return jobq.JobSpec{}, codeError(ErrPayloadInvalid, "", "task %s: payload %T does not encode as a JSON object", t.name, payload)
	}
	store, _ := json.Marshal(storeID)
	if own, ok := fields["storeId"]; ok && string(own) != `""` && string(own) != "null" && string(own) != string(store) {
		return jobq.JobSpec{}, codeError(ErrPayloadInvalid, "Leave the store out of the payload.",
			"task %s: payload storeId %s differs from the store id %s", t.name, own, store)
	}
	fields["storeId"] = store
	raw, err = json.Marshal(fields)
	if err != nil {
		return jobq.JobSpec{}, err
	}
	spec := t.Task.Spec(payload, opts)
	spec.Payload = json.RawMessage(raw)
	spec.StoreID = storeID
	return spec, nil
}

// Job is a claimed job with its payload decoded into Args.
type Job[T any] struct {
	*jobq.Job
	Args T
}

// Store returns the store the job works on (its store_id), "" for a system job.
func (j *Job[T]) Store() string { return deref(j.StoreID) }

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
// declares in jobq.tasks before it claims. fn runs inside WithTenant for the job's store
// (Job.Store): tx is a transaction with app.current_store_id set, committed when fn returns nil;
// row-level security confines what fn reads and writes through tx to that store, and an enqueue
// through tx may add jobs of that store only. A job without a store_id, or whose payload's
// storeId names another store, fails without retry (error code JOB.PAYLOAD_INVALID). It panics
// like Handle.
func HandleStore[T any](r *Runner, t StoreTask[T], fn func(ctx context.Context, tx pgx.Tx, job *Job[T]) error) {
	r.handleTyped(t.Definition(), HandlerFunc(func(ctx context.Context, job *jobq.Job) error {
		typed, err := decode[T](job)
		if err != nil {
			return err
		}
		var named struct {
			StoreID *string `json:"storeId"`
		}
		_ = json.Unmarshal(job.Payload, &named)
		store := typed.Store()
		if store == "" || (named.StoreID != nil && *named.StoreID != store) {
			return Permanent(WithCode(codeError(ErrPayloadInvalid, "",
				"task %s is store-scoped: the job needs a store_id (%s), and its payload's storeId (%s) must name the same store",
				t.name, storeOf(job), deref(named.StoreID)), ErrPayloadInvalid.Code))
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
