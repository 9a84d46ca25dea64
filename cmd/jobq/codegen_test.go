package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/dbtest"
)

// The modules committed in clients/ are what jobq codegen writes for clients/testdata/registry.sql,
// read as worker_runtime (a runtime login, not the owner): they never drift from the generator.
// clients/test.sh diffs them too, and compiles and runs them.
func TestCodegenCommittedModulesMatchTheRegistry(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	registry, err := os.ReadFile("../../clients/testdata/registry.sql")
	require.NoError(t, err)
	conn := dbtest.Connect(t, db.URL("postgres"))
	require.NoError(t, conn.PgConn().Exec(testCtx(t), string(registry)).Close())
	for lang, path := range map[string]string{
		"typescript": "../../clients/typescript/src/tasks.ts",
		"python":     "../../clients/python/jobq_client/tasks.py",
	} {
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		code, stdout, stderr := runCLI(t, "codegen", lang, "--database-url", db.URL("worker_runtime"))
		require.Equal(t, 0, code, stderr)
		if stdout != string(want) {
			t.Errorf("%s differs from jobq codegen %s over clients/testdata/registry.sql (regenerate it: docs/clients.md):\n%s",
				path, lang, dbtest.DiffLines(string(want), stdout))
		}
	}
}

// An empty registry is refused with a hint (a module naming no task is most likely the wrong
// database); --allow-empty writes it anyway, saying so.
func TestCodegenEmptyRegistry(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	for _, lang := range []string{"typescript", "python"} {
		code, stdout, stderr := runCLI(t, "codegen", lang, "--database-url", db.URL("worker_runtime"))
		require.Equal(t, 1, code)
		require.Empty(t, stdout)
		require.Contains(t, stderr, "declares no task, so the module would name none")
		require.Contains(t, stderr, "--allow-empty")

		out := t.TempDir() + "/tasks"
		code, _, stderr = runCLI(t, "codegen", lang, "--allow-empty", "--out", out, "--database-url", db.URL("worker_runtime"))
		require.Equal(t, 0, code, stderr)
		body, err := os.ReadFile(out)
		require.NoError(t, err)
		require.Contains(t, string(body), "jobq.tasks declared no task when this module was generated")
	}
}

// 2,000 tasks give 2,000 payload types (and, in Python, as many overloads) in well under a minute;
// clients/test.sh compiles both modules.
func TestCodegenTwoThousandTasks(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	conn := dbtest.Connect(t, db.URL("postgres"))
	_, err := conn.Exec(testCtx(t), `SELECT jobq.define_task(format('task-%s', i), CASE WHEN i % 2 = 0 THEN 'store' ELSE 'system' END,
		jsonb_build_object('n' || i, 'integer', 'class?', 'string')) FROM generate_series(1, 2000) i`)
	require.NoError(t, err)
	start := time.Now()
	code, ts, stderr := runCLI(t, "codegen", "typescript", "--database-url", db.URL("worker_runtime"))
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 2000, strings.Count(ts, "\nexport interface Task"))
	// A store task whose contract does not name storeId takes one in its payload (or the options).
	require.True(t, strings.Contains(ts, "export interface Task_2000Payload {\n  storeId?: Uuid | null;\n  class?: string | null;\n  n2000: number;\n}"))
	code, py, stderr := runCLI(t, "codegen", "python", "--database-url", db.URL("worker_runtime"))
	require.Equal(t, 0, code, stderr)
	require.Equal(t, 2000, strings.Count(py, "@overload\n"))
	// "class" is a reserved word in Python: the functional syntax.
	require.True(t, strings.Contains(py, "Task_1Payload = TypedDict(\"Task_1Payload\", {\n    \"class\": NotRequired[str | None],\n    \"n1\": int,\n})"))
	t.Logf("two modules of 2,000 tasks in %s", time.Since(start))
}

// Names that are no identifier in the target language still give one type each, and nothing a
// module cannot express is written.
func TestCodegenNames(t *testing.T) {
	t.Parallel()
	for task, want := range map[string]string{
		"send-welcome-email": "SendWelcomeEmailPayload",
		"sync-v2":            "SyncV2Payload",
		"sync-v-2":           "SyncV_2Payload", // not SyncV2Payload: task names never share a type
		"true":               "TruePayload",    // no Python keyword
		"a1-2b-c":            "A1_2bCPayload",
	} {
		require.Equal(t, want, typeName(task), task)
	}

	task, err := parseTask("import-file", "system", `{"from": "string", "content-type?": "date", "x": "any", "y?": "any"}`, "")
	require.NoError(t, err)
	reg := cgRegistry{Tasks: []cgTask{task}, Errors: []cgError{{Code: "JOB.UNKNOWN_TASK", SQLState: "JQ401", Meaning: "m */ x", Hint: "h"}}}
	require.NoError(t, nameErrors(reg.Errors))
	ts, err := generateTypeScript(reg, "")
	require.NoError(t, err)
	require.Contains(t, string(ts), "export interface ImportFilePayload {\n  \"content-type\"?: IsoDate | null;\n  from: string;\n  x: unknown;\n  y?: unknown;\n}")
	require.Contains(t, string(ts), "/** JOB.UNKNOWN_TASK (SQLSTATE JQ401): m * / x Hint: h */\nexport class UnknownTaskError extends JobqError {")
	py, err := generatePython(reg, "")
	require.NoError(t, err)
	require.Contains(t, string(py), "ImportFilePayload = TypedDict(\"ImportFilePayload\", {\n    \"content-type\": NotRequired[str | date | None],\n    \"from\": str,\n    \"x\": Any,\n    \"y\": NotRequired[Any],\n})")
	// One task: no overloads (a lone @overload is an error for type checkers).
	require.NotContains(t, string(py), "@overload\n")
	require.Contains(t, string(py), "def enqueue_job(\n    conn: Conn, name: Literal[\"import-file\"], payload: ImportFilePayload, *,")

	for _, tc := range []struct{ name, scope, schema, err string }{
		{"x", "system", `{"a": "string", "a?": "integer"}`, `the contract names key a twice ("a" and "a?")`},
		{"x", "system", `{"a": "text"}`, `key "a" has type text`},
		{"x", "system", `{"?": "string"}`, `contract key "?" names no key`},
		{"x", "system", `[]`, "the payload contract is no JSON object"},
		{"X", "system", `{}`, `task "X" is not a kebab-case name`},
		{"x", "tenant", `{}`, `task x has scope "tenant"`},
	} {
		_, err := parseTask(tc.name, tc.scope, tc.schema, "")
		require.ErrorContains(t, err, tc.err)
	}
	require.ErrorContains(t, nameErrors([]cgError{{Code: "JOB.A_B"}, {Code: "JOB.A__B"}}), "JOB.A_B and JOB.A__B would both be class ABError")
	_, err = generatePython(reg, "jobq-client.runtime")
	require.ErrorContains(t, err, `--runtime "jobq-client.runtime": want a dotted Python module name`)
}
