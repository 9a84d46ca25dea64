package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/jobqdev/jobq/runner"
)

// served is one row of jobq.served_tasks: a declared task and the handler name it uses.
type served struct {
	Task    string
	Handler string
}

// querier is what servedTasks needs of a pool or a connection.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// servedTasks asks the database which declared tasks use one of the handler names. The database
// answers with names only: what runs for a name is the file's.
func servedTasks(ctx context.Context, db querier, names []string) ([]served, error) {
	rows, err := db.Query(ctx, `SELECT task, handler FROM jobq.served_tasks($1::text[]) ORDER BY task`, names)
	if err != nil {
		return nil, fmt.Errorf("jobq.served_tasks: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[served])
	if err != nil {
		return nil, fmt.Errorf("jobq.served_tasks: %w", err)
	}
	return out, nil
}

// serveFile registers, for every declared task whose handler name is one of the file's, the
// handler the file describes for that name. Tasks of builtin stay with the program's own handlers
// (logged); a name no task uses is logged as a warning. It waits for the database as the runner's
// start-up does (logging each failure) until ctx ends.
func serveFile(ctx context.Context, r *runner.Runner, f *File, builtin []string, log *slog.Logger) error {
	handlers := map[string]runner.Handler{}
	for _, spec := range f.Handlers {
		handlers[spec.Name] = spec.handler
	}
	var rows []served
	for wait := 250 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
		var err error
		if rows, err = servedTasks(ctx, r.Pool(), f.Names()); err == nil {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && (pgErr.Code == "42883" || pgErr.Code == "42501" || pgErr.Code == "3F000") {
			// No such function, no right to it, no jobq schema: waiting will not help.
			return fmt.Errorf("%w (jobq.served_tasks needs the schema of this release, jobq migrate up, and worker_runtime's rights)", err)
		}
		log.Warn("cannot read the tasks the configuration file's handlers serve; retrying", "error", err.Error(), "retryIn", wait.String())
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	tasksOf := map[string][]string{}
	for _, row := range rows {
		h, ok := handlers[row.Handler]
		if !ok {
			// The database answered a name it was not asked about: never run anything for it.
			return fmt.Errorf("jobq.served_tasks answered handler %q for task %q, which the file does not name", row.Handler, row.Task)
		}
		if slices.Contains(builtin, row.Task) {
			log.Warn("task is built in: its handler name is ignored", "task", row.Task, "handler", row.Handler)
			continue
		}
		if err := handle(r, row.Task, h); err != nil {
			return fmt.Errorf("task %q, handler %q of the file: %w (a program lists the tasks its Setup handles in Program.BuiltinTasks)", row.Task, row.Handler, err)
		}
		tasksOf[row.Handler] = append(tasksOf[row.Handler], row.Task)
	}
	for _, spec := range f.Handlers {
		if tasks := tasksOf[spec.Name]; len(tasks) > 0 {
			log.Info("handler serves tasks", "handler", spec.Name, "kind", spec.Kind(), "tasks", tasks)
		} else {
			log.Warn("handler serves no task: no declared task has this handler name (jobq.set_task_handler, or a task of this name)",
				"handler", spec.Name, "kind", spec.Kind())
		}
	}
	return nil
}

// check is --check: it prints every problem of the flags and the file (and, when a database URL
// is set, the tasks each handler would serve), one per line, and returns 2 when there is any,
// else 0 after "ok: N handlers".
func check(ctx context.Context, prog Program, f *Flags, parseErr error, stdout io.Writer) int {
	var problems []string
	var cerr *ConfigError
	switch {
	case errors.As(parseErr, &cerr):
		problems = cerr.Problems
	case parseErr != nil:
		problems = []string{parseErr.Error()}
	}
	if prog.Configure != nil {
		var cfg runner.Config
		if err := prog.Configure(&cfg, Env{Flags: f, Log: slog.New(slog.DiscardHandler)}); err != nil {
			problems = append(problems, err.Error())
		}
	}
	n := 0
	if f.File != nil {
		n = len(f.File.Handlers)
	}
	if len(problems) == 0 && f.DatabaseURL != "" && n > 0 {
		problems = append(problems, checkServed(ctx, f, prog.BuiltinTasks, stdout)...)
	}
	for _, p := range problems {
		fmt.Fprintln(stdout, p)
	}
	if len(problems) > 0 {
		return 2
	}
	fmt.Fprintf(stdout, "ok: %d handlers\n", n)
	return 0
}

// checkServed prints the tasks each handler of the file would serve on the database, and a
// warning for a handler that would serve none.
func checkServed(ctx context.Context, f *Flags, builtin []string, stdout io.Writer) []string {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, f.DatabaseURL)
	if err != nil {
		return []string{fmt.Sprintf("database: %v", err)}
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := servedTasks(ctx, conn, f.File.Names())
	if err != nil {
		return []string{fmt.Sprintf("database: %v", err)}
	}
	tasksOf := map[string][]string{}
	for _, row := range rows {
		if !slices.Contains(builtin, row.Task) {
			tasksOf[row.Handler] = append(tasksOf[row.Handler], row.Task)
		}
	}
	for _, spec := range f.File.Handlers {
		if tasks := tasksOf[spec.Name]; len(tasks) > 0 {
			fmt.Fprintf(stdout, "handler %s (%s) serves: %s\n", spec.Name, spec.Kind(), strings.Join(tasks, ", "))
		} else {
			fmt.Fprintf(stdout, "warning: handler %s (%s) serves no task: no declared task has this handler name\n", spec.Name, spec.Kind())
		}
	}
	return nil
}

// handle registers h for task, turning Runner.Handle's panic (the program's Setup registered the
// task already) into an error.
func handle(r *runner.Runner, task string, h runner.Handler) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	r.Handle(task, h)
	return nil
}
