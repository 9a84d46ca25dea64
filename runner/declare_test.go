package runner_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/runner"
)

// RebuildStoreReport is a store task's payload with optional keys of every kind. It names its
// store too (a payload may; Enqueue checks it is the store passed), so its contract has storeId.
type RebuildStoreReport struct {
	StoreID string    `json:"storeId"`
	Day     time.Time `json:"day"`
	Reason  *string   `json:"reason"`
	Limit   int       `json:"limit,omitempty"`
	Tags    []string  `json:"tags"`
}

// taskRow is a row of jobq.tasks as the tests read it.
type taskRow struct {
	Name          string            `db:"name"`
	Scope         string            `db:"scope"`
	PayloadSchema map[string]string `db:"payload_schema"`
	MaxAttempts   *int              `db:"max_attempts"`
	Queue         *string           `db:"queue"`
	Priority      *int16            `db:"priority"`
	Timeout       *string           `db:"timeout"`
	BackoffBase   *string           `db:"backoff_base"`
	BackoffMax    *string           `db:"backoff_max"`
	Description   string            `db:"description"`
	UpdatedAt     time.Time         `db:"updated_at"`
}

func (b *testBundle) tasks(t *testing.T) map[string]taskRow {
	t.Helper()
	rows, err := b.admin.Query(context.Background(), `
		SELECT name, scope, payload_schema, max_attempts, queue, priority, timeout::text AS timeout,
		       backoff_base::text AS backoff_base, backoff_max::text AS backoff_max, description, updated_at
		FROM jobq.tasks`)
	require.NoError(t, err)
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[taskRow])
	require.NoError(t, err)
	out := make(map[string]taskRow, len(list))
	for _, r := range list {
		out[r.Name] = r
	}
	return out
}

// Issue 4: a runner declares its typed tasks at start-up, idempotently, with the contract
// derived from the payload type, and the engine then holds every enqueue to it.
func TestRunnerDeclaresItsTasksAtStart(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	report := runner.NewStoreTask[RebuildStoreReport]("rebuild-store-report", jobq.EnqueueOptions{
		MaxAttempts: 7, Queue: "reports", Priority: -2, Timeout: time.Minute, BackoffBase: 5 * time.Second,
		BackoffMax: 10 * time.Minute, JobKeyMode: jobq.JobKeyPreserveRunAt,
	}).WithDescription("Rebuilds a store's report.")
	greet := runner.NewTask[Greeting]("greet", jobq.EnqueueOptions{})
	// Declared in SQL and handled untyped: the runner leaves its declaration alone.
	_, err := b.admin.Exec(ctx, `SELECT jobq.define_task('legacy-cleanup', payload_schema => '{"days": "integer"}', description => 'from SQL')`)
	require.NoError(t, err)
	sqlDeclared := b.tasks(t)["legacy-cleanup"]

	reports := make(chan RebuildStoreReport, 1)
	newRunner := func() *runner.Runner {
		cfg := b.config()
		cfg.Queues = []string{"reports", "default"}
		// Handled elsewhere, enqueued from here.
		cfg.Tasks = []jobq.TaskDefinition{{Name: "send-receipt", Scope: jobq.ScopeStore,
			PayloadSchema: map[string]string{"storeId": "uuid", "receiptId": "integer"}}}
		r, err := runner.New(cfg)
		require.NoError(t, err)
		runner.HandleStore(r, report, func(ctx context.Context, tx pgx.Tx, job *runner.Job[RebuildStoreReport]) error {
			reports <- job.Args
			return nil
		})
		runner.Handle(r, greet, func(ctx context.Context, job *runner.Job[Greeting]) error { return nil })
		r.HandleFunc("legacy-cleanup", func(ctx context.Context, job *jobq.Job) error { return nil })
		return r
	}

	first := newRunner()
	require.Equal(t, []string{"send-receipt", "rebuild-store-report", "greet"}, taskNames(first.Tasks()))
	stop := start(t, first)
	declared := b.tasks(t)
	require.Len(t, declared, 4)
	five, ten := "00:00:05", "00:10:00"
	require.Equal(t, taskRow{
		Name: "rebuild-store-report", Scope: "store",
		PayloadSchema: map[string]string{"storeId": "uuid", "day": "timestamp", "reason?": "string", "limit?": "integer", "tags?": "array"},
		MaxAttempts:   ptr(7), Queue: ptr("reports"), Priority: ptr(int16(-2)), Timeout: ptr("00:01:00"),
		BackoffBase: &five, BackoffMax: &ten, Description: "Rebuilds a store's report.",
		UpdatedAt: declared["rebuild-store-report"].UpdatedAt,
	}, declared["rebuild-store-report"])
	require.Equal(t, taskRow{
		Name: "greet", Scope: "system", PayloadSchema: map[string]string{"name": "string", "count": "integer"},
		UpdatedAt: declared["greet"].UpdatedAt,
	}, declared["greet"], "zero defaults declare none")
	require.Equal(t, "store", declared["send-receipt"].Scope)
	require.Equal(t, map[string]string{"storeId": "uuid", "receiptId": "integer"}, declared["send-receipt"].PayloadSchema)
	require.Equal(t, sqlDeclared, declared["legacy-cleanup"], "an untyped handler declares nothing")
	lines := b.logs.lines("tasks declared")
	require.Len(t, lines, 1)
	require.Equal(t, []any{"send-receipt", "rebuild-store-report", "greet"}, lines[0]["tasks"])

	t.Run("TypedEnqueueKeepsTheContract", func(t *testing.T) {
		// Reason and Tags are nil: encoding/json writes null, which an optional key takes.
		day := time.Date(2026, 5, 5, 0, 0, 0, 0, time.UTC)
		var id int64
		err := runner.WithTenant(ctx, b.pool, storeA, func(ctx context.Context, tx pgx.Tx) error {
			var err error
			id, err = report.Enqueue(ctx, tx, storeA, RebuildStoreReport{StoreID: storeA, Day: day}, nil)
			return err
		})
		require.NoError(t, err)
		got := <-reports
		require.Equal(t, RebuildStoreReport{StoreID: storeA, Day: day}, got)
		b.waitState(t, id, "succeeded")
		var body []byte
		var queue string
		var priority int16
		var maxAttempts int
		require.NoError(t, b.admin.QueryRow(ctx, `SELECT payload, queue, priority, max_attempts FROM jobq.job_history WHERE id = $1`, id).
			Scan(&body, &queue, &priority, &maxAttempts))
		require.JSONEq(t, `{"storeId": "`+storeA+`", "day": "2026-05-05T00:00:00Z", "reason": null, "tags": null}`, string(body))
		require.Equal(t, "reports", queue)
		require.Equal(t, int16(-2), priority)
		require.Equal(t, 7, maxAttempts)
	})
	t.Run("TheEngineHoldsRawEnqueuesToTheDerivedContract", func(t *testing.T) {
		tx, err := b.pool.Begin(ctx)
		require.NoError(t, err)
		defer tx.Rollback(ctx)
		_, err = tx.Exec(ctx, `SELECT pg_catalog.set_config('app.current_store_id', $1, true)`, storeA)
		require.NoError(t, err)
		_, err = tx.Exec(ctx, `SELECT jobq.enqueue('rebuild-store-report', '{"day": "2026-05-05T00:00:00Z"}', store_id => $1)`, storeA)
		err = jobq.FromDB(err)
		require.ErrorIs(t, err, jobq.ErrPayloadInvalid)
		require.ErrorContains(t, err, "task rebuild-store-report: required key storeId is missing")
		require.Zero(t, b.count(t, `SELECT count(*) FROM jobq.jobs WHERE task = 'rebuild-store-report'`))
	})
	t.Run("TheEngineHoldsRawEnqueuesToTheDerivedTypes", func(t *testing.T) {
		for payload, problem := range map[string]string{
			`{"storeId": "not-a-uuid", "day": "2026-05-05T00:00:00Z"}`:                   "key storeId must be a uuid",
			`{"storeId": "` + storeA + `", "day": "2026-05-05"}`:                         "key day must be a timestamp",
			`{"storeId": "` + storeA + `", "day": "2026-05-05T00:00:00Z", "limit": 1.5}`: "key limit must be an integer",
			`{"storeId": "` + storeA + `", "day": "2026-05-05T00:00:00Z", "tags": "a"}`:  "key tags must be an array",
		} {
			tx, err := b.pool.Begin(ctx)
			require.NoError(t, err)
			_, err = tx.Exec(ctx, `SELECT pg_catalog.set_config('app.current_store_id', $1, true)`, storeA)
			require.NoError(t, err)
			_, err = tx.Exec(ctx, `SELECT jobq.enqueue('rebuild-store-report', $1::jsonb, store_id => $2)`, payload, storeA)
			require.NoError(t, tx.Rollback(ctx))
			err = jobq.FromDB(err)
			require.ErrorIs(t, err, jobq.ErrPayloadInvalid, payload)
			require.ErrorContains(t, err, problem)
		}
	})

	require.NoError(t, stop())
	// A second start declares the same tasks again and changes nothing.
	second := newRunner()
	start(t, second)
	require.Equal(t, declared, b.tasks(t), "a second start changed jobq.tasks")
}

func taskNames(defs []jobq.TaskDefinition) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Name
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// A declaration the engine refuses is a programming error: Run returns it at once instead of
// waiting as it does for an unreachable database.
func TestRunnerRefusesToStartWithABadDeclaration(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct {
		name   string
		tasks  []jobq.TaskDefinition // Config.Tasks
		handle func(r *runner.Runner)
		want   error
		text   string
	}{
		{"NotKebabCase", nil, func(r *runner.Runner) {
			runner.Handle(r, runner.NewTask[Greeting]("send_Greeting", jobq.EnqueueOptions{}),
				func(ctx context.Context, job *runner.Job[Greeting]) error { return nil })
		}, jobq.ErrInvalidTaskName, `runner: declare task "send_Greeting"`},
		{"UnknownContractType", []jobq.TaskDefinition{{Name: "bad-contract", PayloadSchema: map[string]string{"n": "int"}}},
			func(r *runner.Runner) {}, jobq.ErrInvalidArgument, `runner: declare task "bad-contract"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := b.config()
			cfg.Tasks = tc.tasks
			r, err := runner.New(cfg)
			require.NoError(t, err)
			tc.handle(r)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err = r.Run(ctx)
			require.NoError(t, ctx.Err(), "Run waited instead of refusing")
			require.ErrorIs(t, err, tc.want)
			require.ErrorContains(t, err, tc.text)
		})
	}
	require.Zero(t, b.count(t, `SELECT count(*) FROM jobq.tasks`))
	require.NotEmpty(t, b.logs.lines("refusing to start"))
	require.Empty(t, b.logs.lines("runner started"))
}

func TestRunnerTaskDeclarationsAreChecked(t *testing.T) {
	t.Parallel()
	b := setup(t)
	t.Run("DuplicateInConfig", func(t *testing.T) {
		cfg := b.config()
		cfg.Tasks = []jobq.TaskDefinition{{Name: "twice"}, {Name: "twice"}}
		_, err := runner.New(cfg)
		require.ErrorContains(t, err, `Config.Tasks declares task "twice" twice`)
	})
	t.Run("Unnamed", func(t *testing.T) {
		cfg := b.config()
		cfg.Tasks = []jobq.TaskDefinition{{Scope: jobq.ScopeStore}}
		_, err := runner.New(cfg)
		require.ErrorContains(t, err, "Config.Tasks holds a task without a name")
	})
	t.Run("TypedTaskAlsoInConfig", func(t *testing.T) {
		cfg := b.config()
		cfg.Tasks = []jobq.TaskDefinition{greetTask.Definition()}
		r, err := runner.New(cfg)
		require.NoError(t, err)
		require.PanicsWithValue(t, `runner: task "greet" is declared in Config.Tasks and as a typed task`, func() {
			runner.Handle(r, greetTask, func(ctx context.Context, job *runner.Job[Greeting]) error { return nil })
		})
	})
	t.Run("DeclareTasksBeforeRun", func(t *testing.T) {
		r, err := runner.New(b.config())
		require.NoError(t, err)
		runner.Handle(r, runner.NewTask[Greeting]("greet-early", jobq.EnqueueOptions{}),
			func(ctx context.Context, job *runner.Job[Greeting]) error { return nil })
		require.NoError(t, r.DeclareTasks(context.Background()))
		var schema json.RawMessage
		require.NoError(t, b.admin.QueryRow(context.Background(),
			`SELECT payload_schema FROM jobq.tasks WHERE name = 'greet-early'`).Scan(&schema))
		require.JSONEq(t, `{"name": "string", "count": "integer"}`, string(schema))
	})
}

// A declaration that fails for a reason other than the engine's refusal (here: worker_runtime
// may not call define_task yet) is waited out like an unreachable database; the runner starts
// once it succeeds.
func TestRunnerRetriesItsDeclarationsUntilTheyPass(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	const defineTask = `jobq.define_task(text, text, jsonb, integer, text, integer, interval, interval, interval, text, boolean)`
	_, err := b.admin.Exec(ctx, `REVOKE EXECUTE ON FUNCTION `+defineTask+` FROM worker_runtime`)
	require.NoError(t, err)
	r, err := runner.New(b.config())
	require.NoError(t, err)
	runner.Handle(r, greetTask, func(ctx context.Context, job *runner.Job[Greeting]) error { return nil })
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.Run(runCtx) }()

	waitFor(t, waitCeiling, "the runner waits", func() bool {
		for _, l := range b.logs.lines("waiting for the database before claiming") {
			if strings.Contains(l["error"].(string), "permission denied for function define_task") {
				return true
			}
		}
		return false
	})
	require.ErrorIs(t, r.Ready(ctx), runner.ErrNotReady, "not ready before its tasks are declared")
	require.Zero(t, b.count(t, `SELECT count(*) FROM jobq.tasks`))

	_, err = b.admin.Exec(ctx, `GRANT EXECUTE ON FUNCTION `+defineTask+` TO worker_runtime`)
	require.NoError(t, err)
	waitFor(t, waitCeiling, "runner ready", func() bool { return r.Ready(ctx) == nil })
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM jobq.tasks WHERE name = 'greet'`))
	cancel()
	require.NoError(t, <-done)
}
