package worker

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/runner"
)

// A task the program's own Setup handles keeps that handler: listed in Program.BuiltinTasks, the
// file's handler of the same name is passed over with a warning; not listed, the worker stops with
// an error that says so, instead of Runner.Handle's panic.
func TestServeFileLeavesTheProgramsOwnTasksAlone(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	admin := db.Pool(t, "postgres", 2)
	require.NoError(t, jobq.NewClient(admin).DefineTask(ctx, jobq.TaskDefinition{Name: "send-confirmation"}))
	path := filepath.Join(t.TempDir(), "worker.toml")
	require.NoError(t, os.WriteFile(path, []byte("[handlers.send-confirmation]\ncommand = [\"/bin/true\"]\n"), 0o600))
	f, problems := LoadFile(path, nil, os.LookupEnv)
	require.Empty(t, problems)

	pool := db.Pool(t, "worker_runtime", 2)
	newRunner := func() *runner.Runner {
		r, err := runner.New(runner.Config{Pool: pool})
		require.NoError(t, err)
		r.HandleFunc("send-confirmation", func(context.Context, *jobq.Job) error { return nil }) // the program's Setup
		return r
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))

	err := serveFile(ctx, newRunner(), f, nil, log)
	require.ErrorContains(t, err, `task "send-confirmation", handler "send-confirmation" of the file: runner: task "send-confirmation" is registered twice`)
	require.ErrorContains(t, err, "Program.BuiltinTasks")

	require.NoError(t, serveFile(ctx, newRunner(), f, []string{"send-confirmation"}, log))
	require.Contains(t, logs.String(), `"msg":"task is built in: its handler name is ignored","task":"send-confirmation"`)
}
