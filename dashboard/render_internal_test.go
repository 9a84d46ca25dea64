package dashboard

import "testing"

// TestControlsInWords: the overview says a queue's flow controls (the limits object of
// jobq.queue_summary and jobq.stats) in short words, windows as durations, counts with
// separators, and nothing for a queue without controls.
func TestControlsInWords(t *testing.T) {
	for _, c := range []struct {
		limits map[string]any
		want   string
	}{
		{nil, ""},
		{map[string]any{"fair": true}, "fair"},
		{map[string]any{"max_running": 5.0, "max_running_per_store": 1.0, "max_started": 100.0, "started_per": "00:01:00", "fair": true},
			"≤ 5 running · ≤ 1 per store · 100 / 1m · fair"},
		{map[string]any{"partition_key": "customerId", "max_running_per_partition": 2.0}, "≤ 2 per customerId"},
		{map[string]any{"max_started_per_store": 10.0, "store_started_per": "00:00:30"}, "10 / 30s per store"},
		{map[string]any{"max_started": 1e6, "started_per": "1 day"}, "1,000,000 / 24h"},
		{map[string]any{"max_started": 3.0, "started_per": "00:00:00.5"}, "3 / 500ms"},
		{map[string]any{"max_started": 3.0, "started_per": "01:30:00"}, "3 / 1h30m"},
	} {
		if got := controls(c.limits); got != c.want {
			t.Errorf("controls(%v) = %q, want %q", c.limits, got, c.want)
		}
	}
}
