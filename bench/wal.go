package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// walGOMAXPROCS matches the -N suffix go test gives a benchmark's name.
var walGOMAXPROCS = regexp.MustCompile(`-[0-9]+$`)

// walBenchFile is the Go benchmark of the WAL-vs-NOTIFY wake-up, written in the main module.
const walBenchFile = "runner/wal_bench_test.go"

// scenarioWAL (not part of a default run: name it, bench/run wal) runs the main module's wake-up benchmark (BenchmarkWakeup…, 200 concurrent
// single-job enqueuers in NOTIFY mode against WAL mode) when its file exists, against a
// migrated template database of the bench cluster, and puts its result lines into the report.
func scenarioWAL(ctx context.Context, env *environment, rep *report) error {
	if _, err := os.Stat(filepath.Join(env.root, walBenchFile)); err != nil {
		rep.mark("wal/skipped", "wal", "wake-up: NOTIFY vs WAL (go test -bench Wakeup ./runner/)", "",
			"skipped: "+walBenchFile+" does not exist yet")
		return errSkipped
	}
	// The tests clone this database (internal/dbtest): nothing else may be connected to it.
	const tmpl = "jobq_wal_template"
	env.progress("installing jobq in database %s (template of the benchmark's databases)", tmpl)
	if err := env.cl.installJobq(ctx, env, tmpl); err != nil {
		return err
	}
	defer func() { _ = env.cl.dropDatabase(context.WithoutCancel(ctx), tmpl) }()

	// BenchmarkWakeup runs for a fixed duration whatever b.N is (JOBQ_WAKEUP_BENCH_DURATION,
	// 10 s by default): one iteration per -count is all it needs.
	benchtime := os.Getenv("BENCH_WAL_BENCHTIME")
	if benchtime == "" {
		benchtime = "1x"
	}
	extra := []string{}
	if os.Getenv("JOBQ_WAKEUP_BENCH_DURATION") == "" && env.quick {
		extra = append(extra, "JOBQ_WAKEUP_BENCH_DURATION=3s")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	count := fmt.Sprint(env.runs)
	args := []string{"test", "-run", "^$", "-bench", "Wakeup", "-benchtime=" + benchtime, "-count=" + count, "-timeout", "30m", "./runner/"}
	env.progress("wal: go %s", strings.Join(args, " "))
	cctx, cancel := context.WithTimeout(ctx, 35*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, goBin, args...)
	cmd.Dir = env.root
	url := env.cl.url("postgres", tmpl)
	cmd.Env = append(append(os.Environ(), extra...), "JOBQ_TEST_DATABASE_URL="+url, "DATABASE_URL_ADMIN="+url,
		"WORKER_DATABASE_URL="+env.cl.url("worker_runtime", tmpl), "DATABASE_URL_MIGRATOR="+env.cl.url("jobq_migrator", tmpl))
	out, err := cmd.CombinedOutput()
	if werr := os.WriteFile(filepath.Join(env.logDir, "wal-bench.log"), out, 0o644); werr != nil {
		return fmt.Errorf("wal log: %w", werr)
	}
	if err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, lastChars(string(out), 3000))
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "Benchmark") {
			lines = append(lines, strings.Join(strings.Fields(l), " "))
			f := strings.Fields(l)
			// "BenchmarkWakeup/notify-2  1  123 ns/op  4.5 commits/s ...": the mode is notify or
			// wal; every value/unit pair but ns/op (the benchmark runs for a fixed time, so it
			// says nothing) is a row.
			mode := strings.TrimPrefix(walGOMAXPROCS.ReplaceAllString(f[0], ""), "BenchmarkWakeup/")
			for i := 2; i+1 < len(f); i += 2 {
				var v float64
				if _, err := fmt.Sscan(f[i], &v); err != nil {
					continue
				}
				unit := f[i+1]
				if unit == "ns/op" {
					continue
				}
				rep.add("wake/"+mode+"/"+unit, "wal", fmt.Sprintf("wake-up, 200 concurrent single-job enqueuers, %s mode (go test -bench Wakeup ./runner/)", strings.ToUpper(mode)), unit, v)
			}
		}
	}
	if len(lines) == 0 {
		return fmt.Errorf("go test -bench Wakeup printed no benchmark line:\n%s", lastChars(string(out), 3000))
	}
	rep.section("WAL vs NOTIFY wake-up (go test output)", "```\n"+strings.Join(lines, "\n")+"\n```")
	return nil
}
