package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// A scenario that started on a busy machine: its figures carry "(noisy)", the targets judged on
// them get the verdict noisy, and the machine section names it; a quiet scenario's are judged.
func TestNoisyScenarioFiguresAreMarkedAndNotJudged(t *testing.T) {
	env := &environment{root: t.TempDir(), runs: 1, quick: true, calmWait: 2 * time.Minute}
	rep := newReport(env, []string{"fanout", "idle"})
	rep.add("fanout/first", "fan-out", "fan-out first", "ms", 1200)
	rep.add("fanout/repeat", "fan-out", "fan-out repeated", "ms", 900)
	for _, x := range rep.rows {
		x.noisy = true
	}
	rep.loads = append(rep.loads, &loadCheck{scenario: "fanout", loadBefore: 3.5, noisy: true, waited: 2 * time.Minute})
	rep.add("idle/p99-baseline", "idle", "p99 baseline", "ms", 4)
	rep.add("idle/p99-during", "idle", "p99 during", "ms", 7)
	rep.loads = append(rep.loads, &loadCheck{scenario: "idle", loadBefore: 0.5})
	rep.finish()

	verdicts := map[string]string{}
	for _, tg := range rep.targets {
		verdicts[tg[0]] = tg[2]
	}
	fan := "fan-out of 100,000 stores < 3 s"
	if verdicts[fan] != "noisy" {
		t.Errorf("fan-out target on a busy machine: verdict %q, want noisy", verdicts[fan])
	}
	idle := "idle snapshot: pickup p99 while a REPEATABLE READ snapshot stays open ≤ 2 × baseline"
	if verdicts[idle] != "met" {
		t.Errorf("idle target on a quiet machine: verdict %q, want met", verdicts[idle])
	}
	md := rep.markdown()
	for _, want := range []string{"1,200 (noisy)", "**Noisy: fanout", "| fanout | 3.50 |", "| **noisy** |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "7.000 (noisy)") {
		t.Errorf("a quiet scenario's figure is marked noisy:\n%s", md)
	}
}

// The lifecycle floor's best client count is the reference of the 85 % target, and the raw
// floor is quoted beside it.
func TestLifecycleTargetUsesTheBestClientCount(t *testing.T) {
	env := &environment{root: t.TempDir(), runs: 1, quick: true}
	rep := newReport(env, []string{"throughput"})
	n := throughputCounts(env).target
	key := func(k string) string { return fmt.Sprintf("%s/%d", k, n) }
	rep.add(key("tp/jobq-default"), "throughput", "jobq", "jobs/s", 36000)
	rep.add(key("tp/floor"), "throughput", "raw", "jobs/s", 300000)
	for c, v := range map[int]float64{1: 25000, 2: 40000, 4: 39000, 8: 30000} {
		rep.add(key(fmt.Sprintf("tp/lifecycle-c%d", c)), "throughput", "lf", "jobs/s", v)
	}
	rep.finish()
	for _, tg := range rep.targets {
		if strings.HasPrefix(tg[0], "throughput ≥ 85 % of the lifecycle floor") {
			if tg[2] != "met" || !strings.Contains(tg[1], "90 % (1 run); 36,000 vs 40,000 jobs/s at 2 clients") || !strings.Contains(tg[1], "raw claim+delete floor: 300,000") {
				t.Fatalf("lifecycle target: %q %q", tg[1], tg[2])
			}
			return
		}
	}
	t.Fatal("no lifecycle target")
}

// A drain above 100 % of its lifecycle floor is not judged: the floor is built weaker than jobq
// works, a harness bug, and the run fails.
func TestLifecycleTargetAboveItsFloorIsAHarnessBug(t *testing.T) {
	env := &environment{root: t.TempDir(), runs: 1, quick: true}
	rep := newReport(env, []string{"throughput"})
	n := throughputCounts(env).target
	key := func(k string) string { return fmt.Sprintf("%s/%d", k, n) }
	rep.add(key("tp/jobq-default"), "throughput", "jobq", "jobs/s", 54000)
	for c, v := range map[int]float64{1: 25000, 2: 40000, 4: 39000, 8: 30000} {
		rep.add(key(fmt.Sprintf("tp/lifecycle-c%d", c)), "throughput", "lf", "jobs/s", v)
	}
	rep.finish()
	found := false
	for _, tg := range rep.targets {
		if strings.HasPrefix(tg[0], "throughput ≥ 85 % of the lifecycle floor") {
			found = true
			if tg[2] != "harness bug" || !strings.Contains(tg[1], "135 % (1 run); 54,000 vs 40,000 jobs/s at 2 clients") ||
				!strings.Contains(tg[1], "a harness bug, not a result") {
				t.Fatalf("lifecycle target above its floor: %q %q", tg[1], tg[2])
			}
		}
	}
	if !found {
		t.Fatal("no lifecycle target")
	}
	if !slices.ContainsFunc(rep.problems(), func(p string) bool { return strings.HasPrefix(p, "harness bug: throughput ≥ 85 %") }) {
		t.Fatalf("a drain above its floor does not fail the run: problems %q", rep.problems())
	}
}

// Every ratio divides figures of the same run and is reported as the median of those ratios
// with their range: here jobq ÷ the peer is 2.0, 0.9 and 2.0 run by run (median 2.00), where a
// ratio of the medians would read 90 ÷ 50 = 1.80.
func TestRatiosArePairedRunByRun(t *testing.T) {
	env := &environment{root: t.TempDir(), runs: 3}
	rep := newReport(env, []string{"throughput"})
	n := throughputCounts(env).target
	for run, v := range [][2]float64{{100, 50}, {90, 100}, {80, 40}} {
		rep.run = run + 1
		rep.add(fmt.Sprintf("tp/jobq-default/%d", n), "throughput", "jobq", "jobs/s", v[0])
		rep.add(fmt.Sprintf("tp/graphile-p2/%d", n), "throughput", "graphile 2", "jobs/s", v[1])
	}
	rep.finish()
	want := "1.25 × the best peer configuration, 200,000 jobs"
	for _, tg := range rep.targets {
		if strings.HasSuffix(tg[0], want) {
			if tg[2] != "met" || !strings.HasPrefix(tg[1], "2.00 × (0.90–2.00, 3 runs) graphile-worker at 2 processes") {
				t.Fatalf("throughput target: %q %q", tg[1], tg[2])
			}
			if x := rep.byKey[fmt.Sprintf("tp/jobq-default/%d", n)]; !strings.Contains(x.ratio, "÷ graphile-worker best (2 processes) 2.00 (0.90–2.00, 3 runs)") {
				t.Fatalf("ratio column: %q", x.ratio)
			}
			return
		}
	}
	t.Fatalf("no throughput target: %q", rep.targets)
}

// A peer's figure is its best configuration (highest median), and the best peer is the one
// judged; a run that only one side measured is left out of the pairs.
func TestBestPeerConfigurationAndUnpairedRuns(t *testing.T) {
	env := &environment{root: t.TempDir(), runs: 2}
	rep := newReport(env, []string{"throughput"})
	n := throughputCounts(env).target
	k := func(p string) string { return fmt.Sprintf("%s/%d", p, n) }
	rep.run = 1
	rep.add(k("tp/jobq-default"), "throughput", "jobq", "jobs/s", 30000)
	rep.add(k("tp/graphile-p1"), "throughput", "g1", "jobs/s", 20000)
	rep.add(k("tp/graphile-p2"), "throughput", "g2", "jobs/s", 24000)
	rep.add(k("tp/graphile-p4"), "throughput", "g4", "jobs/s", 22000)
	rep.add(k("tp/river-w1000"), "throughput", "r1", "jobs/s", 12000)
	rep.run = 2
	rep.add(k("tp/jobq-default"), "throughput", "jobq", "jobs/s", 36000)
	rep.add(k("tp/graphile-p2"), "throughput", "g2", "jobs/s", 24000)
	rep.finish()
	for _, tg := range rep.targets {
		if strings.HasSuffix(tg[0], "best peer configuration, 200,000 jobs") {
			if tg[2] != "met" || !strings.HasPrefix(tg[1], "1.38 × (1.25–1.50, 2 runs) graphile-worker at 2 processes") {
				t.Fatalf("throughput target: %q %q", tg[1], tg[2])
			}
		}
	}
	if s, ok := pairStats(rep.byKey[k("tp/jobq-default")], rep.byKey[k("tp/river-w1000")]); !ok || s.n != 1 || s.med != 2.5 {
		t.Fatalf("jobq ÷ River pairs only run 1: %+v %v", s, ok)
	}
}

// A pickup faster than its floor's is a harness bug and fails the run; so is an enqueue
// faster than the raw INSERT.
func TestBetterThanTheFloorFailsTheRun(t *testing.T) {
	env := &environment{root: t.TempDir(), runs: 1, quick: true}
	rep := newReport(env, []string{"latency", "enqueue"})
	rep.add("lat/p50", "latency", "jobq p50", "ms", 0.3)
	rep.add("lat/floor/p50", "latency", "floor p50", "ms", 0.4)
	rep.add("enq/single/8", "enqueue", "jobq 8", "rows/s", 9000)
	rep.add("enq/raw-single/8", "enqueue", "raw 8", "rows/s", 10000)
	rep.finish()
	verdicts := map[string]string{}
	for _, tg := range rep.targets {
		verdicts[tg[0]] = tg[2]
	}
	if v := verdicts["pickup p50 ≤ 1.25 × the raw floor's"]; v != "harness bug" {
		t.Errorf("pickup below its floor: verdict %q", v)
	}
	if v := verdicts["single enqueue ≥ 70 % of raw INSERT (8 conn, a jobq runner listening)"]; v != "met" {
		t.Errorf("enqueue at 90 %% of raw: verdict %q", v)
	}
	if p := rep.problems(); len(p) != 1 || !strings.Contains(p[0], "pickup p50") {
		t.Errorf("problems: %q", p)
	}
}

// Writes per job: WAL against the minimal queue's (≤ 2 ×) and index entries (≤ 4).
func TestWritesPerJobTargets(t *testing.T) {
	env := &environment{root: t.TempDir(), runs: 1, quick: true}
	rep := newReport(env, []string{"throughput"})
	rep.add(writesKey("jobq-default", "total", "wal"), "writes", "jobq wal", "B/job", 1250)
	rep.add(writesKey("floor", "total", "wal"), "writes", "floor wal", "B/job", 290)
	rep.add(writesKey("jobq-default", "total", "idx"), "writes", "jobq idx", "entries/job", 7)
	rep.finish()
	verdicts := map[string][2]string{}
	for _, tg := range rep.targets {
		verdicts[tg[0]] = [2]string{tg[1], tg[2]}
	}
	if v := verdicts["WAL per job (enqueue + drain) ≤ 2 × the minimal queue's (raw SKIP LOCKED floor)"]; v[1] != "missed" || !strings.HasPrefix(v[0], "4.31 × (1 run)") {
		t.Errorf("WAL target: %q", v)
	}
	if v := verdicts["index entries per job (enqueue + drain) ≤ 4"]; v[1] != "missed" {
		t.Errorf("index entries target: %q", v)
	}
}

// A WAL bound is set against the minimal queue, judged by no target, and shown beside jobq's WAL.
func TestWALBoundsAreRatiosWithoutTarget(t *testing.T) {
	env := &environment{root: t.TempDir(), runs: 1, quick: true}
	rep := newReport(env, []string{"throughput"})
	rep.add(writesKey("jobq-default", "total", "wal"), "writes", "jobq wal", "B/job", 976)
	rep.add(writesKey("floor", "total", "wal"), "writes", "floor wal", "B/job", 288)
	rep.add(writesKey("bound-inplace", "total", "wal"), "writes", "in place wal", "B/job", 763)
	rep.add(writesKey("bound-lean", "total", "wal"), "writes", "lean wal", "B/job", 654)
	rep.finish()
	if got := rep.byKey[writesKey("bound-inplace", "total", "wal")].ratio; got != "÷ floor 2.65 (1 run)" {
		t.Errorf("in-place bound's ratio: %q", got)
	}
	if got := rep.byKey[writesKey("bound-lean", "total", "wal")].ratio; got != "÷ floor 2.27 (1 run)" {
		t.Errorf("lean bound's ratio: %q", got)
	}
	if got := rep.byKey[writesKey("jobq-default", "total", "wal")].ratio; !strings.Contains(got, "÷ bound-inplace 1.28 (1 run)") {
		t.Errorf("jobq's WAL ratios: %q", got)
	}
	for _, tg := range rep.targets {
		if strings.Contains(tg[0], "bound") || strings.Contains(tg[3], "bound") {
			t.Errorf("a bound is judged: %q", tg)
		}
	}
}

// A missed target links the section of docs/benchmarks.md that profiles it; a met one links
// nothing. (docs/docs_test.go checks that the links of the committed BENCHMARKS.md resolve.)
func TestMissedTargetsLinkTheirProfile(t *testing.T) {
	env := &environment{root: t.TempDir(), runs: 1, quick: true}
	rep := newReport(env, []string{"latency", "fanout"})
	rep.add("lat/p50", "latency", "jobq p50", "ms", 0.5)
	rep.add("lat/floor/p50", "latency", "floor p50", "ms", 0.2)
	rep.add("fanout/first", "fan-out", "fan-out first", "ms", 1200)
	rep.finish()
	md := rep.markdown()
	if !strings.Contains(md, "| pickup p50 ≤ 1.25 × the raw floor's | 2.50 × (1 run); 0.500 vs 0.200 ms, medians | **missed** | [an idle runner's pickup](docs/benchmarks.md#an-idle-runners-pickup) |") {
		t.Errorf("the missed pickup target does not link its profile:\n%s", md)
	}
	if !strings.Contains(md, "| fan-out of 100,000 stores < 3 s | 1200 ms (first run, slowest of 1) | **met** |  |") {
		t.Errorf("a met target links a profile:\n%s", md)
	}
}

// The fan-out is judged on its slowest run: a median under 3 s with one run above it is missed.
func TestFanOutIsJudgedOnItsSlowestRun(t *testing.T) {
	env := &environment{root: t.TempDir(), runs: 3}
	rep := newReport(env, []string{"fanout"})
	for _, ms := range []float64{2600, 2500, 2700} {
		rep.add("fanout/first", "fan-out", "fan-out first", "ms", ms)
	}
	for _, ms := range []float64{2100, 206510, 2200} {
		rep.add("fanout/repeat", "fan-out", "fan-out repeated", "ms", ms)
	}
	rep.finish()
	md := rep.markdown()
	for _, want := range []string{
		"| fan-out of 100,000 stores < 3 s | 2700 ms (first run, slowest of 3) | **met** |  |",
		"| fan-out of 100,000 stores < 3 s (repeated) | 206510 ms (slowest of 3) | **missed** | [the fan-out](docs/benchmarks.md#the-fan-out) |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
}

// The scale target is a ratio of two drains, judged like every other ratio: run by run (each
// run's loaded drain against the same run's empty one), on the median of those ratios. The
// medians of the two rows would pair a run's loaded drain with another run's empty one.
func TestScaleIsJudgedRunByRun(t *testing.T) {
	env := &environment{root: t.TempDir(), runs: 3}
	rep := newReport(env, []string{"scale"})
	// This session's figures (BENCHMARKS.md of b06b6b7): run by run 1.13, 0.84, 1.04; the
	// medians 33,163 / 36,863 = 90 %.
	for i, v := range [][2]float64{{29224, 33163}, {36863, 31006}, {37176, 38728}} {
		rep.run = i + 1
		rep.add("scale/empty", "scale", "empty", "jobs/s", v[0])
		rep.add("scale/loaded", "scale", "loaded", "jobs/s", v[1])
	}
	rep.finish()
	md := rep.markdown()
	want := "104 % (84–113 %, 3 runs) of empty, run by run; medians 33,163 vs 36,863 jobs/s | **met** |"
	if !strings.Contains(md, want) {
		t.Errorf("missing %q in:\n%s", want, md)
	}

	// Slower in every run: missed, whatever the medians.
	rep = newReport(env, []string{"scale"})
	for i, v := range [][2]float64{{40000, 35000}, {30000, 26000}, {35000, 31000}} {
		rep.run = i + 1
		rep.add("scale/empty", "scale", "empty", "jobs/s", v[0])
		rep.add("scale/loaded", "scale", "loaded", "jobs/s", v[1])
	}
	rep.finish()
	if md := rep.markdown(); !strings.Contains(md, "88 % (87–89 %, 3 runs) of empty, run by run; medians 31,000 vs 35,000 jobs/s | **missed** |") {
		t.Errorf("a loaded drain slower in every run is not missed:\n%s", md)
	}

	// Only the loaded drain measured: nothing to pair, so not measured (never a verdict).
	rep = newReport(env, []string{"scale"})
	rep.add("scale/loaded", "scale", "loaded", "jobs/s", 31000)
	rep.finish()
	if md := rep.markdown(); !strings.Contains(md, "| scale not measured | **not measured** |") {
		t.Errorf("a scale run without its empty drain is judged:\n%s", md)
	}
}

// One floor per path: jobq's claim time per job is divided by the lifecycle floor's least
// (over its client counts); a path faster than its floor fails the run.
func TestPathFloors(t *testing.T) {
	env := &environment{root: t.TempDir(), runs: 1, quick: true}
	rep := newReport(env, []string{"throughput"})
	rep.add(pathKey("jobq-default", "claim"), "paths", "jobq claim", "µs/job", 40)
	rep.add(pathKey("lifecycle-c1", "claim"), "paths", "floor claim c1", "µs/job", 10)
	rep.add(pathKey("lifecycle-c2", "claim"), "paths", "floor claim c2", "µs/job", 20)
	rep.add(pathKey("jobq-default", "complete"), "paths", "jobq complete", "µs/job", 8)
	rep.add(pathKey("lifecycle-c1", "complete"), "paths", "floor complete c1", "µs/job", 10)
	rep.finish()
	if x := rep.byKey[pathKey("jobq-default", "claim")]; x.ratio != "÷ lifecycle floor (lifecycle-c1) 4.00 (1 run)" {
		t.Errorf("claim path ratio: %q", x.ratio)
	}
	if p := rep.problems(); len(p) != 1 || !strings.Contains(p[0], "complete path no faster than its floor") {
		t.Errorf("a completion faster than its floor does not fail the run: %q", p)
	}
}

// The WAL profile lists each phase's record types, largest first, until 99 % of its bytes, per job.
func TestWALProfileShowsRecordTypesPerJob(t *testing.T) {
	m := &writeMeter{jobs: 100,
		enqueueKinds: []walKind{{"Heap/INSERT", 100, 13000}, {"Btree/INSERT_LEAF", 300, 25000}},
		drainKinds:   []walKind{{"Heap/UPDATE", 100, 20000}, {"Heap/LOCK", 100, 5400}, {"Sequence/LOG", 1, 10}},
	}
	got := m.profile()
	for _, want := range []string{
		"| enqueue | Heap/INSERT | 1.00 | 130.0 | 34 % |",
		"| enqueue | Btree/INSERT_LEAF | 3.00 | 250.0 | 66 % |",
		"| drain | Heap/UPDATE | 1.00 | 200.0 | 79 % |",
		"| drain | Heap/LOCK | 1.00 | 54.0 | 21 % |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("profile lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Sequence/LOG") {
		t.Errorf("profile shows a record type beyond 99 %% of the bytes:\n%s", got)
	}
	var rep report
	if !rep.first("k") || rep.first("k") {
		t.Error("report.first is true the first time it is asked about a key only")
	}
}
