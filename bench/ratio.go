package main

import (
	"fmt"
	"slices"
	"sort"
)

// ratioStats are the run-by-run ratios of two rows: their median, smallest and largest, and
// how many run pairs they come from.
type ratioStats struct {
	med, lo, hi float64
	n           int
}

// pairRatios divides each of a's values by b's value of the same run (see report.run). A run
// that only one of them measured (a peer measured in the first run only) is left out.
func pairRatios(a, b *row) []float64 {
	if !a.ok() || !b.ok() {
		return nil
	}
	var out []float64
	for i, v := range a.values {
		for j, w := range b.values {
			if a.runs[i] == b.runs[j] {
				if w > 0 {
					out = append(out, v/w)
				}
				break
			}
		}
	}
	return out
}

// pairStats is pairRatios summed up; false when no run measured both.
func pairStats(a, b *row) (ratioStats, bool) {
	v := pairRatios(a, b)
	if len(v) == 0 {
		return ratioStats{}, false
	}
	v = slices.Clone(v)
	sort.Float64s(v)
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return ratioStats{med: med, lo: v[0], hi: v[len(v)-1], n: len(v)}, true
}

// String is the median ratio with its range, e.g. "0.83 (0.79–0.88, 3 runs)".
func (s ratioStats) String() string {
	if s.n == 1 {
		return fmt.Sprintf("%.2f (1 run)", s.med)
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f, %d runs)", s.med, s.lo, s.hi, s.n)
}

// times is the median ratio as a multiple, e.g. "1.20 × (1.10–1.30, 3 runs)".
func (s ratioStats) times() string {
	if s.n == 1 {
		return fmt.Sprintf("%.2f × (1 run)", s.med)
	}
	return fmt.Sprintf("%.2f × (%.2f–%.2f, %d runs)", s.med, s.lo, s.hi, s.n)
}

// percent is the same as a share, e.g. "83 % (79–88 %, 3 runs)".
func (s ratioStats) percent() string {
	if s.n == 1 {
		return fmt.Sprintf("%.0f %% (1 run)", 100*s.med)
	}
	return fmt.Sprintf("%.0f %% (%.0f–%.0f %%, %d runs)", 100*s.med, 100*s.lo, 100*s.hi, s.n)
}

// peerGroup is a peer of the throughput scenario: the configurations that compete for its
// figure (the best median of them is the peer's figure) and the key of its defaults, shown
// but never its figure.
type peerGroup struct {
	name     string
	configs  []peerConfig
	defaults string // key prefix, "" when none
}

// peerConfig is one configuration of a peer: its row key prefix (the count follows) and a
// short label.
type peerConfig struct{ prefix, label string }

// throughputPeers are the peers the throughput targets compare with, each at its best
// documented settings in every configuration listed.
var throughputPeers = []peerGroup{
	{name: "River", configs: []peerConfig{
		{"tp/river-w1000/", "1,000 workers"}, {"tp/river-w2000/", "2,000 workers"},
	}, defaults: "tp/river-default/"},
	{name: "graphile-worker", configs: []peerConfig{
		{"tp/graphile-p1/", "1 process"}, {"tp/graphile-p2/", "2 processes"}, {"tp/graphile-p4/", "4 processes"},
	}, defaults: "tp/graphile-default/"},
	{name: "pg-boss", configs: []peerConfig{
		{"tp/pgboss-p1/", "1 process"}, {"tp/pgboss-p2/", "2 processes"},
	}},
}

// bestOf is the configuration with the highest median at job count cnt, and its label; nil
// when none was measured.
func (r *report) bestOf(configs []peerConfig, cnt string) (*row, string) {
	var best *row
	label := ""
	for _, c := range configs {
		if x := r.byKey[c.prefix+cnt]; x.ok() && (best == nil || x.median() > best.median()) {
			best, label = x, c.label
		}
	}
	return best, label
}

// writesKey is the row key of a system's writes per job: phase enqueue, drain or total; what
// wal (bytes of WAL) or idx (index entries).
func writesKey(system, phase, what string) string {
	return "writes/" + system + "/" + phase + "/" + what
}

// maxIndexEntries is issue 33's design target of index entries written per job.
const maxIndexEntries = 4
