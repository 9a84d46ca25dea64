package sql_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // Asia/Tokyo for robfig/cron, whatever the machine's zoneinfo

	"github.com/jackc/pgx/v5"
	"github.com/robfig/cron/v3"
	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/internal/testbundle"
)

// cronField describes one field of a 5-field cron expression for the generator.
type cronField struct {
	lo, hi int
	names  []string // names[i] is the name of lo+i; nil: numbers only
}

var cronFields = []cronField{
	{0, 59, nil}, // minute
	{0, 23, nil}, // hour
	{1, 31, nil}, // day of month
	{1, 12, []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}},
	{0, 6, []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}}, // 0-6 only: robfig refuses 7
}

// cronValue renders v of f as a number or, sometimes, as its name in a random case.
func cronValue(rng *rand.Rand, f cronField, v int) string {
	if f.names != nil && rng.IntN(3) == 0 {
		name := f.names[v-f.lo]
		switch rng.IntN(3) {
		case 0:
			return strings.ToLower(name)
		case 1:
			return name[:1] + strings.ToLower(name[1:])
		}
		return name
	}
	return fmt.Sprint(v)
}

// cronItem generates one list item of f: *, */n, a value, a-b, a-b/n or a/n; * only when alone
// (in a list it would make the whole field *).
func cronItem(rng *rand.Rand, f cronField, alone bool) string {
	span := f.hi - f.lo + 1
	step := func() int { return 1 + rng.IntN(max(span/2, 2)) }
	a := f.lo + rng.IntN(span)
	b := a + rng.IntN(f.hi-a+1)
	switch rng.IntN(7) {
	case 0:
		if alone {
			return "*"
		}
		return cronValue(rng, f, b)
	case 1:
		return fmt.Sprintf("*/%d", step())
	case 2, 3:
		return cronValue(rng, f, a)
	case 4:
		return cronValue(rng, f, a) + "-" + cronValue(rng, f, b)
	case 5:
		return fmt.Sprintf("%s-%s/%d", cronValue(rng, f, a), cronValue(rng, f, b), step())
	default:
		return fmt.Sprintf("%s/%d", cronValue(rng, f, a), step())
	}
}

// cronExpr generates a random valid 5-field expression. Day fields are often left as * (the
// "one of them is *" rule) or restricted together (the "either matches" rule).
func cronExpr(rng *rand.Rand) string {
	parts := make([]string, 5)
	for i, f := range cronFields {
		if (i == 2 || i == 4) && rng.IntN(3) == 0 {
			parts[i] = "*"
			continue
		}
		n := 1 + rng.IntN(3)
		items := make([]string, n)
		for j := range items {
			items[j] = cronItem(rng, f, n == 1)
		}
		parts[i] = strings.Join(items, ",")
	}
	return strings.Join(parts, " ")
}

// TestCronMatchesRobfigCron compares jobq.cron_next, computed in the database, with
// github.com/robfig/cron/v3 on thousands of random valid expressions (values, ranges, steps,
// lists, month and weekday names, restricted and * day fields) and the macros, from random
// instants across several years, in UTC and Asia/Tokyo, and every spelling of a whole day field.
// Both zones are without DST, and jobq and robfig/cron must agree on every case;
// TestCronMatchesRobfigCronAcrossDST compares them in zones with DST, with the intended
// differences named.
func TestCronMatchesRobfigCron(t *testing.T) {
	t.Parallel()
	b := testbundle.New(t)
	rng := rand.New(rand.NewPCG(20260505, 11))
	exprs := []string{"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly",
		// The ways to write a whole day field: * (with a step of 1 however written, or ?) makes it
		// *, so both day fields must match; a full range or a/1 keeps it restricted (either matches).
		"0 0 */1 * MON", "0 0 */01 * MON", "0 0 */001 * MON", "0 0 ? * MON", "0 0 ?/1 * MON", "0 0 *,5 * MON",
		"0 0 1-31 * MON", "0 0 1/1 * MON", "0 0 */2 * MON", "0 0 13 * */01", "0 0 13 * ?", "0 0 13 * 0-6", "0 0 13 * SUN-SAT",
		"0 0 13 * 0/1", "0 0 13 * */2"}
	for len(exprs) < 2500 {
		exprs = append(exprs, cronExpr(rng))
	}
	zones := []string{"UTC", "Asia/Tokyo"}
	from := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)
	span := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC).Sub(from)

	var (
		es, tzs []string
		ats     []time.Time
		want    []*time.Time
	)
	for _, zone := range zones {
		loc, err := time.LoadLocation(zone)
		require.NoError(t, err)
		for _, e := range exprs {
			sched, err := cron.ParseStandard(e)
			require.NoError(t, err, "robfig refuses generated expression %q", e)
			sched.(*cron.SpecSchedule).Location = loc
			for range 2 {
				at := from.Add(time.Duration(rng.Int64N(int64(span))))
				switch rng.IntN(4) {
				case 0:
					at = at.Truncate(time.Minute) // exactly on a minute: the next slot is strictly after
				case 1:
					at = at.Truncate(time.Microsecond) // PostgreSQL keeps microseconds
				default:
					at = at.Truncate(time.Second)
				}
				var next *time.Time
				if n := sched.Next(at); !n.IsZero() {
					next = &n
				}
				es, tzs, ats, want = append(es, e), append(tzs, zone), append(ats, at), append(want, next)
			}
		}
	}

	began := time.Now()
	got := cronNextAll(t, b, es, ats, tzs)
	t.Logf("%d expressions x %d instants x %d zones: %d cron_next calls in %s", len(exprs), 2, len(zones), len(es),
		time.Since(began).Round(time.Millisecond))

	show := func(p *time.Time) string {
		if p == nil {
			return "none"
		}
		return p.UTC().Format(time.RFC3339Nano)
	}
	mismatches := 0
	for i := range es {
		if (got[i] == nil) != (want[i] == nil) || (got[i] != nil && !got[i].Equal(*want[i])) {
			mismatches++
			if mismatches <= 20 {
				t.Errorf("cron_next(%q, %s, %s) = %s; robfig/cron says %s", es[i], ats[i].UTC().Format(time.RFC3339Nano),
					tzs[i], show(got[i]), show(want[i]))
			}
		}
	}
	require.Zero(t, mismatches, "mismatches with robfig/cron out of %d", len(es))
}

// cronNextAll evaluates jobq.cron_next(es[i], ats[i], tzs[i]) for every i in one statement, as the
// superuser, and returns the answers in input order (nil where there is no slot).
func cronNextAll(t *testing.T, b *testbundle.Bundle, es []string, ats []time.Time, tzs []string) []*time.Time {
	t.Helper()
	rows, err := b.Admin.Query(b.Ctx, `
		SELECT jobq.cron_next(u.e, u.at, u.tz)
		FROM unnest($1::text[], $2::timestamptz[], $3::text[]) WITH ORDINALITY AS u(e, at, tz, n)
		ORDER BY u.n`, es, ats, tzs)
	require.NoError(t, err)
	got, err := pgx.CollectRows(rows, pgx.RowTo[*time.Time])
	require.NoError(t, err)
	require.Len(t, got, len(es))
	return got
}
