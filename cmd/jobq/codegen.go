package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
)

// jobq codegen typescript|python: a module of typed payloads, a typed enqueue and typed errors for
// an application in another language, generated from the registry of a database (jobq.tasks and
// jobq.error_codes), so that a wrong payload is a compile error there (seed 000 §5.2, GWT-2). The
// module imports a small hand-written runtime (clients/typescript/src/runtime.ts,
// clients/python/jobq_client/runtime.py) that runs jobq.enqueue over the application's own driver
// and transaction (docs/clients.md).

type codegenCmd struct {
	Language    string `arg:"" enum:"typescript,python" help:"The language of the module: typescript or python."`
	Out         string `name:"out" short:"o" placeholder:"FILE" help:"Write the module to FILE (replaced whole; default: standard output)."`
	Runtime     string `name:"runtime" placeholder:"MODULE" help:"Where the module imports the client runtime from (default ./runtime.js for typescript, jobq_client.runtime for python)."`
	AllowEmpty  bool   `name:"allow-empty" help:"Write a module even when jobq.tasks declares no task (it then names none)."`
	DatabaseURL string `name:"database-url" env:"JOBQ_DATABASE_URL" placeholder:"URL" help:"URL of a login that may read jobq.tasks and jobq.error_codes: a member of jobq_app, jobq_operator or jobq_viewer, or worker_runtime (default $$JOBQ_DATABASE_URL, then libpq's PG* variables)."`
}

// cgTask is one task of the registry as the generators see it.
type cgTask struct {
	Name        string
	Scope       string // system or store
	Description string
	Keys        []cgKey // sorted by name
}

// cgKey is one key of a payload contract: "userId": "integer", or "note?": "string" (optional).
type cgKey struct {
	Name     string
	Type     string
	Optional bool
}

// cgError is one row of jobq.error_codes.
type cgError struct {
	Code, SQLState, Meaning, Hint string
	Class                         string // UnknownTaskError, WorkerNotReadyError
}

// cgRegistry is what a module is generated from.
type cgRegistry struct {
	Tasks  []cgTask
	Errors []cgError
}

const (
	codegenTasksQuery  = `SELECT name, scope, payload_schema::text, description FROM jobq.tasks ORDER BY name COLLATE "C"`
	codegenErrorsQuery = `SELECT code, sqlstate, meaning, hint FROM jobq.error_codes ORDER BY sqlstate COLLATE "C"`
)

// The contract types of jobq._json_type_ok.
var contractTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "object": true,
	"array": true, "uuid": true, "date": true, "timestamp": true, "any": true}

var (
	taskNameRE  = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
	errorCodeRE = regexp.MustCompile(`^(JOB|WORKER)\.[A-Z_]+$`)
)

func (c *codegenCmd) Run(e *env) error {
	cfg, err := pgx.ParseConfig(c.DatabaseURL)
	if err != nil {
		return usageError{fmt.Sprintf("--database-url / JOBQ_DATABASE_URL: %v", err)}
	}
	conn, err := pgx.ConnectConfig(e.ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect: %w", explain(err))
	}
	defer conn.Close(context.WithoutCancel(e.ctx))
	reg, err := readRegistry(e.ctx, conn)
	if err != nil {
		return err
	}
	if len(reg.Tasks) == 0 && !c.AllowEmpty {
		return fmt.Errorf("codegen: jobq.tasks of database %s declares no task, so the module would name none"+
			"\nhint: declare the tasks first (runners declare theirs at start-up; jobq.define_task from SQL), or pass --allow-empty", cfg.Database)
	}
	var out []byte
	switch c.Language {
	case "typescript":
		out, err = generateTypeScript(reg, c.Runtime)
	case "python":
		out, err = generatePython(reg, c.Runtime)
	}
	if err != nil {
		return err
	}
	if c.Out == "" {
		_, err = e.stdout.Write(out)
		return err
	}
	return writeFileAtomic(c.Out, out)
}

// readRegistry reads the tasks and the error catalogue, one query each, and checks what the
// generators rely on: the table's constraints hold it for the names, not for the contracts'
// types (define_task checks those).
func readRegistry(ctx context.Context, conn *pgx.Conn) (cgRegistry, error) {
	var reg cgRegistry
	rows, err := conn.Query(ctx, codegenTasksQuery)
	if err != nil {
		return reg, explainRead(err)
	}
	type row struct{ name, scope, schema, description string }
	raw, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		err := r.Scan(&x.name, &x.scope, &x.schema, &x.description)
		return x, err
	})
	if err != nil {
		return reg, explainRead(err)
	}
	for _, r := range raw {
		t, err := parseTask(r.name, r.scope, r.schema, r.description)
		if err != nil {
			return reg, err
		}
		reg.Tasks = append(reg.Tasks, t)
	}
	rows, err = conn.Query(ctx, codegenErrorsQuery)
	if err != nil {
		return reg, explainRead(err)
	}
	reg.Errors, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (cgError, error) {
		var x cgError
		err := r.Scan(&x.Code, &x.SQLState, &x.Meaning, &x.Hint)
		return x, err
	})
	if err != nil {
		return reg, explainRead(err)
	}
	return reg, nameErrors(reg.Errors)
}

// explainRead says which logins may read the registry when the login of the URL may not.
func explainRead(err error) error {
	err = explain(err)
	if strings.Contains(err.Error(), "42501") || strings.Contains(err.Error(), "permission denied") {
		return fmt.Errorf("%w\nhint: codegen reads jobq.tasks and jobq.error_codes: connect as a member of jobq_app, jobq_operator or jobq_viewer, or as worker_runtime", err)
	}
	return err
}

// parseTask turns a row of jobq.tasks into a cgTask, refusing what no module can express.
func parseTask(name, scope, schema, description string) (cgTask, error) {
	t := cgTask{Name: name, Scope: scope, Description: description}
	if !taskNameRE.MatchString(name) {
		return t, fmt.Errorf("codegen: task %q is not a kebab-case name", name)
	}
	if scope != "system" && scope != "store" {
		return t, fmt.Errorf("codegen: task %s has scope %q, neither system nor store", name, scope)
	}
	var contract map[string]any
	if err := json.Unmarshal([]byte(schema), &contract); err != nil {
		return t, fmt.Errorf("codegen: task %s: the payload contract is no JSON object: %v", name, err)
	}
	// In key order, so that the first problem named is the same on every run.
	raws := make([]string, 0, len(contract))
	for raw := range contract {
		raws = append(raws, raw)
	}
	sort.Strings(raws)
	seen := map[string]string{}
	for _, raw := range raws {
		v := contract[raw]
		typ, ok := v.(string)
		if !ok || !contractTypes[typ] {
			return t, fmt.Errorf("codegen: task %s: key %q has type %v; types are string, number, integer, boolean, object, array, uuid, date, timestamp, any", name, raw, v)
		}
		k := cgKey{Name: strings.TrimRight(raw, "?"), Type: typ, Optional: strings.HasSuffix(raw, "?")}
		if k.Name == "" {
			return t, fmt.Errorf("codegen: task %s: contract key %q names no key", name, raw)
		}
		if prev, dup := seen[k.Name]; dup {
			return t, fmt.Errorf("codegen: task %s: the contract names key %s twice (%q and %q); one type per key", name, k.Name, prev, raw)
		}
		seen[k.Name] = raw
		t.Keys = append(t.Keys, k)
	}
	sort.Slice(t.Keys, func(i, j int) bool { return t.Keys[i].Name < t.Keys[j].Name })
	return t, nil
}

// nameErrors gives each catalogued error its class name: JOB.UNKNOWN_TASK is UnknownTaskError,
// WORKER.NOT_READY is WorkerNotReadyError. Two codes that would share a class are refused.
func nameErrors(errs []cgError) error {
	byClass := map[string]string{}
	for i := range errs {
		e := &errs[i]
		if !errorCodeRE.MatchString(e.Code) {
			return fmt.Errorf("codegen: error code %q is not JOB.NAME or WORKER.NAME", e.Code)
		}
		prefix, rest, _ := strings.Cut(e.Code, ".")
		var b strings.Builder
		if prefix == "WORKER" {
			b.WriteString("Worker")
		}
		for _, part := range strings.Split(rest, "_") {
			if part != "" {
				b.WriteString(part[:1] + strings.ToLower(part[1:]))
			}
		}
		b.WriteString("Error")
		e.Class = b.String()
		if other, dup := byClass[e.Class]; dup {
			return fmt.Errorf("codegen: error codes %s and %s would both be class %s", other, e.Code, e.Class)
		}
		byClass[e.Class] = e.Code
	}
	return nil
}

// typeName is the type name of a task's payload: send-welcome-email is SendWelcomeEmailPayload.
// A part that starts with a digit keeps an underscore (sync-v-2 is SyncV_2Payload, sync-v2 is
// SyncV2Payload), so two task names never share a type name; the suffix keeps the names apart
// from the languages' reserved words (true, None) and from the runtime's names.
func typeName(task string) string {
	var b strings.Builder
	for _, part := range strings.Split(task, "-") {
		if part[0] >= '0' && part[0] <= '9' {
			b.WriteString("_" + part)
		} else {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String() + "Payload"
}

// quote is a string literal that TypeScript and Python both read back as s (JSON's escapes).
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // => stays =>
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// comment makes text safe inside a // or # line comment and a /** */ block: one line, no */.
func comment(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "*/", "* /")
}

const generatedNotice = "Code generated by `jobq codegen %s` from jobq.tasks and jobq.error_codes. DO NOT EDIT.\n" +
	"%s Regenerate it when a task or its contract changes: jobq codegen %s --out <this file>."

var tsIdentRE = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// tsType is the TypeScript type of a contract type.
var tsType = map[string]string{
	"string": "string", "number": "number", "integer": "number", "boolean": "boolean",
	"object": "Record<string, unknown>", "array": "unknown[]", "uuid": "Uuid", "date": "IsoDate",
	"timestamp": "IsoTimestamp | Date", "any": "unknown",
}

// generateTypeScript writes the TypeScript module: a payload interface per task, JobPayloadMap,
// JobScopeMap, enqueueJob, an error class per catalogued error and errorFromDb.
func generateTypeScript(reg cgRegistry, runtime string) ([]byte, error) {
	if runtime == "" {
		runtime = "./runtime.js"
	}
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("// "+generatedNotice+"\n\n", "typescript", "//", "typescript")
	p("import { JobqError, enqueueWith, type Db, type EnqueueArgs, type IsoDate, type IsoTimestamp, type Uuid } from %s;\n", quote(runtime))
	p("export { JobqError, asIsoDate, asUuid, setTenant, withTenant, type Db, type EnqueueOptions, type IsoDate, type IsoTimestamp, type JobId, type JobKeyMode,\n  type OnParentFailure, type OnSequenceFailure, type Uuid } from %s;\n\n", quote(runtime))
	if len(reg.Tasks) == 0 {
		p("// jobq.tasks declared no task when this module was generated: enqueueJob accepts none.\n\n")
	}
	for _, t := range reg.Tasks {
		p("/** %s (%s task)%s */\n", t.Name, t.Scope, describe(t.Description))
		keys := t.Keys
		if t.Scope == "store" && !hasKey(keys, "storeId") {
			// jobq takes a store task's store from the payload's storeId (or the storeId option).
			keys = append([]cgKey{{Name: "storeId", Type: "uuid", Optional: true}}, keys...)
		}
		if len(keys) == 0 {
			p("export type %s = Record<string, never>;\n\n", typeName(t.Name))
			continue
		}
		p("export interface %s {\n", typeName(t.Name))
		for _, k := range keys {
			name := k.Name
			if !tsIdentRE.MatchString(name) {
				name = quote(name)
			}
			if k.Optional && k.Type == "any" {
				p("  %s?: unknown;\n", name)
			} else if k.Optional {
				p("  %s?: %s | null;\n", name, tsType[k.Type])
			} else {
				p("  %s: %s;\n", name, tsType[k.Type])
			}
		}
		p("}\n\n")
	}
	p("/** Each task's payload: a call of enqueueJob with another payload does not compile. */\n")
	p("export interface JobPayloadMap {\n")
	for _, t := range reg.Tasks {
		p("  %s: %s;\n", quote(t.Name), typeName(t.Name))
	}
	p("}\n\n")
	p("/** Each task's scope: a store task needs a store id (the payload's storeId or the storeId option); a system task refuses one. */\n")
	p("export interface JobScopeMap {\n")
	for _, t := range reg.Tasks {
		p("  %s: %s;\n", quote(t.Name), quote(t.Scope))
	}
	p("}\n\n")
	p(`/**
 * Enqueues one job of task name with its payload by SELECT jobq.enqueue(...) over db: a node-postgres
 * Client, PoolClient or Pool, or a postgres.js sql (or its transaction), in the caller's transaction
 * when db is in one. Resolves to the job id (a bigint, as text); rejects with the error class of the
 * catalogued error the database raised (errorFromDb).
 */
export function enqueueJob<K extends keyof JobPayloadMap>(
  db: Db,
  name: K,
  ...args: EnqueueArgs<JobPayloadMap[K], JobScopeMap[K]>
): Promise<string> {
  return enqueueWith(db, name, args, errorFromDb);
}

`)
	for _, e := range reg.Errors {
		p("/** %s (SQLSTATE %s): %s Hint: %s */\n", e.Code, e.SQLState, comment(e.Meaning), comment(e.Hint))
		p("export class %s extends JobqError {\n", e.Class)
		p("  static readonly code = %s;\n  static readonly sqlstate = %s;\n", quote(e.Code), quote(e.SQLState))
		p("  constructor(message: string, options?: { hint?: string; cause?: unknown }) {\n")
		p("    super(%s, %s, message, options);\n", quote(e.Code), quote(e.SQLState))
		p("    this.name = %s;\n  }\n}\n\n", quote(e.Class))
	}
	p("const errorClasses: { readonly [sqlstate: string]: new (message: string, options?: { hint?: string; cause?: unknown }) => JobqError } = {\n")
	for _, e := range reg.Errors {
		p("  %s: %s,\n", e.SQLState, e.Class)
	}
	p("};\n\n")
	p(`/**
 * The typed error for an error of node-postgres or postgres.js that carries a catalogued jobq SQLSTATE
 * (class JQ), with the driver's error as its cause; any other value is returned as it is.
 */
export function errorFromDb(err: unknown): unknown {
  if (err instanceof JobqError || typeof err !== 'object' || err === null) {
    return err;
  }
  const e = err as { code?: unknown; message?: unknown; hint?: unknown };
  const cls = typeof e.code === 'string' && Object.prototype.hasOwnProperty.call(errorClasses, e.code) ? errorClasses[e.code] : undefined;
  if (cls === undefined) {
    return err;
  }
  return new cls(String(e.message), { hint: typeof e.hint === 'string' ? e.hint : undefined, cause: err });
}
`)
	return b.Bytes(), nil
}

func hasKey(keys []cgKey, name string) bool {
	for _, k := range keys {
		if k.Name == name {
			return true
		}
	}
	return false
}

func describe(d string) string {
	if d = comment(d); d != "" {
		return ": " + d
	}
	return "."
}

// pyKeywords are Python 3's reserved words: a contract key that is one (or no identifier) cannot be
// a field of a class-syntax TypedDict, so that payload uses the functional syntax.
var pyKeywords = map[string]bool{"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true,
	"async": true, "await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true, "import": true,
	"in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true,
	"return": true, "try": true, "while": true, "with": true, "yield": true}

var pyIdentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// pyType is the Python type of a contract type.
var pyType = map[string]string{
	"string": "str", "number": "float", "integer": "int", "boolean": "bool", "object": "dict[str, Any]",
	"array": "list[Any]", "uuid": "str | UUID", "date": "str | date", "timestamp": "str | datetime", "any": "Any",
}

// generatePython writes the Python module: a TypedDict per task, CONTRACTS (what the runtime checks
// before it enqueues), an enqueue_job overload per task, an exception class per catalogued error
// and error_from_db.
func generatePython(reg cgRegistry, runtime string) ([]byte, error) {
	if runtime == "" {
		runtime = "jobq_client.runtime"
	}
	if !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`).MatchString(runtime) {
		return nil, usageError{fmt.Sprintf("--runtime %q: want a dotted Python module name such as jobq_client.runtime", runtime)}
	}
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# "+generatedNotice+"\n\n", "python", "#", "python")
	p("from __future__ import annotations\n\n")
	p("from collections.abc import Sequence\n")
	p("from datetime import date, datetime\n")
	p("from typing import Any, Literal, NotRequired, TypedDict, overload\n")
	p("from uuid import UUID\n\n")
	p("from %s import (Conn, Contract, JobKeyMode, JobqError, OnParentFailure, OnSequenceFailure, enqueue_with, payload_problem,\n    set_tenant, with_tenant)\n\n", runtime)
	p("__all__ = [\"CONTRACTS\", \"Conn\", \"JobKeyMode\", \"JobqError\", \"OnParentFailure\", \"OnSequenceFailure\", \"enqueue_job\", \"error_class\",\n           \"error_from_db\", \"payload_problem\", \"set_tenant\", \"with_tenant\"]\n\n")
	if len(reg.Tasks) == 0 {
		p("# jobq.tasks declared no task when this module was generated: enqueue_job accepts none.\n\n")
	}
	for _, t := range reg.Tasks {
		name := typeName(t.Name)
		keys := t.Keys
		if t.Scope == "store" && !hasKey(keys, "storeId") {
			keys = append([]cgKey{{Name: "storeId", Type: "uuid", Optional: true}}, keys...)
		}
		field := func(k cgKey) string {
			if k.Optional && k.Type == "any" {
				return "NotRequired[Any]"
			} else if k.Optional {
				return fmt.Sprintf("NotRequired[%s | None]", pyType[k.Type])
			}
			return pyType[k.Type]
		}
		classSyntax := true
		for _, k := range keys {
			if !pyIdentRE.MatchString(k.Name) || pyKeywords[k.Name] {
				classSyntax = false
			}
		}
		if classSyntax {
			p("\nclass %s(TypedDict):\n", name)
			p("    %s\n\n", quote(fmt.Sprintf("%s (%s task)%s", t.Name, t.Scope, describe(t.Description))))
			for _, k := range keys {
				p("    %s: %s\n", k.Name, field(k))
			}
		} else {
			p("\n# %s (%s task)%s A key is no Python identifier: the functional syntax.\n", t.Name, t.Scope, describe(t.Description))
			p("%s = TypedDict(%s, {\n", name, quote(name))
			for _, k := range keys {
				p("    %s: %s,\n", quote(k.Name), field(k))
			}
			p("})\n")
		}
		p("\n")
	}
	p("\n# Each task's scope and payload contract as jobq.tasks holds them: enqueue_job checks a payload\n")
	p("# against its contract (as jobq.enqueue will) before it calls the database.\n")
	p("CONTRACTS: dict[str, Contract] = {\n")
	for _, t := range reg.Tasks {
		p("    %s: Contract(%s, {", quote(t.Name), quote(t.Scope))
		for i, k := range t.Keys {
			if i > 0 {
				p(", ")
			}
			key := k.Name
			if k.Optional {
				key += "?"
			}
			p("%s: %s", quote(key), quote(k.Type))
		}
		p("}),\n")
	}
	p("}\n\n")
	opts := "job_key: str | None = None, job_key_mode: JobKeyMode | None = None,\n" +
		"    max_attempts: int | None = None, run_at: datetime | None = None, queue: str | None = None,\n" +
		"    priority: int | None = None, timeout: str | None = None, backoff_base: str | None = None,\n" +
		"    backoff_max: str | None = None, unique_for: str | None = None,\n" +
		"    depends_on: Sequence[int] | None = None, on_parent_failure: OnParentFailure | None = None,\n" +
		"    sequence_key: str | None = None, on_sequence_failure: OnSequenceFailure | None = None"
	sig := func(t cgTask) string {
		store := ""
		switch {
		case t.Scope == "store" && hasKey(t.Keys, "storeId") && !optionalKey(t.Keys, "storeId"):
			store = "store_id: str | UUID | None = None, "
		case t.Scope == "store":
			// The contract does not require storeId: the keyword is what types the store.
			store = "store_id: str | UUID, "
		}
		return fmt.Sprintf("conn: Conn, name: Literal[%s], payload: %s, *,\n    %s%s,\n) -> int:",
			quote(t.Name), typeName(t.Name), store, opts)
	}
	switch len(reg.Tasks) {
	case 0:
		p("def enqueue_job(conn: Conn, name: str, payload: dict[str, Any], **options: Any) -> int:\n")
		p("    %s\n", quote("Refuses every task: the registry declared none when this module was generated."))
		p("    return enqueue_with(conn, CONTRACTS, error_class, error_from_db, name, payload, **options)\n\n")
	case 1:
		p("def enqueue_job(\n    %s\n", sig(reg.Tasks[0]))
		p("    %s\n", quote("Enqueues one job by SELECT jobq.enqueue(...) on conn, in its transaction; returns the job id."))
		p("    return enqueue_with(conn, CONTRACTS, error_class, error_from_db, name, payload, **_options(locals()))\n\n")
	default:
		for _, t := range reg.Tasks {
			p("@overload\ndef enqueue_job(\n    %s ...\n", sig(t))
		}
		p("\ndef enqueue_job(conn: Conn, name: str, payload: Any, **options: Any) -> int:\n")
		p("    %s\n", quote("Enqueues one job by SELECT jobq.enqueue(...) on conn (psycopg 3), in its transaction; "+
			"checks the payload against its task's contract first. Returns the job id; raises the class of the catalogued error."))
		p("    return enqueue_with(conn, CONTRACTS, error_class, error_from_db, name, payload, **options)\n\n")
	}
	if len(reg.Tasks) == 1 {
		p("\ndef _options(args: dict[str, Any]) -> dict[str, Any]:\n")
		p("    return {k: v for k, v in args.items() if k not in (\"conn\", \"name\", \"payload\")}\n\n")
	}
	for _, e := range reg.Errors {
		p("\nclass %s(JobqError):\n", e.Class)
		p("    %s\n\n", quote(fmt.Sprintf("%s (SQLSTATE %s): %s Hint: %s", e.Code, e.SQLState, comment(e.Meaning), comment(e.Hint))))
		p("    code = %s\n    sqlstate = %s\n    catalogue_hint = %s\n\n", quote(e.Code), quote(e.SQLState), quote(e.Hint))
	}
	p("\n_ERROR_CLASSES: dict[str, type[JobqError]] = {\n")
	for _, e := range reg.Errors {
		p("    %s: %s,\n", quote(e.SQLState), e.Class)
	}
	p("}\n\n\n")
	p(`def error_from_db(err: BaseException) -> BaseException:
    """The typed exception for a psycopg error that carries a catalogued jobq SQLSTATE (class JQ),
    with the driver's error as its __cause__; any other exception is returned as it is."""
    cls = _ERROR_CLASSES.get(getattr(err, "sqlstate", None) or "")
    if cls is None:
        return err
    diag = getattr(err, "diag", None)
    typed = cls(getattr(diag, "message_primary", None) or str(err), hint=getattr(diag, "message_hint", None))
    typed.__cause__ = err
    return typed


def error_class(code: str) -> type[JobqError]:
    """The exception class of a catalogued code such as JOB.PAYLOAD_INVALID."""
    for cls in _ERROR_CLASSES.values():
        if cls.code == code:
            return cls
    raise KeyError(code)
`)
	return b.Bytes(), nil
}

func optionalKey(keys []cgKey, name string) bool {
	for _, k := range keys {
		if k.Name == name {
			return k.Optional
		}
	}
	return false
}

// writeFileAtomic replaces path with data through a temporary file in the same folder, so a
// failed run never leaves half a module.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("codegen: --out: %w", err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("codegen: --out: %w", err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("codegen: --out: %w", err)
	}
	return nil
}
