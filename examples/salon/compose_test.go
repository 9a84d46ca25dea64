package salon_test

import (
	"context"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/jobqdev/jobq/internal/dbtest"
	"github.com/jobqdev/jobq/internal/proctest"
)

// composeFile is the part of docker-compose.yml the tests read.
type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Build       map[string]string `yaml:"build"`
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		DependsOn   map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
		Healthcheck struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
		StopGracePeriod string   `yaml:"stop_grace_period"`
		Ports           []string `yaml:"ports"`
	} `yaml:"services"`
}

func readCompose(t *testing.T) composeFile {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docker-compose.yml"))
	require.NoError(t, err)
	var c composeFile
	require.NoError(t, yaml.Unmarshal(raw, &c))
	return c
}

// Docker cannot run here, so the Compose file's structure is checked instead: the services, the
// order they start in, and which variables each gets — the worker never the migrator's URL.
func TestComposeFileStructure(t *testing.T) {
	t.Parallel()
	c := readCompose(t)
	dash := c.Services["dashboard"]
	require.Equal(t, "Dockerfile", dash.Build["dockerfile"], "the dashboard runs the jobq image of the repository's Dockerfile")
	require.Equal(t, "jobq:dev", dash.Image)
	require.Equal(t, []string{"dashboard", "--listen", ":8090"}, dash.Command, "arguments of the image's entrypoint, jobq")
	require.Equal(t, "jobq_dashboard", userOf(t, dash.Environment["JOBQ_DASHBOARD_DATABASE_URL"]), "the dashboard reads as jobq_dashboard")
	require.Len(t, dash.Environment, 1, "the dashboard gets no other URL (no migrator, no worker)")
	require.Equal(t, []string{"127.0.0.1:8090:8090"}, dash.Ports, "the dashboard is published on the host's loopback only")
	require.Equal(t, "service_completed_successfully", dash.DependsOn["migrate"].Condition)

	for _, name := range []string{"postgres", "migrate", "worker", "dashboard"} {
		require.Contains(t, c.Services, name)
	}
	pg := c.Services["postgres"]
	require.Contains(t, strings.Join(pg.Healthcheck.Test, " "), "pg_isready", "postgres is healthy once pg_isready answers")

	migrate := c.Services["migrate"]
	require.Equal(t, "service_healthy", migrate.DependsOn["postgres"].Condition, "migrate waits for a healthy postgres")
	require.Equal(t, "examples/salon/Dockerfile", migrate.Build["dockerfile"])
	cmd := strings.Join(migrate.Command, " ")
	require.Less(t, strings.Index(cmd, "salon bootstrap"), strings.Index(cmd, "salon migrate"), "bootstrap, then the migrations")
	require.Contains(t, migrate.Environment, "JOBQ_MIGRATE_DATABASE_URL")
	require.Contains(t, migrate.Environment, "JOBQ_BOOTSTRAP_DATABASE_URL")
	require.Equal(t, "jobq_migrator", userOf(t, migrate.Environment["JOBQ_MIGRATE_DATABASE_URL"]))

	worker := c.Services["worker"]
	require.Equal(t, migrate.Image, worker.Image, "the worker runs the image migrate built")
	require.Equal(t, "service_completed_successfully", worker.DependsOn["migrate"].Condition, "the worker starts after migrate completed")
	require.Equal(t, []string{"salon", "worker"}, worker.Command)
	for _, v := range []string{"JOBQ_WORKER_DATABASE_URL", "JOBQ_WORKER_CONCURRENCY", "JOBQ_WORKER_SENTRY_DSN"} {
		require.Contains(t, worker.Environment, v)
	}
	require.Equal(t, "worker_runtime", userOf(t, worker.Environment["JOBQ_WORKER_DATABASE_URL"]))
	for name, value := range worker.Environment {
		require.NotContains(t, name, "MIGRATOR", "the worker gets no migrator variable")
		require.NotContains(t, name, "ADMIN")
		require.NotContains(t, name, "BOOTSTRAP")
		require.NotContains(t, name, "MIGRATE_")
		require.NotContains(t, value, "jobq_migrator", "%s must not carry the migrator's URL", name)
		require.NotContains(t, value, "postgres://postgres", "%s must not carry the superuser's URL", name)
	}
	require.Contains(t, strings.Join(worker.Healthcheck.Test, " "), "/readyz", "the worker is healthy once ready")
	grace, err := time.ParseDuration(worker.StopGracePeriod)
	require.NoError(t, err)
	require.Greater(t, grace, 25*time.Second, "Compose waits longer than the worker's shutdown grace")

	dockerfile, err := os.ReadFile("Dockerfile")
	require.NoError(t, err)
	// The salon is its own module: the image copies its go.mod beside the root module's and builds
	// it in its folder.
	require.Contains(t, string(dockerfile), "COPY examples/salon/go.mod examples/salon/go.sum ./examples/salon/")
	require.Contains(t, string(dockerfile), "go build -C examples/salon -trimpath -o /out/salon ./cmd/salon")
}

// The CI step of the Compose file: the commands its containers run, read from the file, run
// here on a local cluster in place of the postgres service (its host replaced, nothing else):
// migrate's command with migrate's environment, then worker's command with worker's
// environment, the worker's healthcheck URL, and a job through the worker.
func TestComposeCommandsRunOnTheLocalCluster(t *testing.T) {
	t.Parallel()
	c := readCompose(t)
	cluster := dbtest.StartCluster(t)
	host := "127.0.0.1:" + strconv.Itoa(cluster.Port)
	dbtest.CreateDatabase(t, cluster, "salon")

	// PATH finds the image's commands: salon (and sh).
	bin := t.TempDir()
	require.NoError(t, os.Symlink(salonBinary(t), filepath.Join(bin, "salon")))
	env := func(service string, extra ...string) []string {
		out := append(proctest.CleanEnv(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		for k, v := range c.Services[service].Environment {
			v = strings.ReplaceAll(v, "postgres:5432", host)
			v = os.Expand(v, func(name string) string { // ${NAME:-default}: the default
				if _, def, ok := strings.Cut(name, ":-"); ok {
					return def
				}
				return ""
			})
			out = append(out, k+"="+v)
		}
		return append(out, extra...)
	}

	migrate := c.Services["migrate"]
	cmd := exec.Command(migrate.Command[0], migrate.Command[1:]...)
	cmd.Env = env("migrate")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "migrate's command:\n%s", out)
	require.Contains(t, string(out), "salon migrate: applied")

	sink := startSink(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	healthAddr := ln.Addr().String()
	ln.Close()
	worker := c.Services["worker"]
	w := proctest.Start(t, filepath.Join(bin, worker.Command[0]), env("worker", "SMTP_ADDR="+sink.Addr(), "JOBQ_WORKER_HEALTH_ADDR="+healthAddr),
		worker.Command[1:]...)
	w.Addr = healthAddr
	check := worker.Healthcheck.Test[len(worker.Healthcheck.Test)-1]
	u, err := url.Parse(check)
	require.NoError(t, err)
	proctest.WaitUntil(t, time.Minute, "the healthcheck's "+u.Path+" answers 200", func() bool {
		code, _ := w.Get(u.Path)
		return code == 200
	})
	w.WaitStarted()

	// The dashboard service: the jobq image's entrypoint (jobq) with the service's command, with
	// its environment, read-only as jobq_dashboard.
	dash := c.Services["dashboard"]
	require.NoError(t, os.Symlink(jobqBinary(t), filepath.Join(bin, "jobq")))
	dashAddr := freeAddr(t)
	args := append([]string{}, dash.Command...)
	for i := range args {
		if args[i] == "--listen" {
			args[i+1] = dashAddr
		}
	}
	d := proctest.Start(t, filepath.Join(bin, "jobq"), env("dashboard"), args...)
	d.Addr = dashAddr
	dashCheck, err := url.Parse(dash.Healthcheck.Test[len(dash.Healthcheck.Test)-1])
	require.NoError(t, err)
	proctest.WaitUntil(t, time.Minute, "the dashboard's healthcheck answers 200", func() bool {
		code, _ := d.Get(dashCheck.Path)
		return code == 200
	})
	code, body := d.Get("/")
	require.Equal(t, 200, code)
	require.Contains(t, body, "read-only", "the dashboard serves its overview, read-only")

	admin := dbtest.Connect(t, cluster.URL("postgres", "salon"))
	var id int64
	require.NoError(t, admin.QueryRow(context.Background(), `SELECT jobq.enqueue('ping')`).Scan(&id))
	proctest.WaitUntil(t, time.Minute, "the ping ran", func() bool {
		var n int
		require.NoError(t, admin.QueryRow(context.Background(), `SELECT count(*) FROM jobq.job_history WHERE id = $1 AND state = 'succeeded'`, id).Scan(&n))
		return n == 1
	})
}

// jobqBinary builds the jobq command of the repository (the image's second command).
func jobqBinary(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "jobq")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-C", filepath.Join("..", ".."), "-o", out, "./cmd/jobq")
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build ./cmd/jobq:\n%s", b)
	return out
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

func userOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u.User.Username()
}
