package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// writeJSON writes v as indented JSON: the --json output of the read commands (docs/cli.md).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeTable writes an aligned table: a header row, then one row per record.
func writeTable(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// writeFields writes one record as aligned "name  value" lines.
func writeFields(w io.Writer, fields [][2]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, f := range fields {
		fmt.Fprintf(tw, "%s\t%s\n", f[0], f[1])
	}
	return tw.Flush()
}

// relTime is t relative to now: "3m ago", "in 2h", "now"; "-" for none.
func relTime(t *time.Time, now time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	d := now.Sub(*t)
	if d > -time.Second && d < time.Second {
		return "now"
	}
	if d > 0 {
		return shortDuration(d) + " ago"
	}
	return "in " + shortDuration(-d)
}

// shortDuration is d in its largest whole unit: 45s, 3m, 2h, 4d.
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	default:
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	}
}

// orDash is s, or "-" when empty.
func orDash(s *string) string {
	if s == nil || *s == "" {
		return "-"
	}
	return *s
}

// truncate shortens s to n runes for a table cell, on one line.
func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// parseSince reads --since: a duration back from now ("1h", "30m", "2d") or an RFC 3339 time.
func parseSince(s string, now time.Time) (*time.Time, error) {
	if s == "" {
		return nil, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return &t, nil
	}
	days := strings.TrimSuffix(s, "d")
	var d time.Duration
	var err error
	if days != s {
		var n int
		if _, err = fmt.Sscanf(days, "%d", &n); err == nil && fmt.Sprint(n) == days {
			d = time.Duration(n) * 24 * time.Hour
		} else {
			err = fmt.Errorf("bad day count")
		}
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d < 0 {
		return nil, usageError{fmt.Sprintf("--since %q: want a duration back from now (30m, 2h, 7d) or an RFC 3339 time", s)}
	}
	t := now.Add(-d)
	return &t, nil
}
