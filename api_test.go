package jobq_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/internal/engine"
)

// The runner's calls and the row types only they use live in internal/engine; the operator's in
// package operator (issue 32). Package jobq is the application's API.
var (
	runnerOnlyCalls = []string{"ClaimAfter", "ClaimPassedOver", "HeartbeatAt", "HandBackUnheld", "RegisterWorker",
		"WorkerHeartbeat", "DeregisterWorker", "AcquireLeadership", "Maintain", "RescueExpired", "CompleteAttempts",
		"ConfirmContinuation", "QueueLag", "QueueDepth", "QueueNotServed"}
	runnerOnlyTypes = []string{"ClaimPosition", "PositionOf", "Completion", "Rescue", "HandedBack", "QueueLag",
		"QueueDepth", "QueueNotServed", "WorkerInfo", "WorkerState", "Settings", "MaintainResult", "SweptDead"}
	operatorCalls = []string{"DrainWorker", "ResumeWorker", "DetachWorker"}
)

func TestClientIsTheApplicationsAPI(t *testing.T) {
	t.Parallel()
	client, eng := reflect.TypeOf(&jobq.Client{}), reflect.TypeOf(&engine.Engine{})
	for _, name := range append(runnerOnlyCalls, operatorCalls...) {
		_, onClient := client.MethodByName(name)
		require.False(t, onClient, "jobq.Client.%s is not an application call: it belongs to internal/engine or package operator", name)
	}
	for _, name := range runnerOnlyCalls {
		_, onEngine := eng.MethodByName(name)
		require.True(t, onEngine, "internal/engine lost the runner's call %s", name)
	}

	// Nor does the package declare the row types only those calls use.
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	require.NoError(t, err)
	declared := map[string]bool{} // the package's top-level types and functions
	for _, f := range pkgs["jobq"].Files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					declared[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					if ts, ok := spec.(*ast.TypeSpec); ok {
						declared[ts.Name.Name] = true
					}
				}
			}
		}
	}
	require.NotEmpty(t, declared)
	for _, name := range runnerOnlyTypes {
		require.False(t, declared[name], "package jobq declares %s, which only the runner's calls use (internal/engine)", name)
	}
}

// The application's API and the runner's calls share the engine's statements, rows and error
// mapping through internal/jobsql, a cut the compiler checks: no package holds state that another
// sets at init (STYLE.md: no global state). The only package-level variables of jobq, jobsql and
// engine are jobq's sentinel errors, and none of them has an init.
func TestNoPackageState(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{".", "internal/jobsql", "internal/engine"} {
		pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		require.NoError(t, err)
		require.Len(t, pkgs, 1, dir)
		for name, pkg := range pkgs {
			for _, f := range pkg.Files {
				for _, d := range f.Decls {
					switch d := d.(type) {
					case *ast.FuncDecl:
						require.False(t, d.Recv == nil && d.Name.Name == "init", "package %s (%s) has an init", name, dir)
					case *ast.GenDecl:
						if d.Tok != token.VAR {
							continue
						}
						for _, spec := range d.Specs {
							vs := spec.(*ast.ValueSpec)
							for i, id := range vs.Names {
								require.True(t, name == "jobq" && isSentinel(id, vs, i),
									"package %s (%s) declares the package-level variable %s: only jobq's Err sentinels may be", name, dir, id.Name)
							}
						}
					}
				}
			}
		}
	}
}

// isSentinel reports whether the i-th name of vs is ErrX = &Error{Code: ...}.
func isSentinel(id *ast.Ident, vs *ast.ValueSpec, i int) bool {
	if !strings.HasPrefix(id.Name, "Err") || len(vs.Values) <= i {
		return false
	}
	// errors.New("...") is a sentinel too (one the client raises itself, no SQLSTATE behind it).
	if call, ok := vs.Values[i].(*ast.CallExpr); ok {
		sel, ok := call.Fun.(*ast.SelectorExpr)
		pkg, _ := sel.X.(*ast.Ident)
		return ok && pkg != nil && pkg.Name == "errors" && sel.Sel.Name == "New"
	}
	u, ok := vs.Values[i].(*ast.UnaryExpr)
	if !ok || u.Op != token.AND {
		return false
	}
	lit, ok := u.X.(*ast.CompositeLit)
	if !ok {
		return false
	}
	typ, ok := lit.Type.(*ast.Ident)
	return ok && typ.Name == "Error"
}
