package runner

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/jobqdev/jobq"
	"github.com/jobqdev/jobq/migrate"
)

// readyTimeout bounds one readiness check.
const readyTimeout = 2 * time.Second

// HTTPHandler serves the runner's probes and metrics:
//
//	GET /healthz  200 whenever the process serves, database or not (liveness).
//	GET /readyz   200 when Ready returns nil, else 503 with a JSON body naming
//	              WORKER.NOT_READY (also while the worker is draining or detached, so a
//	              load balancer stops routing to it) or WORKER.SCHEMA_MISSING.
//	GET /metrics  the runner's Prometheus metrics (its own registry).
func (r *Runner) HTTPHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "workerId": r.WorkerID()})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, req *http.Request) {
		err := r.Ready(req.Context())
		if err == nil {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ready", "workerId": r.WorkerID()})
			return
		}
		code := ErrNotReady.Code
		var jerr *jobq.Error
		if errors.As(err, &jerr) {
			code = jerr.Code
		}
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{
			"status": "not_ready", "code": code, "error": err.Error(), "workerId": r.WorkerID(),
		})
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(r.metrics.reg, promhttp.HandlerOpts{Registry: r.metrics.reg}))
	return mux
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// Ready reports whether the runner can do its work now: it is running (not starting or
// shutting down), the engine has not told it to drain or detached it, the database answers,
// and the jobq schema is visible and at the version this binary expects. The error is an
// ErrNotReady or ErrSchemaMissing *jobq.Error. A draining or detached runner is alive (its
// /healthz answers 200) and finishes what it holds, but is not ready: it takes no new work.
func (r *Runner) Ready(ctx context.Context) error {
	switch r.state.Load() {
	case stateNew, stateStarting:
		if err := r.schema.checkDatabase(ctx); err != nil {
			return err
		}
		return codeError(ErrNotReady, "", "the runner has not started claiming yet")
	case stateStopping, stateStopped:
		return codeError(ErrNotReady, "", "the runner is shutting down")
	}
	if why, hint := r.worker.notReady(); why != "" {
		return codeError(ErrNotReady, hint, "%s", why)
	}
	return r.schema.checkDatabase(ctx)
}

// healthDB is the database a schemaCheck reads; *pgxpool.Pool satisfies it.
type healthDB interface {
	jobq.DB
	Ping(ctx context.Context) error
}

// schemaCheck tells whether the database answers and holds a jobq schema this binary can work
// with: what readiness and start-up wait for. It needs only the database.
type schemaCheck struct {
	db healthDB
}

// checkDatabase pings the database, then checks the schema, within readyTimeout (2 seconds).
func (r schemaCheck) checkDatabase(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	if err := r.db.Ping(ctx); err != nil {
		return codeError(ErrNotReady, "", "the database does not answer: %v", err)
	}
	return r.checkSchema(ctx)
}

// checkSchema returns an ErrSchemaMissing error unless the jobq schema is visible to this role
// and at the version this binary expects, or an ErrNotReady error when the check itself fails.
func (r schemaCheck) checkSchema(ctx context.Context) error {
	var visible, versioned bool
	err := r.db.QueryRow(ctx, `
		SELECT n.oid IS NOT NULL AND pg_catalog.has_schema_privilege(n.oid, 'USAGE'),
		       pg_catalog.to_regclass($1) IS NOT NULL
		FROM (SELECT 1) AS one
		LEFT JOIN pg_catalog.pg_namespace n ON n.nspname = 'jobq'`, migrate.VersionTable).Scan(&visible, &versioned)
	if err != nil {
		return codeError(ErrNotReady, "", "the database does not answer: %v", err)
	}
	if !visible {
		return codeError(ErrSchemaMissing, "Run jobq bootstrap and jobq migrate up.", "the jobq schema does not exist or this role may not use it")
	}
	if !versioned {
		return codeError(ErrSchemaMissing, "Run jobq migrate up.", "the jobq schema has no migration history (%s)", migrate.VersionTable)
	}
	if _, err := migrate.CheckVersion(ctx, r.db); err != nil {
		if errors.Is(err, migrate.ErrSchemaBehind) || errors.Is(err, migrate.ErrSchemaTooNew) {
			return codeError(ErrSchemaMissing, "Deploy the binary that matches the schema, or run jobq migrate up.", "%v", err)
		}
		return codeError(ErrNotReady, "", "reading the schema version failed: %v", err)
	}
	return nil
}
