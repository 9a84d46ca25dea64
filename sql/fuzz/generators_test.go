package fuzz_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// This file holds every generator: values for each SQL type, and for argument names whose values
// must come from the live database (job ids, lease tokens, job keys, worker and schedule names)
// or from a small language (cron, time zones, settings). A value is the text of a literal of the
// argument's type, or nil for NULL.

// gen draws the arguments of one call. Its random source is derived from the run's seed and the
// call's index, so a call is the same in a replay.
type gen struct {
	rng    *rand.Rand
	pools  *pools
	logins logins
	now    time.Time
	// wild is the chance that an argument takes an odd value (boundary, wrong, huge) instead of a
	// typical one; each call draws it, so some calls are clean, some have one odd argument and
	// some are wild throughout.
	wild  float64
	oddAt int // the index of the one argument forced odd, or -1
	// pairs are the (job id, lease token) pairs the parallel arrays of this call share.
	pairs []running
	// arrayLen is the length the parallel arrays of this call share.
	arrayLen int
	// store tells whether this call's typical task, store id and payload are a store task's
	// (store A) or a system task's, so that typical calls agree with themselves and get accepted.
	store bool
}

func s(v string) *string { return &v }

func (g *gen) pick(vs ...string) *string { return s(vs[g.rng.IntN(len(vs))]) }

func (g *gen) chance(p float64) bool { return g.rng.Float64() < p }

// valueGen is a typical and an odd way of drawing one value.
type valueGen struct {
	typical func(g *gen) *string
	odd     func(g *gen) *string
}

// draw draws a value of vg, odd with the call's probability (always for the forced argument).
func (g *gen) draw(vg valueGen, forced bool) *string {
	if forced || g.chance(g.wild) {
		return vg.odd(g)
	}
	return vg.typical(g)
}

// ---- strings --------------------------------------------------------------------------------

// oddText is any text a careless or hostile caller might send.
func oddText(g *gen) *string {
	switch g.rng.IntN(14) {
	case 0:
		return nil
	case 1:
		return s("")
	case 2:
		// Blank: spaces only (the engine's blank), and other whitespace alone.
		return g.pick("   ", " ", "\t", " \t\n ", "\r\n", "\u00a0", "\u3000", "\u2028")
	case 3:
		return s(strings.Repeat("k", 1024))
	case 4:
		return s(strings.Repeat("k", 3000))
	case 5:
		return s(strings.Repeat("ж", 1500)) // 3,000 bytes of two-byte characters
	case 6:
		if g.chance(0.3) {
			return s(strings.Repeat("x", 100*1024))
		}
		return s(strings.Repeat("y", 8200))
	case 7:
		return g.pick("héllo wörld", "日本語のキュー", "🚀🔥", "مرحبا", "e\u0301", "\u200b", "ǅ")
	case 8:
		return g.pick(`'; DROP TABLE jobq.jobs; --`, `%s %L %I`, `\`, `"quoted"`, `{storeId}`, "tab\there", "line\nbreak")
	case 9:
		return g.pick("default", "fuzz-q", "fuzz-sys", "fuzz-store")
	case 10:
		return s(fmt.Sprintf("Mixed Case %d", g.rng.IntN(100)))
	case 11:
		return g.pick("\x01\x02", "NULL", "null", "*", "-", "a--b", "A")
	case 12:
		return s(strings.Repeat("abc ", 300))
	default:
		return s(fmt.Sprintf("t%d", g.rng.IntN(1000)))
	}
}

var textGen = valueGen{
	typical: func(g *gen) *string { return s(fmt.Sprintf("v%d", g.rng.IntN(50))) },
	odd:     oddText,
}

// ---- numbers and booleans -------------------------------------------------------------------

func oddInt(g *gen) *string {
	return g.pick("0", "-1", "1", "2147483647", "-2147483648", "32767", "32768", "-32768", "-32769", "10000", "10001",
		"1000000", "100", "7")
}

var intGen = valueGen{
	typical: func(g *gen) *string { return s(fmt.Sprint(1 + g.rng.IntN(5))) },
	odd: func(g *gen) *string {
		if g.chance(0.1) {
			return nil
		}
		return oddInt(g)
	},
}

var bigintGen = valueGen{
	typical: func(g *gen) *string { return s(fmt.Sprint(1 + g.rng.IntN(20))) },
	odd: func(g *gen) *string {
		if g.chance(0.1) {
			return nil
		}
		return g.pick("0", "-1", "9223372036854775807", "-9223372036854775808", "2147483648")
	},
}

var boolGen = valueGen{
	typical: func(g *gen) *string { return g.pick("true", "false") },
	odd:     func(g *gen) *string { return nil },
}

// ---- time -----------------------------------------------------------------------------------

// oddIntervals are the intervals at and beyond every sensible domain, PostgreSQL's limits included.
var oddIntervals = []string{"0", "-1 second", "-1 microsecond", "1 microsecond", "1000000 years", "-1000000 years",
	"178000000 years", "-178000000 years", "100 years", "10000 years", "1 mon", "-2147483648 days", "2147483647 days",
	"2147483647 hours", "1 day -1 second", "-1 mon 1 day", "1 second"}

var intervalGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.3) {
			return nil
		}
		return g.pick("30 seconds", "1 second", "5 minutes", "2 seconds", "1 hour", "1 microsecond", "10 milliseconds")
	},
	odd: func(g *gen) *string {
		if g.chance(0.1) {
			return nil
		}
		return g.pick(oddIntervals...)
	},
}

func (g *gen) at(d time.Duration) *string { return s(g.now.Add(d).UTC().Format(time.RFC3339Nano)) }

var timestampGen = valueGen{
	typical: func(g *gen) *string {
		switch g.rng.IntN(4) {
		case 0:
			return nil
		case 1:
			return g.at(-time.Duration(g.rng.IntN(3600)) * time.Second)
		case 2:
			return g.at(time.Duration(g.rng.IntN(7200)) * time.Second)
		default:
			return g.at(0)
		}
	},
	odd: func(g *gen) *string {
		return g.pick("infinity", "-infinity", "294276-12-31 23:59:59.999999+00", "4713-01-01 00:00:00+00 BC",
			"1970-01-01 00:00:00+00", "2100-01-01 00:00:00+00", "0001-01-01 00:00:00+00", "2026-11-01 05:30:00+00",
			"2026-03-08 07:30:00+00", "2026-10-25 01:30:00+00", "10000-01-01 00:00:00+00", "200000-06-15 12:00:00+00")
	},
}

// ---- JSON -----------------------------------------------------------------------------------

func deep(depth int) string {
	return strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
}

// oddJSON is JSON of every wrong shape: arrays, scalars, null, deep nesting, huge, mistyped keys.
func oddJSON(g *gen) *string {
	switch g.rng.IntN(12) {
	case 0:
		return nil
	case 1:
		return g.pick(`[]`, `[1, 2]`, `[{}]`)
	case 2:
		return g.pick(`1`, `"s"`, `null`, `true`, `-0.5e300`)
	case 3:
		return s(deep(100 + g.rng.IntN(900)))
	case 4:
		return s(fmt.Sprintf(`{"blob": %q}`, strings.Repeat("b", 100*1024)))
	case 5:
		return s(`{"ключ": "значение", "🔑": "🚀"}`)
	case 6:
		return g.pick(`{"storeId": "not-a-uuid"}`, `{"storeId": "`+storeB+`"}`, `{"storeId": null}`, `{"storeId": 5}`)
	case 7:
		if g.chance(0.5) {
			// Calendar values of calendarTask's contract: days and times that are no calendar's
			// (mustRefuse requires their refusal), and true ones at its edges.
			return g.pick(calendarInvalid...)
		}
		return g.pick(`{"n": "x"}`, `{"n": 1.5}`, `{"n": 99999999999999999999}`, `{"at": "soon", "n": 1}`, `{"at": "infinity", "n": 1}`,
			`{"n": 1, "d": "2024-02-29"}`, `{"n": 1, "at": "2000-02-29T23:59:59.999999-23:59"}`, `{"n": 1, "d": "9999-12-31"}`)
	case 8:
		return s(`{"` + strings.Repeat("k", 3000) + `": 1}`)
	case 9:
		var b strings.Builder
		b.WriteString("{")
		for i := range 2000 {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"k%d": %d`, i, i)
		}
		b.WriteString("}")
		return s(b.String())
	case 10:
		return s(`{"a": [` + strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200) + `]}`)
	default:
		return s(`{}`)
	}
}

// calendarTask is a system task of the world with the contract {"n": "integer", "at?":
// "timestamp", "d?": "date"} that no call redeclares (definedTaskGen leaves it out), so that an
// enqueue of it with a payload of calendarInvalid must be refused (mustRefuse).
const calendarTask = "fuzz-calendar"

// definedTaskGen is taskGen for jobq.define_task's name: every task but calendarTask.
var definedTaskGen = valueGen{
	typical: func(g *gen) *string {
		for {
			if v := taskGen.typical(g); v == nil || *v != calendarTask {
				return v
			}
		}
	},
	odd: taskGen.odd,
}

// calendarInvalid are payloads of calendarTask whose date or timestamp has the right shape and
// is no calendar value.
var calendarInvalid = []string{
	`{"n": 1, "d": "2026-02-29"}`, `{"n": 1, "d": "2026-13-45"}`, `{"n": 1, "d": "1900-02-29"}`, `{"n": 1, "d": "0000-01-01"}`,
	`{"n": 1, "d": "2026-04-31"}`, `{"n": 1, "at": "2026-05-01T25:61"}`, `{"n": 1, "at": "2026-05-01T24:00:00Z"}`,
	`{"n": 1, "at": "2026-02-30T10:00:00Z"}`, `{"n": 1, "at": "2026-05-01T10:00:00+24:00"}`,
}

var jsonGen = valueGen{
	typical: func(g *gen) *string {
		if g.store {
			return g.pick(`{"storeId": "`+storeA+`"}`, `{"storeId": "`+storeA+`", "n": 3}`)
		}
		if g.chance(0.3) {
			// calendarTask's dates and times that are no calendar value (mustRefuse).
			return g.pick(calendarInvalid...)
		}
		return g.pick(`{"n": 1}`, `{"n": 2, "at": "2026-01-01T00:00:00Z"}`, `{"n": 3, "d": "2024-02-29"}`)
	},
	odd: oddJSON,
}

// ---- uuids ----------------------------------------------------------------------------------

var uuidGen = valueGen{
	typical: func(g *gen) *string {
		if !g.store || g.chance(0.3) {
			return nil
		}
		return s(storeA)
	},
	odd: func(g *gen) *string {
		return g.pick(storeB, "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
			fmt.Sprintf("%08x-0000-4000-8000-%012x", g.rng.Uint32(), g.rng.Uint64()&0xffffffffffff))
	},
}

// ---- composite: jobq.cron_fields ------------------------------------------------------------

var cronFieldsGen = valueGen{
	typical: func(g *gen) *string {
		return g.pick(`("{0,30}","{0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23}","{1}","{1,2,3,4,5,6,7,8,9,10,11,12}","{0,1,2,3,4,5,6}",f,t)`,
			`("{0}","{3}","{29}","{2}","{0}",f,f)`, `("{15}","{1}","{31}","{1,3,5,7,8,10,12}","{1}",f,f)`)
	},
	odd: func(g *gen) *string {
		return g.pick(`("{}","{}","{}","{}","{}",f,f)`, `("{99}","{99}","{99}","{99}","{99}",t,t)`, `("{-1}","{0}","{1}","{1}","{0}",t,t)`,
			`(,,,,,,)`, `("{0}","{0}","{31}","{2}","{0}",f,t)`, `("{0}","{0}","{30}","{2}","{6}",f,f)`, `("{NULL}","{0}","{1}","{1}","{0}",t,t)`)
	},
}

// typeGens are the generators of each SQL type an argument may have.
var typeGens = map[string]valueGen{
	"text":                     textGen,
	"integer":                  intGen,
	"bigint":                   bigintGen,
	"boolean":                  boolGen,
	"interval":                 intervalGen,
	"timestamp with time zone": timestampGen,
	"jsonb":                    jsonGen,
	"uuid":                     uuidGen,
	"jobq.cron_fields":         cronFieldsGen,
}

// ---- arrays ---------------------------------------------------------------------------------

// arrayLiteral writes elems as a PostgreSQL array literal; nil elements are NULL.
func arrayLiteral(elems []*string) *string {
	var b strings.Builder
	b.WriteString("{")
	for i, e := range elems {
		if i > 0 {
			b.WriteString(",")
		}
		if e == nil {
			b.WriteString("NULL")
			continue
		}
		b.WriteString(`"`)
		b.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(*e))
		b.WriteString(`"`)
	}
	b.WriteString("}")
	return s(b.String())
}

// arrayOf makes the generator of arrays of elem's values. Typical arrays have n elements (n from
// the call, so parallel arrays agree); odd ones are NULL, empty, mismatched in length, hold NULL
// elements or are long.
func arrayOf(elem valueGen, n func(g *gen) int) valueGen {
	return valueGen{
		typical: func(g *gen) *string {
			k := n(g)
			out := make([]*string, k)
			for i := range out {
				out[i] = elem.typical(g)
			}
			return arrayLiteral(out)
		},
		odd: func(g *gen) *string {
			switch g.rng.IntN(6) {
			case 0:
				return nil
			case 1:
				return s("{}")
			case 2: // a length the other arrays do not have
				k := n(g) + 1 + g.rng.IntN(2)
				out := make([]*string, k)
				for i := range out {
					out[i] = elem.typical(g)
				}
				return arrayLiteral(out)
			case 3:
				out := make([]*string, n(g))
				for i := range out {
					if g.chance(0.5) {
						out[i] = elem.typical(g)
					}
				}
				if len(out) == 0 {
					out = append(out, nil)
				}
				return arrayLiteral(out)
			case 4:
				out := make([]*string, 1000+g.rng.IntN(2))
				for i := range out {
					out[i] = elem.typical(g)
				}
				return arrayLiteral(out)
			default:
				out := make([]*string, n(g))
				for i := range out {
					out[i] = elem.odd(g)
				}
				return arrayLiteral(out)
			}
		},
	}
}

func randomLen(g *gen) int { return g.rng.IntN(4) }
func sharedLen(g *gen) int { return g.arrayLen }

// ---- values of real rows --------------------------------------------------------------------

// jobIDGen draws ids of real jobs of every class and state: live, dead, finished, running, of
// store A, store B and system, and ids no job has.
var jobIDGen = valueGen{
	typical: func(g *gen) *string {
		var from []int64
		switch g.rng.IntN(4) {
		case 0:
			from = g.pools.Live["A"]
		case 1:
			from = g.pools.Dead["A"]
		case 2:
			from = g.pools.Done["A"]
		default:
			for _, r := range g.pools.Running {
				from = append(from, r.ID)
			}
		}
		if len(from) == 0 {
			return s(fmt.Sprint(1 + g.rng.Int64N(g.pools.MaxID+1)))
		}
		return s(fmt.Sprint(from[g.rng.IntN(len(from))]))
	},
	odd: func(g *gen) *string {
		class := []string{"system", "B", "A"}[g.rng.IntN(3)]
		var from []int64
		switch g.rng.IntN(4) {
		case 0:
			from = g.pools.Live[class]
		case 1:
			from = g.pools.Dead[class]
		case 2:
			from = g.pools.Done[class]
		default:
			return g.pick("0", "-1", "9223372036854775807", fmt.Sprint(g.pools.MaxID+1000))
		}
		if len(from) == 0 {
			return nil
		}
		return s(fmt.Sprint(from[g.rng.IntN(len(from))]))
	},
}

// pairAt returns the i-th (job id, lease token) pair of the call, a random one past the end.
func (g *gen) pairAt(i int) running {
	if i < len(g.pairs) {
		return g.pairs[i]
	}
	return running{ID: 1 + g.rng.Int64N(g.pools.MaxID+1), Token: randomUUID(g)}
}

func randomUUID(g *gen) string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", g.rng.Uint32(), g.rng.Uint32()&0xffff, g.rng.Uint32()&0xfff,
		g.rng.Uint32()&0xfff, g.rng.Uint64()&0xffffffffffff)
}

// pairIDs and pairTokens are the parallel arrays (job_ids, lease_tokens) of the call's pairs.
var pairIDs = valueGen{
	typical: func(g *gen) *string {
		out := make([]*string, g.arrayLen)
		for i := range out {
			out[i] = s(fmt.Sprint(g.pairAt(i).ID))
		}
		return arrayLiteral(out)
	},
	odd: arrayOf(jobIDGen, sharedLen).odd,
}

var pairTokens = valueGen{
	typical: func(g *gen) *string {
		out := make([]*string, g.arrayLen)
		for i := range out {
			out[i] = s(g.pairAt(i).Token)
		}
		return arrayLiteral(out)
	},
	odd: arrayOf(valueGen{typical: func(g *gen) *string { return s(randomUUID(g)) }, odd: uuidGen.odd}, sharedLen).odd,
}

var pairID = valueGen{
	typical: func(g *gen) *string { return s(fmt.Sprint(g.pairAt(0).ID)) },
	odd:     jobIDGen.odd,
}

var pairToken = valueGen{
	typical: func(g *gen) *string { return s(g.pairAt(0).Token) },
	odd: func(g *gen) *string {
		if g.chance(0.2) {
			return nil
		}
		return s(randomUUID(g))
	},
}

// workerIDGen draws a worker id: typically the worker holding this call's leases or a registered
// one; odd, often a NULL or blank id (which every function but the unfenced maintain must refuse:
// mustRefuse) or one a single space away from a real one, else any text.
var workerIDGen = valueGen{
	typical: func(g *gen) *string {
		if len(g.pairs) > 0 && g.pairs[0].Worker != controlWorker && g.chance(0.5) {
			return s(g.pairs[0].Worker)
		}
		if len(g.pools.Workers) > 0 && g.chance(0.5) {
			return g.pick(g.pools.Workers...)
		}
		return g.pick("fuzz-worker-1", "fuzz-worker-2", "fuzz-worker-3")
	},
	odd: func(g *gen) *string {
		switch {
		case g.chance(0.3):
			if g.chance(0.25) {
				return nil
			}
			return g.pick("", " ", "   ", "\t", " \t ")
		case g.chance(0.15) && len(g.pools.Workers) > 0:
			w := *g.pick(g.pools.Workers...)
			return g.pick(w+" ", " "+w, strings.ToUpper(w))
		default:
			return oddText(g)
		}
	},
}

var queueGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.3) {
			return nil
		}
		return g.pick(controlQueues...)
	},
	odd: oddText,
}

var queuesGen = valueGen{
	typical: func(g *gen) *string {
		return g.pick(`{default}`, `{fuzz-q}`, `{default,fuzz-q}`, `{fuzz-q,default,other}`)
	},
	odd: arrayOf(queueGen, randomLen).odd,
}

// claimTasksGen draws the tasks a claim serves (claim_job, claim_passed_over): usually NULL (every
// task, as the runner's claims pass today) or lists of the world's tasks, and the odd arrays.
var claimTasksGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.5) {
			return nil
		}
		return g.pick(`{fuzz-sys}`, `{fuzz-sys,fuzz-sys-typed}`, `{fuzz-store,fuzz-store-typed,fuzz-control}`, `{fuzz-calendar,nope}`)
	},
	odd: arrayOf(taskGen, randomLen).odd,
}

// registerTasksGen draws the tasks a worker registers as serving (jobq.register_worker): NULL
// (every task, a runner before issue 30), none ({}: a runner without handlers), or lists of the
// world's tasks; the odd arrays of claims.
var registerTasksGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.25) {
			return g.pick(`{}`)
		}
		return claimTasksGen.typical(g)
	},
	odd: claimTasksGen.odd,
}

// handlerGen draws a handler name (jobq.set_task_handler): NULL (back to the task's own name),
// names a worker's file would define, or a task's own name; anything else when odd.
var handlerGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.25) {
			return nil
		}
		return g.pick("mailer", "fuzz-handler", "fuzz-sys", "resize.v2", "Send Mail")
	},
	odd: oddText,
}

// handlersGen draws the handler names a worker's file defines (jobq.served_tasks): lists of
// handlerGen's names and task names; the odd arrays (NULL, empty, NULLs, blanks, long names).
var handlersGen = valueGen{
	typical: func(g *gen) *string {
		return g.pick(`{mailer}`, `{fuzz-sys,fuzz-store}`, `{fuzz-handler,fuzz-sys-typed,nope}`, `{"Send Mail"}`)
	},
	odd: arrayOf(handlerGen, randomLen).odd,
}

// pausedQueueGen draws the queue jobq.pause_queue pauses: never one of the control queues, whose
// claim the health check needs (a paused control queue would be the fuzzer's own doing, not a
// bug); jobq.resume_queue takes queueGen, so it resumes them and the others.
var pausedQueueGen = valueGen{
	typical: func(g *gen) *string { return g.pick("fuzz-paused", "fuzz-paused-2", "fuzz-q-paused") },
	odd: func(g *gen) *string {
		for {
			v := oddText(g)
			if v == nil || !slices.Contains(controlQueues, *v) {
				return v
			}
		}
	},
}

var taskGen = valueGen{
	typical: func(g *gen) *string {
		if g.store {
			return g.pick("fuzz-store", "fuzz-store-typed")
		}
		return g.pick("fuzz-sys", "fuzz-sys-typed", calendarTask)
	},
	odd: func(g *gen) *string {
		if g.chance(0.5) {
			return g.pick("nope", "Fuzz-Sys", " fuzz-sys ", "fuzz-sys\n", "fuzz-store-typed")
		}
		return oddText(g)
	},
}

// slotKey is the job key of the fuzz-cron schedule's slot k minutes from now.
func (g *gen) slotKey(k int) string {
	return "schedule:fuzz-cron:" + g.now.Truncate(time.Minute).Add(time.Duration(k)*time.Minute).UTC().Format("2006-01-02T15:04:05Z")
}

var jobKeyGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.5) {
			return nil
		}
		if keys := g.pools.Keys["A"]; len(keys) > 0 && g.chance(0.5) {
			return g.pick(keys...)
		}
		return s(fmt.Sprintf("k%d", g.rng.IntN(20)))
	},
	odd: func(g *gen) *string {
		switch g.rng.IntN(4) {
		case 0:
			if keys := append(append([]string{}, g.pools.Keys["system"]...), g.pools.Keys["B"]...); len(keys) > 0 {
				return g.pick(keys...)
			}
			return s("sys-key")
		case 1:
			return s(g.slotKey(g.rng.IntN(5) - 2))
		case 2:
			return g.pick("sys-key", "sys-due", "sys-done", "b-key")
		default:
			return oddText(g)
		}
	},
}

var jobKeyModeGen = valueGen{
	typical: func(g *gen) *string { return g.pick("replace", "preserve_run_at", "unsafe_dedupe") },
	odd: func(g *gen) *string {
		if g.chance(0.3) {
			return nil
		}
		return g.pick("REPLACE", "dedupe", "", "replace ")
	},
}

var keyTemplateGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.3) {
			return nil
		}
		return g.pick("fan:{storeId}", "x-{storeId}-y")
	},
	odd: func(g *gen) *string {
		switch g.rng.IntN(3) {
		case 0:
			return s(strings.Repeat("t", 3000) + "{storeId}")
		case 1:
			return g.pick("no-placeholder", "{storeId}{storeId}", "sys-key", "schedule:fuzz-cron:{storeId}")
		default:
			return oddText(g)
		}
	},
}

var storeIDsGen = valueGen{
	typical: func(g *gen) *string { return g.pick(`{`+storeA+`}`, `{`+storeA+`,`+storeB+`}`) },
	odd:     arrayOf(uuidGen, randomLen).odd,
}

var timezoneGen = valueGen{
	typical: func(g *gen) *string {
		return g.pick("UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe", "Europe/Paris")
	},
	odd: func(g *gen) *string {
		if g.chance(0.5) {
			return g.pick("Mars/Base", "+05", "EST5EDT", "utc", "Etc/GMT+12", "Pacific/Kiritimati", "posix/America/New_York", "-14:00", "localtime")
		}
		return oddText(g)
	},
}

var cronGen = valueGen{
	typical: func(g *gen) *string {
		return g.pick("* * * * *", "0 * * * *", "*/15 * * * *", "0 0 * * *", "@hourly", "@daily", "30 2 * * 0", "0 9 1 * *")
	},
	odd: func(g *gen) *string {
		if g.chance(0.6) {
			return g.pick("*/01 * * * *", "0 0 29 2 *", "0 0 31 4 *", "0 0 30 2 *", "@bogus", "* * * *", "* * * * * *",
				"60 * * * *", "*/0 * * * *", "1-59/0 * * * *", "0 0 * * 7", "5-1 * * * *", "0 0 31 2 1", "L * * * *",
				"0 0 1 1 *", "59 23 31 12 *", "0-59 0-23 1-31 1-12 0-7", "*/2147483647 * * * *", "99999999999 * * * *")
		}
		return oddText(g)
	},
}

var cronFieldTextGen = valueGen{
	typical: func(g *gen) *string { return g.pick("*", "*/5", "1-10", "1,2,3", "0", "MON-FRI", "JAN") },
	odd: func(g *gen) *string {
		if g.chance(0.6) {
			return g.pick("*/0", "*/01", "-1", "99999999999", "1-", "a-b", ",", "*/2147483647", "2147483647-1")
		}
		return oddText(g)
	},
}

var scheduleNameGen = valueGen{
	typical: func(g *gen) *string {
		if len(g.pools.Schedules) > 0 && g.chance(0.5) {
			return g.pick(g.pools.Schedules...)
		}
		return g.pick("fuzz-cron-2", "fuzz-cron-3")
	},
	odd: oddText,
}

var settingNames = []string{"history_retention", "backoff_base", "backoff_max", "default_max_attempts", "default_lease",
	"worker_heartbeat_interval", "worker_timeout", "leader_ttl", "maintain_interval", "poll_interval", "wakeup", "doorbell"}

var settingNameGen = valueGen{
	typical: func(g *gen) *string { return g.pick(settingNames...) },
	odd:     oddText,
}

// settingValueGen draws a value for any setting: intervals, integers, wake-up modes.
var settingValueGen = valueGen{
	typical: func(g *gen) *string {
		return g.pick("1 second", "30 seconds", "7 days", "1 hour", "25", "3", "notify", "both", "true", "false")
	},
	odd: func(g *gen) *string {
		if g.chance(0.5) {
			return g.pick(oddIntervals...)
		}
		return g.pick("2147483647", "0", "-1", "wal", "true", "99999999999", "1e10", "")
	},
}

var schemaGen = valueGen{
	typical: func(g *gen) *string {
		return g.pick(`{}`, `{"n": "integer"}`, `{"storeId": "uuid", "n?": "integer"}`, `{"at?": "timestamp", "d?": "date"}`)
	},
	odd: func(g *gen) *string {
		if g.chance(0.5) {
			return g.pick(`{"n": "int"}`, `{"?": "any"}`, `{"n": 1}`, `{"n": ["integer"]}`, `{"a": "string", "a?": "number"}`)
		}
		return oddJSON(g)
	},
}

var errorCodeGen = valueGen{
	typical: func(g *gen) *string {
		return g.pick("JOB.INVALID_ARGUMENT", "JOB.NOT_FOUND", "JOB.LEASE_LOST", "JOB.UNKNOWN_TASK", "JOB.INVALID_CRON")
	},
	odd: func(g *gen) *string {
		if g.chance(0.5) {
			return g.pick("JOB.NOPE", "P0001", "", "job.invalid_argument")
		}
		return oddText(g)
	},
}

var jsonTypeGen = valueGen{
	typical: func(g *gen) *string {
		return g.pick("string", "number", "integer", "boolean", "object", "array", "uuid", "date", "timestamp", "any")
	},
	odd: oddText,
}

var cronNamesGen = valueGen{
	typical: func(g *gen) *string {
		return g.pick(`{JAN,FEB,MAR,APR,MAY,JUN,JUL,AUG,SEP,OCT,NOV,DEC}`, `{SUN,MON,TUE,WED,THU,FRI,SAT}`)
	},
	odd: arrayOf(textGen, randomLen).odd,
}

var cronBoundGen = valueGen{
	typical: func(g *gen) *string { return g.pick("0", "1", "6", "12", "23", "31", "59") },
	odd:     oddInt,
}

var epochGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.5) {
			return nil
		}
		return s(fmt.Sprint(g.pools.Epoch))
	},
	odd: bigintGen.odd,
}

var smallCountGen = valueGen{
	typical: func(g *gen) *string { return s(fmt.Sprint(1 + g.rng.IntN(10))) },
	odd:     intGen.odd,
}

var priorityGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.5) {
			return nil
		}
		return s(fmt.Sprint(g.rng.IntN(11) - 5))
	},
	odd: intGen.odd,
}

var retryInGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.5) {
			return nil
		}
		return g.pick("1 second", "0", "1 microsecond", "10 seconds")
	},
	odd: intervalGen.odd,
}

// uniqueForGen is enqueue's unique_for: usually off (NULL), else a window of a second to the
// limit of 365 days; odd intervals (zero, negative, huge) when odd.
var uniqueForGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.6) {
			return nil
		}
		return g.pick("1 hour", "1 second", "1 day", "365 days", "00:00:00.5")
	},
	odd: intervalGen.odd,
}

// dependsOnGen is enqueue's depends_on: usually none (NULL), else one to three jobs of the
// pools (live, dead or finished: some of another store or of the system, refused); odd arrays
// hold unknown, negative or NULL ids, or more than the limit of 10,000.
var dependsOnGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.9) {
			return nil
		}
		n := 1 + g.rng.IntN(3)
		elems := make([]*string, n)
		for i := range elems {
			elems[i] = jobIDGen.typical(g)
		}
		return arrayLiteral(elems)
	},
	odd: func(g *gen) *string {
		switch g.rng.IntN(3) {
		case 0:
			return g.pick(`{}`, `{NULL}`, `{-1}`, `{0}`, `{9223372036854775807}`, `{999999999,1}`)
		case 1:
			ids := make([]string, 10001)
			for i := range ids {
				ids[i] = fmt.Sprint(i + 1)
			}
			return s("{" + strings.Join(ids, ",") + "}")
		default:
			return arrayOf(bigintGen, randomLen).odd(g)
		}
	},
}

// sequenceKeyGen is enqueue's sequence_key: usually none, else one of a few keys (so that jobs
// queue behind each other); blank, huge or odd text when odd.
var sequenceKeyGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.9) {
			return nil
		}
		return g.pick("fuzz-seq-a", "fuzz-seq-b", "account:42")
	},
	odd: func(g *gen) *string {
		if g.chance(0.3) {
			return g.pick("", "   ", strings.Repeat("k", 501))
		}
		return oddText(g)
	},
}

// optionalEnumGen draws NULL (the default) most of the time, else one of words; anything when odd.
func optionalEnumGen(words ...string) valueGen {
	return valueGen{typical: func(g *gen) *string {
		if g.chance(0.9) {
			return nil
		}
		return g.pick(words...)
	}, odd: oddText}
}

// enqueueManyGen draws the JSON array of jobq.enqueue_many: job objects whose fields take the
// same typical and odd values as jobq.enqueue's arguments, and arrays of wrong shapes.
var enqueueManyGen = valueGen{
	typical: func(g *gen) *string { return s(g.jobsArray(1+g.rng.IntN(4), 0)) },
	odd: func(g *gen) *string {
		switch g.rng.IntN(6) {
		case 0:
			return oddJSON(g)
		case 1:
			return g.pick(`[1]`, `[null]`, `[{"task": "fuzz-sys", "bogus": 1}]`, `[{"task": "fuzz-sys", "run_at": "soon"}]`,
				`[{"task": "fuzz-sys", "priority": 1e10}]`, `[{"task": "fuzz-sys", "timeout": "1000000 years"}]`,
				`[{"task": "fuzz-sys", "run_at": "-infinity"}]`, `[{"task": "fuzz-sys", "max_attempts": "x"}]`,
				`[{"task": "fuzz-sys", "unique_for": "1 hour"}]`, `[{"task": "fuzz-sys", "job_key": "k", "unique_for": "soon"}]`,
				`[{"task": "fuzz-sys", "job_key": "k", "unique_for": "1 hour"}, {"task": "fuzz-sys", "job_key": "k"}]`,
				`[{"task": "fuzz-sys", "ref": "a"}, {"task": "fuzz-sys", "depends_on_refs": ["a"]}]`,
				`[{"task": "fuzz-sys", "ref": "a", "depends_on_refs": ["a"]}]`, `[{"task": "fuzz-sys", "depends_on_refs": ["b"]}, {"task": "fuzz-sys", "ref": "b"}]`,
				`[{"task": "fuzz-sys", "ref": 1}]`, `[{"task": "fuzz-sys", "ref": "a"}, {"task": "fuzz-sys", "ref": "a"}]`,
				`[{"task": "fuzz-sys", "depends_on_refs": "a"}]`, `[{"task": "fuzz-sys", "depends_on": [1, null]}]`,
				`[{"task": "fuzz-sys", "depends_on": "1"}]`, `[{"task": "fuzz-sys", "sequence_key": 7, "on_sequence_failure": "maybe"}]`,
				`[{"task": "fuzz-sys", "job_key": "k", "sequence_key": "s"}]`)
		case 2:
			return s(g.jobsArray(500+g.rng.IntN(600), 0))
		default:
			return s(g.jobsArray(1+g.rng.IntN(4), 0.4))
		}
	},
}

// dependsOnJSONGen is an enqueue_many element's depends_on: dependsOnGen's ids as a JSON array.
var dependsOnJSONGen = valueGen{
	typical: func(g *gen) *string {
		v := dependsOnGen.typical(g)
		if v == nil {
			return nil
		}
		return s("[" + strings.NewReplacer(`"`, "", "{", "", "}", "", "NULL", "null").Replace(*v) + "]")
	},
	odd: func(g *gen) *string {
		return g.pick(`[]`, `[null]`, `[-1]`, `["x"]`, `{"a": 1}`, `[1.5]`, `[99999999999999999999]`)
	},
}

// jobsArray writes n job objects; each field is odd with probability wild.
func (g *gen) jobsArray(n int, wild float64) string {
	fields := []struct {
		name string
		vg   valueGen
		kind string // how the value is written in JSON: string, number, json
	}{
		{"task", taskGen, "string"}, {"payload", jsonGen, "json"}, {"queue", queueGen, "string"},
		{"run_at", timestampGen, "string"}, {"priority", priorityGen, "number"}, {"max_attempts", smallCountGen, "number"},
		{"job_key", jobKeyGen, "string"}, {"job_key_mode", jobKeyModeGen, "string"}, {"store_id", uuidGen, "string"},
		{"timeout", intervalGen, "string"}, {"backoff_base", intervalGen, "string"}, {"backoff_max", intervalGen, "string"},
		{"unique_for", uniqueForGen, "string"}, {"depends_on", dependsOnJSONGen, "json"},
		{"on_parent_failure", optionalEnumGen("cancel", "run"), "string"}, {"sequence_key", sequenceKeyGen, "string"},
		{"on_sequence_failure", optionalEnumGen("hold", "continue"), "string"},
	}
	jobs := make([]string, n)
	for i := range jobs {
		var parts []string
		for _, f := range fields {
			var v *string
			if g.chance(wild) {
				v = f.vg.odd(g)
			} else {
				v = f.vg.typical(g)
			}
			if v == nil && f.name != "task" {
				continue
			}
			var enc string
			switch {
			case v == nil:
				enc = "null"
			case f.kind == "json":
				if !json.Valid([]byte(*v)) {
					continue
				}
				enc = *v
			case f.kind == "number":
				enc = *v
			default:
				b, _ := json.Marshal(*v)
				enc = string(b)
			}
			parts = append(parts, fmt.Sprintf("%q: %s", f.name, enc))
		}
		jobs[i] = "{" + strings.Join(parts, ", ") + "}"
	}
	return "[" + strings.Join(jobs, ", ") + "]"
}

// kindGens are the generators of arguments by name (without the p_ prefix) and type, where the
// type alone would rarely hit a real row or a meaningful value. Arguments the map lacks take their
// type's generator.
var kindGens = map[string]valueGen{
	"job_id bigint": jobIDGen, "worker_id text": workerIDGen, "queue text": queueGen, "queues text[]": queuesGen,
	"task text": taskGen, "child_task text": taskGen, "job_key text": jobKeyGen, "job_key_mode text": jobKeyModeGen,
	"job_key_template text": keyTemplateGen, "store_ids uuid[]": storeIDsGen, "timezone text": timezoneGen,
	"expr text": cronGen, "cron text": cronGen, "field text": cronFieldTextGen, "text text": cronFieldTextGen,
	"payload_schema jsonb": schemaGen, "schema jsonb": schemaGen, "jobs jsonb": enqueueManyGen,
	"value text": settingValueGen, "code text": errorCodeGen, "error_code text": errorCodeGen, "type text": jsonTypeGen,
	"names text[]": cronNamesGen, "lo integer": cronBoundGen, "hi integer": cronBoundGen, "epoch bigint": epochGen,
	"max_jobs integer": smallCountGen, "batch_size integer": smallCountGen, "max_attempts integer": smallCountGen,
	"max_slots integer": smallCountGen, "concurrency integer": smallCountGen, "priority integer": priorityGen,
	"retry_in interval": retryInGen, "scope text": enumGen("system", "store"),
	"concurrency_policy text": enumGen("allow", "forbid", "replace"), "backfill text": enumGen("all", "latest"),
	"slot_key text": enumGen("slotAt", "at"), "backfill_window interval": positiveIntervalGen, "jitter interval": positiveIntervalGen,
	"lease interval": positiveIntervalGen, "ttl interval": positiveIntervalGen, "unique_for interval": uniqueForGen,
	"batch_id bigint": batchIDGen, "on_success jsonb": callbackGen, "on_complete jsonb": callbackGen,
	"on_discard jsonb":    callbackGen,
	"depends_on bigint[]": dependsOnGen, "on_parent_failure text": optionalEnumGen("cancel", "run"),
	"sequence_key text": sequenceKeyGen, "on_sequence_failure text": optionalEnumGen("hold", "continue"),
}

// batchIDGen draws the id of a real batch (the fixture's, open or settled, and those fuzzed
// create_batch calls made): mostly of the class this call's tasks are (store A or the system), so
// that typical calls reach it, else of any class (store B's among them); any bigint when odd.
var batchIDGen = valueGen{
	typical: func(g *gen) *string {
		class := []string{"system", "A", "B"}[g.rng.IntN(3)]
		if g.chance(0.7) {
			class = map[bool]string{true: "A", false: "system"}[g.store]
		}
		from := g.pools.Batches[class]
		if len(from) == 0 {
			return s(fmt.Sprint(1 + g.rng.IntN(6)))
		}
		return s(fmt.Sprint(from[g.rng.IntN(len(from))]))
	},
	odd: bigintGen.odd,
}

// callbackGen draws a batch callback: NULL (none) or a job spec of a task the fuzzer declares,
// sometimes with a payload or queue; odd, any JSON (arrays, scalars, unknown fields and tasks).
var callbackGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.4) {
			return nil
		}
		task, _ := json.Marshal(*taskGen.typical(g))
		if g.chance(0.3) {
			return s(fmt.Sprintf(`{"task": %s, "payload": {"n": %d}, "queue": "other"}`, task, g.rng.IntN(100)))
		}
		return s(fmt.Sprintf(`{"task": %s}`, task))
	},
	odd: jsonGen.odd,
}

// enumGen draws one of a text argument's allowed words, or anything else when odd.
func enumGen(words ...string) valueGen {
	return valueGen{typical: func(g *gen) *string { return g.pick(words...) }, odd: oddText}
}

// positiveIntervalGen is for intervals that have no NULL default meaning: typically positive.
var positiveIntervalGen = valueGen{
	typical: func(g *gen) *string { return g.pick("30 seconds", "1 second", "5 minutes", "1 hour", "1 microsecond") },
	odd:     intervalGen.odd,
}

// parallelGens are the generators of the functions that take a job and its lease token, or
// parallel arrays of them (by name and type): ids and tokens come as real pairs of running jobs,
// and the arrays of one call share a length unless one is drawn odd.
var parallelGens = map[string]valueGen{
	"job_ids bigint[]": pairIDs, "lease_tokens uuid[]": pairTokens, "lease_token uuid": pairToken,
	"errors text[]":        arrayOf(textGen, sharedLen),
	"error_codes text[]":   arrayOf(errorCodeGen, sharedLen),
	"retryable boolean[]":  arrayOf(boolGen, sharedLen),
	"retry_in interval[]":  arrayOf(retryInGen, sharedLen),
	"reasons text[]":       arrayOf(enumGen("error", "timed_out"), sharedLen),
	"outputs text[]":       arrayOf(textGen, sharedLen),
	"log_refs text[]":      arrayOf(textGen, sharedLen),
	"exit_codes integer[]": arrayOf(intGen, sharedLen),
	"results jsonb[]":      arrayOf(resultGen, sharedLen),
}

// resultGen draws a job's result for complete_job and complete_jobs: any JSON value typically
// (results need not be objects), and when odd a wrong or huge one (above max_result_bytes).
var resultGen = valueGen{
	typical: func(g *gen) *string {
		return g.pick(`{"total": 42}`, `[1, "two", null]`, `"done"`, `3.5`, `false`, `null`)
	},
	odd: func(g *gen) *string {
		if g.chance(0.3) {
			return s(fmt.Sprintf("%q", strings.Repeat("r", 70*1024)))
		}
		return oddJSON(g)
	},
}

// functionGens override the generator of one argument of one function, where its name means
// something else there.
var functionGens = map[string]valueGen{
	"jobq.define_task.name":                              definedTaskGen,
	"jobq.schedule.name":                                 scheduleNameGen,
	"jobq.unschedule.name":                               scheduleNameGen,
	"jobq.pause_schedule.name":                           scheduleNameGen,
	"jobq.resume_schedule.name":                          scheduleNameGen,
	"jobq.run_schedule_now.name":                         scheduleNameGen,
	"jobq.pause_queue.queue":                             pausedQueueGen,
	"jobq.set_setting.name":                              settingNameGen,
	"jobq._cron_field.name":                              textGen,
	"jobq._cron_value.name":                              textGen,
	"jobq.fail_jobs.retry_in":                            arrayOf(retryInGen, sharedLen),
	"jobq.cron_slots.max_slots":                          smallCountGen,
	"jobq.payload_problem.payload":                       jsonGen,
	"jobq.complete_job.result":                           resultGen,
	"jobq.bind_store.login":                              loginGen,
	"jobq.unbind_store.login":                            loginGen,
	"jobq.stats.queue":                                   statsQueueGen,
	"jobq.stats.store_id":                                statsStoreGen,
	"jobq.queue_list.queue":                              statsQueueGen,
	"jobq.queue_list.store_id":                           statsStoreGen,
	"jobq.queue_summary.cap":                             smallCountGen,
	"jobq.claim_job.tasks":                               claimTasksGen,
	"jobq.claim_passed_over.tasks":                       claimTasksGen,
	"jobq.register_worker.tasks":                         registerTasksGen,
	"jobq.set_task_handler.handler":                      handlerGen,
	"jobq.served_tasks.handlers":                         handlersGen,
	"jobq.claim_job.after_priority":                      claimPositionGen(priorityGen),
	"jobq.claim_job.after_run_at":                        claimPositionGen(timestampGen),
	"jobq.claim_job.after_id":                            claimPositionGen(jobIDGen),
	"jobq.claim_passed_over.after_priority":              claimPositionGen(priorityGen),
	"jobq.claim_passed_over.after_run_at":                claimPositionGen(timestampGen),
	"jobq.claim_passed_over.after_id":                    claimPositionGen(jobIDGen),
	"jobq.set_concurrency_limit.queue":                   limitedQueueGen,
	"jobq.set_concurrency_limit.max_running":             maxRunningGen,
	"jobq.set_store_concurrency_limit.queue":             limitedQueueGen,
	"jobq.set_store_concurrency_limit.max_running":       maxRunningGen,
	"jobq.set_partition_concurrency_limit.queue":         limitedQueueGen,
	"jobq.set_partition_concurrency_limit.partition_key": partitionKeyGen,
	"jobq.set_partition_concurrency_limit.max_running":   maxRunningGen,
	"jobq.set_rate_limit.queue":                          limitedQueueGen,
	"jobq.set_rate_limit.max_started":                    maxRunningGen,
	"jobq.set_rate_limit.per":                            rateWindowGen,
	"jobq.set_store_rate_limit.queue":                    limitedQueueGen,
	"jobq.set_store_rate_limit.max_started":              maxRunningGen,
	"jobq.set_store_rate_limit.per":                      rateWindowGen,
	"jobq.set_fair_claiming.queue":                       limitedQueueGen,
	"jobq.set_fair_claiming.fair":                        boolGen,
	"jobq.batch_list.state":                              enumGen("open", "sealed", "settled"),
	"jobq.batch_list.store_id":                           statsStoreGen,
	"jobq.create_batch.store_id":                         statsStoreGen,
}

// limitedQueueGen draws the queue a concurrency limit is set on: never one of the control queues
// (a limit there would hold back the control job, the fuzzer's own doing, not a bug). "other" is
// among the queues fuzzed claims list, so their claims go through the limited path; a paused
// queue is known once paused; "fuzz-limited" is known to nothing, so setting a limit on it is
// refused.
var limitedQueueGen = valueGen{
	typical: func(g *gen) *string { return g.pick("other", "fuzz-paused", "fuzz-limited") },
	odd:     pausedQueueGen.odd,
}

// maxRunningGen draws a concurrency limit: small, far above a shared claim's margin, or NULL (the
// limit is removed); odd, any integer.
var maxRunningGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.25) {
			return nil
		}
		if g.chance(0.25) {
			// Far above a shared claim's margin (112): small claims of the queue count side by
			// side under slots (jobq._shared_claim_slot).
			return s(fmt.Sprint(113 + g.rng.IntN(900)))
		}
		return s(fmt.Sprint(1 + g.rng.IntN(5)))
	},
	odd: intGen.odd,
}

// rateWindowGen draws the window of a rate limit: short, NULL (with a NULL limit, the removal),
// or any interval when odd.
var rateWindowGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.25) {
			return nil
		}
		return g.pick("1 second", "1 minute", "100 milliseconds", "1 day")
	},
	odd: intervalGen.odd,
}

// partitionKeyGen draws the payload field a partition limit counts by: one the fuzzed payloads
// carry, NULL (removal), or anything else when odd.
var partitionKeyGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.25) {
			return nil
		}
		return g.pick("customerId", "storeId", "n")
	},
	odd: oddText,
}

// claimPositionGen draws one of claim_job's three position arrays: NULL (no positions) or an
// array of the call's shared length, which the typical queue lists (one to three queues) often
// match, of elem's values or NULLs; odd, any array.
func claimPositionGen(elem valueGen) valueGen {
	positions := arrayOf(valueGen{typical: func(g *gen) *string {
		if g.chance(0.2) {
			return nil
		}
		return elem.typical(g)
	}, odd: elem.odd}, sharedLen)
	return valueGen{
		typical: func(g *gen) *string {
			if g.chance(0.3) {
				return nil
			}
			return positions.typical(g)
		},
		odd: positions.odd,
	}
}

// statsQueueGen draws the queue jobq.stats reports on: mostly NULL (every queue), else a control
// queue (live jobs and history), a paused one, a queue nothing ever used (a row of zeros), or
// anything else when odd (blank and overlong names are refused).
var statsQueueGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.5) {
			return nil
		}
		return g.pick(append(slices.Clone(controlQueues), "fuzz-paused", "fuzz-never-used")...)
	},
	odd: oddText,
}

// statsStoreGen draws the store jobq.stats is scoped to: mostly NULL (an operator's every store, an
// application's session store), else store A (the application's own), and when odd store B (another
// store: an application's call is refused), the all-zero or a random store.
var statsStoreGen = valueGen{
	typical: func(g *gen) *string {
		if g.chance(0.6) {
			return nil
		}
		return s(storeA)
	},
	odd: uuidGen.odd,
}

// loginGen draws a role name for the store bindings: the fuzzed application's login (so that
// binding it changes what its later calls reach), the operator's, worker_runtime, a group role,
// or anything else.
var loginGen = valueGen{
	typical: func(g *gen) *string {
		return g.pick(g.logins.App, g.logins.App, g.logins.Operator, "worker_runtime", "jobq_app")
	},
	odd: func(g *gen) *string {
		if g.chance(0.3) {
			return g.pick("no_such_login", "PUBLIC", "postgres", "")
		}
		return oddText(g)
	},
}

// generatorFor returns the generator of argument a of f, or an error naming them when no
// generator covers its type.
func generatorFor(f *function, a arg) (valueGen, error) {
	if vg, ok := functionGens[f.Name+"."+a.kind()]; ok {
		return vg, nil
	}
	if vg, ok := parallelGens[a.kind()+" "+a.Type]; ok {
		return vg, nil
	}
	if a.kind() == "job_id" && (strings.HasPrefix(f.Name, "jobq.complete_") || strings.HasPrefix(f.Name, "jobq.fail_") ||
		strings.HasPrefix(f.Name, "jobq.heartbeat") || strings.HasPrefix(f.Name, "jobq.snooze") ||
		f.Name == "jobq.set_progress") {
		return pairID, nil
	}
	if vg, ok := kindGens[a.kind()+" "+a.Type]; ok {
		return vg, nil
	}
	if vg, ok := typeGens[a.Type]; ok {
		return vg, nil
	}
	if elem, ok := strings.CutSuffix(a.Type, "[]"); ok {
		if vg, ok := typeGens[elem]; ok {
			return arrayOf(vg, randomLen), nil
		}
	}
	return valueGen{}, fmt.Errorf("no generator for argument %s %s of %s: add one to sql/fuzz/generators_test.go",
		a.Name, a.Type, f.Signature)
}

// args draws the arguments of one call of f: how many are passed (defaults may be left out) and
// their values.
func (g *gen) args(f *function, vgs []valueGen) []*string {
	g.wild = []float64{0, 0, 0.15, 0.4}[g.rng.IntN(4)]
	g.store = g.chance(0.5)
	g.oddAt = -1
	if g.wild == 0 && len(f.Args) > 0 && g.chance(0.6) {
		g.oddAt = g.rng.IntN(len(f.Args))
	}
	g.pairs = nil
	if len(g.pools.Running) > 0 {
		for range 1 + g.rng.IntN(3) {
			g.pairs = append(g.pairs, g.pools.Running[g.rng.IntN(len(g.pools.Running))])
		}
	}
	g.arrayLen = len(g.pairs)
	if g.arrayLen == 0 || g.chance(0.2) {
		g.arrayLen = g.rng.IntN(3)
	}
	n := len(f.Args)
	if req := f.required(); req < n && g.chance(0.25) {
		n = req + g.rng.IntN(n-req+1)
		if g.oddAt >= n {
			g.oddAt = -1
		}
	}
	out := make([]*string, n)
	for i := range out {
		out[i] = g.draw(vgs[i], i == g.oddAt)
	}
	return out
}
