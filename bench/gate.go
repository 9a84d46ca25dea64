package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Quiet-machine gating: before each scenario the harness records the load average and CPU
// steal, and waits (up to BENCH_CALM, 4 minutes by default) until the 1-minute load average is
// below the number of cores and the CPU was busy less than quietBusyPct of the last second (the
// load average decays over a minute, so right after a heavy scenario it can be below the core
// count while the database still works off that scenario's writes). A scenario that starts on a machine that did not calm down is run
// anyway and its figures are marked "noisy" in the report: they are not results.

// loadCheck is what the gate saw for one scenario.
type loadCheck struct {
	scenario   string
	loadBefore float64       // 1-minute load average when the scenario started
	load5      float64       // 5-minute load average then
	stealPct   float64       // CPU steal during the last second of the wait, % of all CPU time
	busyPct    float64       // CPU busy (neither idle nor iowait) during that second, % of all CPU time
	waited     time.Duration // how long the gate waited for the load to fall
	noisy      bool          // the load or the CPU did not calm down within the wait
	loadAfter  float64       // 1-minute load average when the scenario ended
	stealRun   float64       // CPU steal over the scenario, % of all CPU time
	cpuAtStart cpuTimes
}

// cpuTimes are the summed jiffies of the "cpu" line of /proc/stat.
type cpuTimes struct{ total, steal, idle uint64 }

// quietBusyPct is the share of all CPU time, in %, that may be busy in the second before a
// scenario for the machine to count as quiet.
const quietBusyPct = 25

func readCPUTimes() (cpuTimes, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTimes{}, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return cpuTimes{}, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var t cpuTimes
	// user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is already
	// counted in user and nice, so the first eight make the total.
	for i := 1; i <= 8; i++ {
		v, err := strconv.ParseUint(f[i], 10, 64)
		if err != nil {
			return cpuTimes{}, fmt.Errorf("/proc/stat: %q: %w", line, err)
		}
		t.total += v
		switch i {
		case 4, 5: // idle, iowait
			t.idle += v
		case 8:
			t.steal = v
		}
	}
	return t, nil
}

// stealBetween is the steal share of the CPU time between two readings, in %.
func stealBetween(a, b cpuTimes) float64 {
	if b.total <= a.total {
		return 0
	}
	return 100 * float64(b.steal-a.steal) / float64(b.total-a.total)
}

// busyBetween is the busy share (neither idle nor iowait) of the CPU time between two readings,
// in %.
func busyBetween(a, b cpuTimes) float64 {
	if b.total <= a.total {
		return 0
	}
	return 100 * float64((b.total-a.total)-(b.idle-a.idle)) / float64(b.total-a.total)
}

// readLoad returns the 1- and 5-minute load averages of /proc/loadavg.
func readLoad() (float64, float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, 0, fmt.Errorf("/proc/loadavg: %q", string(b))
	}
	l1, err1 := strconv.ParseFloat(f[0], 64)
	l5, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("/proc/loadavg: %q", string(b))
	}
	return l1, l5, nil
}

// awaitQuiet waits until the 1-minute load average is below the core count, at most
// env.calmWait, printing progress every 10 s, and returns what it saw.
func awaitQuiet(ctx context.Context, env *environment, scenario string) (*loadCheck, error) {
	cores := float64(runtime.NumCPU())
	lc := &loadCheck{scenario: scenario}
	began := time.Now()
	lastPrint := time.Time{}
	for {
		before, err := readCPUTimes()
		if err != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
		after, err := readCPUTimes()
		if err != nil {
			return nil, err
		}
		l1, l5, err := readLoad()
		if err != nil {
			return nil, err
		}
		lc.loadBefore, lc.load5, lc.stealPct, lc.cpuAtStart = l1, l5, stealBetween(before, after), after
		lc.busyPct = busyBetween(before, after)
		lc.waited = time.Since(began).Truncate(time.Second)
		if l1 < cores && lc.busyPct < quietBusyPct {
			break
		}
		if lc.waited >= env.calmWait {
			lc.noisy = true
			env.progress("load average %.2f (%d cores), CPU %.0f %% busy, after %s: running %s anyway, its figures marked noisy",
				l1, int(cores), lc.busyPct, lc.waited, scenario)
			break
		}
		if time.Since(lastPrint) >= 10*time.Second {
			env.progress("waiting for a quiet machine before %s: load average %.2f (1 min) / %.2f (5 min), %d cores, CPU %.0f %% busy, steal %.1f %%, waited %s of at most %s",
				scenario, l1, l5, int(cores), lc.busyPct, lc.stealPct, lc.waited, env.calmWait)
			lastPrint = time.Now()
		}
	}
	env.progress("machine before %s: load average %.2f (1 min) / %.2f (5 min), CPU %.0f %% busy, steal %.1f %%, waited %s%s",
		scenario, lc.loadBefore, lc.load5, lc.busyPct, lc.stealPct, lc.waited, map[bool]string{true: ", NOISY", false: ""}[lc.noisy])
	return lc, nil
}

// finishLoad records the load when the scenario ended and the steal over it.
func (lc *loadCheck) finishLoad() {
	if l1, _, err := readLoad(); err == nil {
		lc.loadAfter = l1
	}
	if t, err := readCPUTimes(); err == nil {
		lc.stealRun = stealBetween(lc.cpuAtStart, t)
	}
}

// loadSection is the report's table of the machine's load per scenario.
func (r *report) loadSection() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Before each scenario the harness waits (at most %s, BENCH_CALM) until the 1-minute load average is below the %d cores "+
		"and the CPU was busy less than %d %% of the last second; "+
		"a scenario that started on a busier machine is marked noisy and its figures are not results. "+
		"Steal is the share of CPU time the hypervisor gave to others (/proc/stat): in the second before the scenario, and over the scenario. "+
		"The load at the end includes the scenario's own work.\n\n", r.env.calmWait, runtime.NumCPU(), quietBusyPct)
	b.WriteString("| Scenario | Load 1 min before | Load 5 min before | CPU busy before % | Steal before % | Waited | Load 1 min at end | Steal during % | Verdict |\n|---|---:|---:|---:|---:|---|---:|---:|---|\n")
	for _, lc := range r.loads {
		verdict := "quiet"
		if lc.noisy {
			verdict = "**noisy**"
		}
		fmt.Fprintf(&b, "| %s | %.2f | %.2f | %.0f | %.1f | %s | %.2f | %.1f | %s |\n",
			lc.scenario, lc.loadBefore, lc.load5, lc.busyPct, lc.stealPct, lc.waited, lc.loadAfter, lc.stealRun, verdict)
	}
	return b.String()
}

// loadSummary is the machine section's line on the load: quiet, or which scenarios are noisy.
func (r *report) loadSummary() string {
	var noisy, parts []string
	for _, lc := range r.loads {
		parts = append(parts, fmt.Sprintf("%s %.2f (steal %.1f %%)", lc.scenario, lc.loadBefore, lc.stealPct))
		if lc.noisy {
			noisy = append(noisy, lc.scenario)
		}
	}
	if len(parts) == 0 {
		return "not recorded"
	}
	s := "1-minute load average before each scenario: " + strings.Join(parts, ", ") + fmt.Sprintf(" (%d cores). ", runtime.NumCPU())
	if len(noisy) == 0 {
		return s + "Every scenario started on a quiet machine (load below the core count)."
	}
	return s + fmt.Sprintf("**Noisy: %s started while the load stayed at or above the core count after waiting %s; "+
		"their figures are marked (noisy) and are not results.**", strings.Join(noisy, ", "), r.env.calmWait)
}
