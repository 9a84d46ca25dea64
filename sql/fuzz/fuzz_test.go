// Package fuzz_test is a property test of jobq's SQL API: it calls every function that an
// application, a worker or an operator may execute, with generated and boundary values, as each
// of those roles, and checks after every call that the engine kept its promises.
package fuzz_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jobqdev/jobq/internal/dbtest"
)

// batchSize is how many calls run between two health checks of the other tenant's queue.
const batchSize = 25

// maxBisects bounds how many health failures are bisected to their culprit call in one run; each
// replays its stretch of calls on a fresh database.
const maxBisects = 12

// TestSQLAPIFuzz calls the SQL API JOBQ_FUZZ_CALLS times (default 10,000) with arguments drawn
// from JOBQ_FUZZ_SEED (default: the clock; the seed is printed at the start and with every
// failure) and asserts, call by call:
//   - the call succeeded, or failed with a SQLSTATE of jobq.error_codes and its code at the start
//     of the message: no raw PostgreSQL error, and no statement running past the 2 s timeout;
//   - a call naming no worker (worker_id NULL or blank; mustRefuse) failed, and so did an enqueue
//     of a date or timestamp that is no calendar value (mustRefuse);
//   - a failed call wrote nothing (a fingerprint of every jobq table is unchanged);
//   - an application's call changed no job of another store nor any system job;
//
// and, after every batch of 25 calls, that jobq.maintain(), the claim and completion of a control
// job of another store, and jobq.queue_lag() still work. When they do not, the batch is replayed
// one call at a time on a fresh database to name the call that broke them, and the run goes on
// with a fresh database. Every distinct failure is reported once, with its first occurrence.
func TestSQLAPIFuzz(t *testing.T) {
	seed := uint64(time.Now().UnixNano() % 1_000_000_000)
	if v := os.Getenv("JOBQ_FUZZ_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("JOBQ_FUZZ_SEED=%q is not a number", v)
		}
		seed = n
	}
	calls := 10_000
	if v := os.Getenv("JOBQ_FUZZ_CALLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("JOBQ_FUZZ_CALLS=%q is not a positive number", v)
		}
		calls = n
	}
	budget := 8 * time.Minute
	if v := os.Getenv("JOBQ_FUZZ_BUDGET"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("JOBQ_FUZZ_BUDGET=%q is not a duration", v)
		}
		budget = d
	}
	t.Logf("fuzzing the SQL API: seed %d, %d calls (replay: JOBQ_FUZZ_SEED=%d JOBQ_FUZZ_CALLS=%d)", seed, calls, seed, calls)

	adminURL := dbtest.TemplateURL(t)
	r := &run{
		t: t, seed: seed, calls: calls, deadline: time.Now().Add(budget),
		stats: map[string]*fnStats{}, failures: map[string]*failure{}, timeouts: map[string]int{},
	}
	r.logins = createLogins(t, adminURL, fmt.Sprintf("%d_%06d", time.Now().UnixNano()%1e9, rand.IntN(1e6)))

	w := r.world()
	if err := r.catalog(w); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	for from := 0; from < calls; {
		if w == nil {
			w = r.world()
		}
		res := r.epoch(w, from, calls, false)
		r.done = res.next
		if res.health == nil {
			if res.stopped {
				t.Errorf("seed %d: the time budget of %s ran out after %d of %d calls", seed, budget, res.next, calls)
			}
			break
		}
		w.close()
		r.healthFailure(from, res)
		from, w = res.next, nil
	}
	r.summary(time.Since(started))
	r.report()
}

// run is one fuzzing run: its settings, the functions, and what it saw.
type run struct {
	t        *testing.T
	seed     uint64
	calls    int
	done     int
	deadline time.Time
	logins   logins
	fns      []*function
	gens     map[string][]valueGen // per signature, per argument
	codes    map[string]string     // SQLSTATE -> code of jobq.error_codes
	stats    map[string]*fnStats
	failures map[string]*failure
	order    []string
	timeouts map[string]int // per signature; a function that timed out twice is not called again
	bisects  int
}

// fnStats counts one function's calls.
type fnStats struct {
	calls, accepted, skipped int
	refused                  map[string]int // by code
	failed                   map[string]int // by kind
}

// failure is one distinct failure: what went wrong, in which function, first seen where.
type failure struct {
	key     string
	first   string
	count   int
	callers map[string]bool
}

// callRecord is one call as drawn: enough to print and to replay it.
type callRecord struct {
	index  int
	fn     *function
	caller caller
	args   []*string
}

// String renders the call as the caller's statement with literals, long values abbreviated.
func (c callRecord) String() string {
	lits := make([]string, len(c.args))
	for i, a := range c.args {
		if a == nil {
			lits[i] = "NULL::" + c.fn.Args[i].Type
			continue
		}
		v := *a
		if len(v) > 160 {
			v = fmt.Sprintf("%s…(%d bytes)", v[:60], len(v))
		}
		lits[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'::" + c.fn.Args[i].Type
	}
	store := "no store"
	if c.caller.Store != "" {
		store = "app.current_store_id " + map[string]string{storeA: "A", storeB: "B"}[c.caller.Store] + " (" + c.caller.Store + ")"
	}
	return fmt.Sprintf("call #%d as %s (%s, %s): SELECT * FROM %s(%s)", c.index, c.caller.Name, c.caller.Role, store,
		c.fn.Name, strings.Join(lits, ", "))
}

// world makes a fresh database, failing the test when it cannot.
func (r *run) world() *world {
	w, err := newWorld(r.t, r.logins)
	if err != nil {
		r.t.Fatalf("seed %d: a fresh database: %v", r.seed, err)
	}
	return w
}

// catalog lists the functions and the error catalogue, and finds a generator for every argument:
// a function with an argument no generator covers fails the test by name.
func (r *run) catalog(w *world) error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, w.db.URL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if r.fns, err = listFunctions(ctx, conn); err != nil {
		return fmt.Errorf("list the functions: %w", err)
	}
	r.gens = map[string][]valueGen{}
	var missing []string
	for _, f := range r.fns {
		for _, a := range f.Args {
			vg, err := generatorFor(f, a)
			if err != nil {
				missing = append(missing, err.Error())
				continue
			}
			r.gens[f.Signature] = append(r.gens[f.Signature], vg)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the fuzzer cannot call every function:\n%s", strings.Join(missing, "\n"))
	}
	rows, err := conn.Query(ctx, `SELECT e.sqlstate, e.code FROM jobq.error_codes e`)
	if err != nil {
		return err
	}
	r.codes = map[string]string{}
	for rows.Next() {
		var state, code string
		if err := rows.Scan(&state, &code); err != nil {
			return err
		}
		r.codes[state] = code
	}
	return rows.Err()
}

// draw draws call i: its function, caller and arguments, from the seed and i alone (and the
// pools, which a replay rebuilds the same way).
func (r *run) draw(i int, p *pools) callRecord {
	g := &gen{rng: rand.New(rand.NewPCG(r.seed, uint64(i))), pools: p, logins: r.logins, now: time.Now()}
	f := r.fns[g.rng.IntN(len(r.fns))]
	var cs []caller
	for _, c := range callers {
		if slices.Contains(f.Roles, c.Role) {
			cs = append(cs, c)
		}
	}
	c := cs[g.rng.IntN(len(cs))]
	return callRecord{index: i, fn: f, caller: c, args: g.args(f, r.gens[f.Signature])}
}

// writesNothing are the functions that never write: a health failure bisected to one of them was
// caused by an earlier call and the passing of time.
var writesNothing = map[string]bool{"jobq.cron_next": true, "jobq.cron_parse": true, "jobq.cron_slots": true,
	"jobq._cron_next": true, "jobq._cron_field": true, "jobq._cron_value": true, "jobq._check_timezone": true,
	"jobq._json_type_ok": true, "jobq.payload_problem": true, "jobq.backoff_delay": true, "jobq.backoff_ceiling": true,
	"jobq.current_store_id": true, "jobq.queue_lag": true, "jobq.queue_depth": true, "jobq.queue_states": true, "jobq._raise": true,
	"jobq.stats": true, "jobq.queue_summary": true, "jobq.upkeep_advice": true, "jobq.served_tasks": true,
	"jobq.queue_not_served": true, "jobq.queue_list": true, "jobq.queue_minutes": true, "jobq.job_list": true,
	"jobq.job_attempt_list": true, "jobq.worker_list": true, "jobq.leader_state": true, "jobq.schedule_list": true,
	"jobq.setting_list": true, "jobq.audit_list": true, "jobq.stats_counted_at": true}

// refreshAfter are the functions after whose success the pools are read again at once (else at
// the end of the batch): they hand out the lease tokens the next calls should use.
var refreshAfter = map[string]bool{"jobq.claim_job": true}

// epochResult is how a stretch of calls on one database ended.
type epochResult struct {
	next       int   // the first call not made
	health     error // the health check that failed, nil when none did
	batchStart int   // the first call of the batch after which it failed
	stopped    bool  // the time budget ran out
	batch      []callRecord
}

// epoch makes calls [from, to) on w, checking health after every batch of batchSize calls
// (counted from from) and after the last one, and stops at the first failed check. A replay
// records nothing: it only tells whether the same calls break the health check again.
func (r *run) epoch(w *world, from, to int, replay bool) epochResult {
	ctx := context.Background()
	fail := func(i int, err error) epochResult {
		r.t.Fatalf("seed %d, call %d: %v", r.seed, i, err)
		return epochResult{}
	}
	p, err := w.refreshPools(ctx)
	if err != nil {
		return fail(from, err)
	}
	before, err := w.fingerprint(ctx, 0)
	if err != nil {
		return fail(from, err)
	}
	var batch []callRecord
	batchStart := from
	for i := from; i < to; i++ {
		if !replay && time.Now().After(r.deadline) {
			return epochResult{next: i, stopped: true}
		}
		c := r.draw(i, p)
		batch = append(batch, c)
		if r.timeouts[c.fn.Signature] >= 2 {
			if !replay {
				r.stat(c.fn).skipped++
			}
		} else {
			after, accepted, err := r.one(ctx, w, c, before, replay)
			if err != nil {
				return fail(i, err)
			}
			before = after
			if accepted && refreshAfter[c.fn.Name] {
				if p, err = w.refreshPools(ctx); err != nil {
					return fail(i, err)
				}
			}
		}
		if (i-from+1)%batchSize != 0 && i != to-1 {
			continue
		}
		if herr := w.health(ctx); herr != nil {
			return epochResult{next: i + 1, health: herr, batchStart: batchStart, batch: batch}
		}
		if p, err = w.refreshPools(ctx); err != nil {
			return fail(i, err)
		}
		if before, err = w.fingerprint(ctx, 0); err != nil {
			return fail(i, err)
		}
		batch, batchStart = nil, i+1
	}
	return epochResult{next: to}
}

// one makes call c and checks its outcome and what it wrote. It returns the fingerprint after the
// call and whether the call succeeded; err is for the harness's own failures only.
func (r *run) one(ctx context.Context, w *world, c callRecord, before fingerprint, replay bool) (fingerprint, bool, error) {
	params := make([]any, len(c.args))
	for i, a := range c.args {
		if a == nil {
			params[i] = nil
		} else {
			params[i] = *a
		}
	}
	_, callErr := w.call(ctx, c.caller, c.fn.callSQL(len(c.args)), params...)
	after, err := w.fingerprint(ctx, before.Seq)
	if err != nil {
		return after, false, err
	}
	if replay {
		return after, callErr == nil, nil
	}
	st := r.stat(c.fn)
	st.calls++
	if callErr == nil {
		st.accepted++
		if why := mustRefuse(c); why != "" {
			r.record(st, "accepted", fmt.Sprintf("%s accepted %s", c.fn.Name, why), c, "the call succeeded")
		}
		if c.caller.Role == "jobq_app" {
			if why := crossedTenants(c.caller, before, after); why != "" {
				r.record(st, "tenant", fmt.Sprintf("%s as %s changed rows that are not its store's", c.fn.Name, c.caller.Name),
					c, why)
			}
		}
		return after, true, nil
	}
	pg := pgError(callErr)
	switch {
	case pg == nil:
		r.record(st, "error", fmt.Sprintf("%s: not a PostgreSQL error", c.fn.Name), c, callErr.Error())
	case pg.Code == "57014":
		r.timeouts[c.fn.Signature]++
		r.record(st, "timeout", fmt.Sprintf("%s: ran past the %s statement_timeout (57014)", c.fn.Name, callTimeout), c, pg.Message)
	case r.codes[pg.Code] == "" || !strings.HasPrefix(pg.Message, r.codes[pg.Code]+":"):
		r.record(st, "raw "+pg.Code, fmt.Sprintf("%s: raw SQLSTATE %s reached the caller", c.fn.Name, pg.Code), c,
			fmt.Sprintf("%s (%s)", pg.Message, firstLine(pg.Where)))
	default:
		if st.refused == nil {
			st.refused = map[string]int{}
		}
		st.refused[r.codes[pg.Code]]++
	}
	if same, why := before.same(after); !same {
		r.record(st, "wrote", fmt.Sprintf("%s: a failed call wrote rows", c.fn.Name), c, why)
	}
	return after, false, nil
}

// mustRefuse tells why call c must fail, whatever else it passes: it names no worker (worker_id
// NULL, empty or spaces only), which matches no worker and no lease, so a call that accepted it
// could only have done nothing and said nothing. jobq.maintain without a worker id (and without an
// epoch) is its unfenced form, and is not refused. "" when the call may succeed.
func mustRefuse(c callRecord) string {
	for i, a := range c.fn.Args {
		if a.kind() != "worker_id" || a.Type != "text" {
			continue
		}
		var v *string
		if i < len(c.args) {
			v = c.args[i]
		}
		if c.fn.Name == "jobq.maintain" && v == nil {
			continue
		}
		switch {
		case v == nil:
			return "a NULL worker_id"
		case strings.Trim(*v, " ") == "":
			return "a blank worker_id"
		}
	}
	// An enqueue of calendarTask whose date or timestamp is no calendar value.
	if c.fn.Name == "jobq.enqueue" && len(c.args) > 1 && c.args[0] != nil && *c.args[0] == calendarTask && c.args[1] != nil &&
		slices.Contains(calendarInvalid, *c.args[1]) {
		return "a date or timestamp that is no calendar value"
	}
	return ""
}

// crossedTenants tells how an application's call changed rows that are not its store's: any job
// or history row of another store or of the system that existed before the call, and any new row
// of another store. "" when it did not.
func crossedTenants(c caller, before, after fingerprint) string {
	var out []string
	for _, table := range []string{"jobs", "job_history"} {
		for _, class := range []string{"system", "A", "B", "other"} {
			if c.Store == storeA && class == "A" {
				continue
			}
			key := table + "/" + class
			n0, h0 := before.Classes[key].N, before.Classes[key].Hash
			n1, h1 := after.old(key)
			if n0 != n1 || h0 != h1 {
				out = append(out, fmt.Sprintf("existing %s rows changed (%d rows before, %d of them left)", key, n0, n1))
			}
			if class != "system" && after.Classes[key].NewN > 0 {
				out = append(out, fmt.Sprintf("%d new %s rows", after.Classes[key].NewN, key))
			}
		}
	}
	return strings.Join(out, "; ")
}

func (r *run) stat(f *function) *fnStats {
	st := r.stats[f.Signature]
	if st == nil {
		st = &fnStats{}
		r.stats[f.Signature] = st
	}
	return st
}

// record counts a failure under key, keeping the details of its first occurrence.
func (r *run) record(st *fnStats, kind, key string, c callRecord, detail string) {
	if st != nil {
		if st.failed == nil {
			st.failed = map[string]int{}
		}
		st.failed[kind]++
	}
	f := r.failures[key]
	if f == nil {
		if len(detail) > 600 && kind != "health" {
			detail = detail[:600] + "…"
		}
		f = &failure{key: key, callers: map[string]bool{}, first: fmt.Sprintf("seed %d, %s\n      -> %s", r.seed, c, detail)}
		r.failures[key] = f
		r.order = append(r.order, key)
	}
	f.count++
	f.callers[c.caller.Name] = true
}

// healthFailure finds the call that broke the health check: it replays the epoch on fresh
// databases, the same calls with the same checks, stopping after a shorter and shorter prefix of
// the failed batch (a binary search), and names the first call after which the check fails.
func (r *run) healthFailure(from int, res epochResult) {
	last := res.batch[len(res.batch)-1]
	step := healthStep(res.health)
	if r.bisects >= maxBisects || time.Now().After(r.deadline) {
		r.record(nil, "health", fmt.Sprintf("%s failed (not bisected)", step), last,
			fmt.Sprintf("%v after the batch of calls %d..%d:%s", res.health, res.batchStart, res.next-1, listCalls(res.batch)))
		return
	}
	r.bisects++
	// fails replays the calls before the failed batch and its first k calls, and checks health.
	fails := func(k int) (error, bool) {
		w := r.world()
		defer w.close()
		rep := r.epoch(w, from, res.batchStart+k, true)
		return rep.health, rep.health != nil && rep.next > res.batchStart
	}
	herr, ok := fails(len(res.batch))
	if !ok {
		r.record(nil, "health", fmt.Sprintf("%s failed (not reproduced by a replay)", step), last,
			fmt.Sprintf("%v after the batch of calls %d..%d:%s", res.health, res.batchStart, res.next-1, listCalls(res.batch)))
		return
	}
	lo, hi := 1, len(res.batch)
	for lo < hi {
		mid := (lo + hi) / 2
		if err, ok := fails(mid); ok {
			hi, herr = mid, err
		} else {
			lo = mid + 1
		}
	}
	culprit := res.batch[hi-1]
	if writesNothing[culprit.fn.Name] {
		// The check passed before this call and failed after it, but the call writes nothing: time
		// did it (a job written earlier became due, or its lease or timeout ran out).
		r.record(nil, "health", fmt.Sprintf("%s failed (a job written earlier became due or expired)", step), culprit,
			fmt.Sprintf("%v; the calls of the epoch from %d to %d wrote it", herr, from, culprit.index))
		return
	}
	r.record(r.stat(culprit.fn), "health", fmt.Sprintf("%s as %s stops %s", culprit.fn.Name, culprit.caller.Role, healthStep(herr)),
		culprit, fmt.Sprintf("then %v", herr))
}

// listCalls lists calls one a line, for a failure message.
func listCalls(calls []callRecord) string {
	var b strings.Builder
	for _, c := range calls {
		b.WriteString("\n        " + c.String())
	}
	return b.String()
}

// healthStep names the part of the health check that failed, with its SQLSTATE, for grouping.
func healthStep(err error) string {
	msg := err.Error()
	step := msg
	if i := strings.IndexAny(msg, ":("); i > 0 {
		step = msg[:i]
	}
	if strings.Contains(msg, "did not claim") {
		step = "claim_job (the control job was not claimed)"
	}
	if pg := pgError(err); pg != nil {
		step += " (" + pg.Code + ")"
	}
	return strings.TrimSpace(step)
}

// summary logs the calls per function and their outcomes (shown with -v and on failure).
func (r *run) summary(took time.Duration) {
	var b strings.Builder
	total, accepted := 0, 0
	sigs := make([]string, 0, len(r.stats))
	for sig := range r.stats {
		sigs = append(sigs, sig)
	}
	sort.Strings(sigs)
	for _, sig := range sigs {
		st := r.stats[sig]
		total += st.calls
		accepted += st.accepted
		fmt.Fprintf(&b, "\n  %-48s %5d calls %5d accepted", strings.SplitN(sig, "(", 2)[0], st.calls, st.accepted)
		if st.skipped > 0 {
			fmt.Fprintf(&b, " %d skipped", st.skipped)
		}
		for _, m := range []map[string]int{st.refused, st.failed} {
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(&b, " %s=%d", k, m[k])
			}
		}
	}
	var never []string
	for _, f := range r.fns {
		if r.stats[f.Signature] == nil {
			never = append(never, f.Name)
		}
	}
	r.t.Logf("seed %d: %d calls of %d functions in %s (%d accepted), %d bisected health failures, %d distinct failures%s",
		r.seed, total, len(r.fns), took.Round(time.Millisecond), accepted, r.bisects, len(r.failures), b.String())
	if len(never) > 0 && r.done >= r.calls {
		r.t.Errorf("seed %d: never called: %s", r.seed, strings.Join(never, ", "))
	}
}

// report fails the test once per distinct failure, with its first occurrence.
func (r *run) report() {
	for _, key := range r.order {
		f := r.failures[key]
		cs := make([]string, 0, len(f.callers))
		for c := range f.callers {
			cs = append(cs, c)
		}
		sort.Strings(cs)
		r.t.Errorf("%s\n    %d times, as %s; first: %s", f.key, f.count, strings.Join(cs, ", "), f.first)
	}
}

// firstLine is s up to its first line break: the innermost frame of an error's context.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
