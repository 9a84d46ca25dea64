package main

import (
	"fmt"
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
			if tg[2] != "met" || !strings.Contains(tg[1], "90 % (36,000 vs 40,000 jobs/s at 2 clients)") || !strings.Contains(tg[1], "raw claim+delete floor: 300,000") {
				t.Fatalf("lifecycle target: %q %q", tg[1], tg[2])
			}
			return
		}
	}
	t.Fatal("no lifecycle target")
}

// A drain above 100 % of its lifecycle floor is not judged: the floor is built weaker than jobq
// works, a harness bug.
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
	for _, tg := range rep.targets {
		if strings.HasPrefix(tg[0], "throughput ≥ 85 % of the lifecycle floor") {
			if tg[2] != "harness bug" || !strings.Contains(tg[1], "135 % (54,000 vs 40,000 jobs/s at 2 clients)") ||
				!strings.Contains(tg[1], "a harness bug, not a result") {
				t.Fatalf("lifecycle target above its floor: %q %q", tg[1], tg[2])
			}
			return
		}
	}
	t.Fatal("no lifecycle target")
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
	if !strings.Contains(md, "| pickup p50 ≤ 1.25 × the raw floor's | 2.50 × (0.500 vs 0.200 ms) | **missed** | [an idle runner's pickup](docs/benchmarks.md#where-the-time-goes-issue-17-tenth-pass-an-idle-runners-pickup) |") {
		t.Errorf("the missed pickup target does not link its profile:\n%s", md)
	}
	if !strings.Contains(md, "| fan-out of 100,000 stores < 3 s | 1200 ms (first run) | **met** |  |") {
		t.Errorf("a met target links a profile:\n%s", md)
	}
}
