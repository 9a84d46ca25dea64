package sql_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/testbundle"
)

// The zones of the DST differential test: northern (New York, London) and southern (Santiago,
// whose clocks change at midnight) DST, Lord Howe's 30-minute DST, and Tokyo as a control
// without DST.
var dstTestZones = []string{"America/New_York", "Europe/London", "Australia/Lord_Howe", "America/Santiago", "Asia/Tokyo"}

// The intended differences between jobq.cron_next and robfig/cron, each named as in docs/scheduling.md's
// table "jobq vs robfig/cron". A difference that none of them explains fails the test.
const (
	// On the day clocks go back, a local time that happens twice runs once, at its first pass,
	// when the hour field names hours (30 1 * * *); robfig/cron runs it in both passes.
	ruleFixedHourRepeatedLocalTimeRunsOnce = "a fixed-hour local time that repeats runs once"
	// On the day clocks go forward, a matching local time that does not exist runs once, at its
	// time with the offset of before the change (02:30 -> 03:30 EDT); robfig/cron skips it.
	ruleNonexistentLocalTimeRunsAfterTheGap = "a local time that does not exist runs just after the gap"
	// After a change of offset by 30 minutes (Australia/Lord_Howe), robfig/cron, which steps hours
	// in real time from before the change, lands at half past and misses the slots of the hours
	// (and days) that follow; jobq runs them at their wall-clock times.
	ruleHalfHourChangeKeepsItsHours = "the hours after a 30-minute change still run"
	// Where clocks go forward at midnight (America/Santiago), robfig/cron's hour search goes from
	// 23:00 to 01:00 without checking the new day, and runs a Saturday slot on Sunday; jobq runs
	// only on the days the fields name.
	ruleNoSlotOnADayTheFieldsDoNotName = "no slot on a day the fields do not name"
)

const cronStarBit = 1 << 63

// wallClock is a local wall-clock time as a UTC time (it may not exist in the zone).
func wallClock(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC)
}

// specMatches reports whether wall-clock time w matches robfig's parsed fields, with the day rule
// of both (when one day field is *, both must match; else either).
func specMatches(s *cron.SpecSchedule, w time.Time) bool {
	if s.Minute&(1<<uint(w.Minute())) == 0 || s.Hour&(1<<uint(w.Hour())) == 0 || s.Month&(1<<uint(w.Month())) == 0 {
		return false
	}
	dom := s.Dom&(1<<uint(w.Day())) != 0
	dow := s.Dow&(1<<uint(w.Weekday())) != 0
	if s.Dom&cronStarBit != 0 || s.Dow&cronStarBit != 0 {
		return dom && dow
	}
	return dom || dow
}

func everyHour(s *cron.SpecSchedule) bool { return s.Hour&(1<<24-1) == 1<<24-1 }

// gapMinute is a local minute that does not exist (clocks went forward over it) and the instant
// it has with the offset of before the change.
type gapMinute struct {
	wall, at time.Time
}

// offsetChanges lists the instants in [from, to) at which loc changes its UTC offset, with the
// offsets before and after.
func offsetChanges(loc *time.Location, from, to time.Time) (at []time.Time, before, after []int) {
	for t := from; t.Before(to); {
		_, end := t.In(loc).ZoneBounds()
		if end.IsZero() || !end.Before(to) {
			break
		}
		if !end.After(t) {
			t = t.Add(time.Hour)
			continue
		}
		_, o1 := end.Add(-time.Nanosecond).In(loc).Zone()
		_, o2 := end.In(loc).Zone()
		if o1 != o2 {
			at, before, after = append(at, end), append(before, o1), append(after, o2)
		}
		t = end
	}
	return at, before, after
}

// dstModel is the test's own statement of jobq's documented semantics: a slot is every instant
// whose wall clock matches, but the second pass of a repeated local time when the hour field
// names hours; plus, for each matching local time in a gap, the instant with the offset of before.
type dstModel struct {
	spec *cron.SpecSchedule
	loc  *time.Location
	gaps []gapMinute // sorted by at
}

func newDSTModel(spec *cron.SpecSchedule, loc *time.Location, from, to time.Time) *dstModel {
	m := &dstModel{spec: spec, loc: loc}
	at, before, after := offsetChanges(loc, from, to)
	for i, t := range at {
		if after[i] <= before[i] {
			continue
		}
		start := t.Add(time.Duration(before[i]) * time.Second).UTC() // wall clock at the change, as UTC
		for w := start; w.Before(start.Add(time.Duration(after[i]-before[i]) * time.Second)); w = w.Add(time.Minute) {
			m.gaps = append(m.gaps, gapMinute{wall: w, at: w.Add(-time.Duration(before[i]) * time.Second)})
		}
	}
	sort.Slice(m.gaps, func(i, j int) bool { return m.gaps[i].at.Before(m.gaps[j].at) })
	return m
}

// secondPass reports whether the wall clock of instant x happened already within the two hours
// before it (clocks went back).
func (m *dstModel) secondPass(x time.Time) bool {
	w := wallClock(x, m.loc)
	for k := 1; k <= 8; k++ {
		if wallClock(x.Add(-time.Duration(k)*15*time.Minute), m.loc).Equal(w) {
			return true
		}
	}
	return false
}

func (m *dstModel) realSlot(x time.Time) bool {
	return specMatches(m.spec, wallClock(x, m.loc)) && (everyHour(m.spec) || !m.secondPass(x))
}

func (m *dstModel) gapSlot(x time.Time) bool {
	for _, g := range m.gaps {
		if g.at.Equal(x) && specMatches(m.spec, g.wall) {
			return true
		}
	}
	return false
}

// next is the first slot of the model after t and at or before limit, scanning whole minutes.
func (m *dstModel) next(t, limit time.Time) (time.Time, bool) {
	var best time.Time
	for _, g := range m.gaps {
		if g.at.After(t) && !g.at.After(limit) && specMatches(m.spec, g.wall) {
			best = g.at
			break
		}
	}
	for x := t.Truncate(time.Minute).Add(time.Minute); !x.After(limit) && (best.IsZero() || x.Before(best)); x = x.Add(time.Minute) {
		if m.realSlot(x) {
			return x, true
		}
	}
	return best, !best.IsZero()
}

// dstCronExpr generates an expression whose hour field is often * or a step (every hour) and often
// names the hours clocks change in (0-3, 23), with day fields mostly *.
func dstCronExpr(rng *rand.Rand) string {
	minute := cronItem(rng, cronFields[0], true)
	if rng.IntN(3) == 0 {
		minute = []string{"0", "30", "*/15", "*/7", "0,30", "45", "59", "*"}[rng.IntN(8)]
	}
	hour := []string{"*", "*", "*/1", "*/2", "*/3", "0-23", "0", "1", "2", "3", "23", "0-3", "1-2", "1,2", "2,3", "23,0", "22-23", "*/5", "1/2", "12"}[rng.IntN(20)]
	dom, month, dow := "*", "*", "*"
	switch rng.IntN(8) {
	case 0:
		dow = cronItem(rng, cronFields[4], true)
	case 1:
		dom = cronItem(rng, cronFields[2], true)
	case 2:
		dom, dow = cronItem(rng, cronFields[2], true), cronItem(rng, cronFields[4], true)
	case 3:
		month = cronItem(rng, cronFields[3], true)
	}
	return strings.Join([]string{minute, hour, dom, month, dow}, " ")
}

// TestCronMatchesRobfigCronAcrossDST compares jobq.cron_next with robfig/cron/v3 in zones with DST
// (and Tokyo as a control), from instants within a day of every change of offset of 2025-2027,
// for generated expressions with wildcard and fixed hours and minutes, steps and ranges. Every
// difference must be one of the named intended differences above, and jobq's answer must be the
// one the test's own model of the documented semantics gives; near a change that model is
// checked even where jobq and robfig agree.
func TestCronMatchesRobfigCronAcrossDST(t *testing.T) {
	t.Parallel()
	b := testbundle.New(t)
	rng := rand.New(rand.NewPCG(20261101, 12))
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC)
	exprs := []string{"0 * * * *", "30 * * * *", "*/15 * * * *", "30 1 * * *", "30 2 * * *", "0 2 * * *", "0 0 * * *",
		"0 23 * * *", "*/20 1 * * *", "* 2 * * *", "0 1-3 * * *", "15,45 0-4 * * *", "0 0 * * SUN", "0 1 * * SUN", "@daily", "@hourly"}
	for len(exprs) < 240 {
		exprs = append(exprs, dstCronExpr(rng))
	}

	type cronCase struct {
		expr, zone string
		at         time.Time
		robfig     *time.Time
		spec       *cron.SpecSchedule
		loc        *time.Location
		nearChange bool
	}
	var cases []cronCase
	for _, zone := range dstTestZones {
		loc, err := time.LoadLocation(zone)
		require.NoError(t, err)
		changes, _, _ := offsetChanges(loc, from, to)
		if zone == "Asia/Tokyo" {
			require.Empty(t, changes, "Tokyo is the control without DST")
		} else {
			require.Len(t, changes, 6, "%s changes offset twice a year", zone)
		}
		for _, e := range exprs {
			sched, err := cron.ParseStandard(e)
			require.NoError(t, err, "robfig refuses generated expression %q", e)
			spec := sched.(*cron.SpecSchedule)
			spec.Location = loc
			var ats []time.Time
			for _, c := range changes {
				for range 3 {
					ats = append(ats, c.Add(time.Duration(rng.Int64N(int64(50*time.Hour)))-25*time.Hour).Truncate(time.Duration(1+rng.IntN(3))*time.Minute))
				}
			}
			for range 2 {
				ats = append(ats, from.Add(time.Duration(rng.Int64N(int64(to.Sub(from))))).Truncate(time.Second))
			}
			for _, at := range ats {
				c := cronCase{expr: e, zone: zone, at: at, spec: spec, loc: loc}
				if n := spec.Next(at); !n.IsZero() {
					c.robfig = &n
				}
				for _, ch := range changes {
					if d := at.Sub(ch); d > -26*time.Hour && d < 26*time.Hour {
						c.nearChange = true
					}
				}
				cases = append(cases, c)
			}
		}
	}

	es, ats, tzs := make([]string, len(cases)), make([]time.Time, len(cases)), make([]string, len(cases))
	for i, c := range cases {
		es[i], ats[i], tzs[i] = c.expr, c.at, c.zone
	}
	began := time.Now()
	got := cronNextAll(t, b, es, ats, tzs)
	t.Logf("%d cron_next calls in %s", len(cases), time.Since(began).Round(time.Millisecond))

	show := func(p *time.Time) string {
		if p == nil {
			return "none"
		}
		return p.UTC().Format(time.RFC3339)
	}
	models := map[string]*dstModel{}
	model := func(c cronCase) *dstModel {
		key := c.expr + "|" + c.zone
		if models[key] == nil {
			models[key] = newDSTModel(c.spec, c.loc, from.Add(-48*time.Hour), to.Add(48*time.Hour))
		}
		return models[key]
	}
	fired := map[string]int{}
	failures := 0
	fail := func(format string, args ...any) {
		failures++
		if failures <= 25 {
			t.Errorf(format, args...)
		}
	}
	for i, c := range cases {
		j, r := got[i], c.robfig
		same := (j == nil) == (r == nil) && (j == nil || j.Equal(*r))
		m := model(c)
		// Near a change, jobq's answer is checked against the model whether or not robfig agrees.
		if c.nearChange && j != nil && j.Sub(c.at) < 50*time.Hour {
			if want, ok := m.next(c.at, *j); !ok || !want.Equal(*j) {
				fail("cron_next(%q, %s, %s) = %s; the model of jobq's semantics says %s", c.expr, c.at.UTC().Format(time.RFC3339), c.zone,
					show(j), show(&want))
				continue
			}
		}
		if same {
			fired["agree"]++
			continue
		}
		if c.zone == "Asia/Tokyo" {
			fail("cron_next(%q, %s, Asia/Tokyo) = %s; robfig/cron says %s, and Tokyo has no DST", c.expr, c.at.UTC().Format(time.RFC3339), show(j), show(r))
			continue
		}
		// jobq's answer must be the model's, scanning no further than needed.
		limit := c.at.Add(60 * 24 * time.Hour)
		if j != nil && j.Before(limit) {
			limit = *j
		}
		want, ok := m.next(c.at, limit)
		if j == nil || !ok || !want.Equal(*j) {
			fail("cron_next(%q, %s, %s) = %s; robfig/cron says %s; the model says %s", c.expr, c.at.UTC().Format(time.RFC3339), c.zone,
				show(j), show(r), show(&want))
			continue
		}
		var rule string
		switch {
		case r != nil && r.Before(*j) && !everyHour(c.spec) && m.secondPass(*r) && !m.realSlot(*r):
			rule = ruleFixedHourRepeatedLocalTimeRunsOnce
		case r != nil && r.Before(*j) && !specMatches(c.spec, wallClock(*r, c.loc)) && !m.gapSlot(*r):
			w := wallClock(*r, c.loc)
			if midnight := time.Date(w.Year(), w.Month(), w.Day(), 0, 0, 0, 0, c.loc); midnight.Hour() != 0 {
				rule = ruleNoSlotOnADayTheFieldsDoNotName
			}
		case (r == nil || j.Before(*r)) && m.gapSlot(*j):
			rule = ruleNonexistentLocalTimeRunsAfterTheGap
		case (r == nil || j.Before(*r)) && m.realSlot(*j):
			at, before, after := offsetChanges(c.loc, c.at.Add(-26*time.Hour), j.Add(time.Second))
			for k := range at {
				if (after[k]-before[k])%3600 != 0 {
					rule = ruleHalfHourChangeKeepsItsHours
				}
			}
		}
		if rule == "" {
			fail("cron_next(%q, %s, %s) = %s; robfig/cron says %s: a difference no named rule explains", c.expr,
				c.at.UTC().Format(time.RFC3339), c.zone, show(j), show(r))
			continue
		}
		fired[rule]++
	}
	t.Logf("outcomes over %d cases: %v", len(cases), fired)
	require.Zero(t, failures, "unexplained differences")
	for _, rule := range []string{ruleFixedHourRepeatedLocalTimeRunsOnce, ruleNonexistentLocalTimeRunsAfterTheGap,
		ruleHalfHourChangeKeepsItsHours, ruleNoSlotOnADayTheFieldsDoNotName} {
		require.Positive(t, fired[rule], "the cases exercise the rule %q", rule)
	}
	require.Greater(t, fired["agree"], len(cases)/2, "jobq and robfig/cron agree on most cases: %s", fmt.Sprint(fired))
}
