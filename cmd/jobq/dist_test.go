package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq/migrate"
)

// repoRoot is the checkout this package sits in.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	return root
}

// TestDist checks what make dist wrote (make test runs it before the Go tests; JOBQ_DIST names
// another folder): the SQL install and an archive per platform listed in SHA256SUMS with their
// true hashes, each archive holding
// the README and a static jobq binary of its OS and architecture, built with -trimpath (the
// checkout's path appears nowhere in it) and stamped: the binary of this machine's platform
// prints the archive's version and the checkout's commit for --version and jobq version.
func TestDist(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	dir := os.Getenv("JOBQ_DIST")
	if dir == "" {
		dir = filepath.Join(root, "dist")
	}
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	require.NoError(t, err, "no release in %s: run make dist (make test does)", dir)

	want := map[string][2]string{ // platform -> (GOOS, GOARCH)
		"linux_amd64": {"linux", "amd64"}, "linux_arm64": {"linux", "arm64"},
		"darwin_amd64": {"darwin", "amd64"}, "darwin_arm64": {"darwin", "arm64"},
	}
	name := regexp.MustCompile(`^jobq_(v[0-9A-Za-z.+\-]+)_(linux|darwin)_(amd64|arm64)\.tar\.gz$`)
	seen := map[string]bool{}
	version := ""
	script := ""
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		sum, file, ok := strings.Cut(sc.Text(), "  ")
		require.True(t, ok, "a line of SHA256SUMS is not 'sum  file': %q", sc.Text())
		if strings.HasPrefix(file, "jobq--") {
			script = checkSum(t, dir, file, sum)
			require.Equal(t, "jobq--"+strings.TrimSuffix(strings.TrimPrefix(file, "jobq--"), ".sql")+".sql", file)
			continue
		}
		m := name.FindStringSubmatch(file)
		require.NotNil(t, m, "unexpected archive %q", file)
		if version == "" {
			version = m[1]
		}
		require.Equal(t, version, m[1], "every archive is of one version")
		platform := m[2] + "_" + m[3]
		seen[platform] = true

		files := untar(t, []byte(checkSum(t, dir, file, sum)))
		prefix := strings.TrimSuffix(file, ".tar.gz") + "/"
		require.Contains(t, files, prefix+"README.md", "%s holds the README", file)
		bin, ok := files[prefix+"jobq"]
		require.True(t, ok, "%s holds jobq", file)
		checkBinary(t, bin, want[platform][0], want[platform][1], root)
	}
	require.NoError(t, sc.Err())
	require.Len(t, seen, len(want), "one archive per platform: %v", seen)

	// The SQL install of the same version is this binary's migrate script, word for word (its
	// effect on a database is migrate's TestInstallScriptGivesTheSchemaMigrateUpGives).
	var b strings.Builder
	require.NoError(t, migrate.WriteInstallScript(&b, migrate.Embedded(), version))
	require.Equal(t, b.String(), script, "jobq--%s.sql is the SQL install of this checkout", version)

	// The binary of this machine's platform runs and says what it is.
	self := filepath.Join(dir, "jobq_"+version+"_"+runtime.GOOS+"_"+runtime.GOARCH, "jobq")
	out, err := exec.Command(self, "--version").CombinedOutput()
	require.NoError(t, err, "%s --version: %s", self, out)
	commit, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	require.NoError(t, err)
	require.Equal(t, "jobq "+version+" ("+strings.TrimSpace(string(commit))+")\n", string(out),
		"--version prints the stamped version and the commit it was built from")
	out, err = exec.Command(self, "version").CombinedOutput()
	require.NoError(t, err, "%s version: %s", self, out)
	require.True(t, strings.HasPrefix(string(out), "jobq "+version+"\ncommit "+strings.TrimSpace(string(commit))+"\n"), "jobq version: %s", out)
}

// checkSum reads dir/file, requires its SHA-256 to be sum, and returns its content.
func checkSum(t *testing.T, dir, file, sum string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, file))
	require.NoError(t, err)
	got := sha256.Sum256(raw)
	require.Equal(t, sum, hex.EncodeToString(got[:]), "SHA256SUMS holds the true hash of %s", file)
	return string(raw)
}

// untar reads a gzipped tar into memory: name -> content of each regular file.
func untar(t *testing.T, raw []byte) map[string][]byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		require.NoError(t, err)
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(tr)
			require.NoError(t, err)
			files[h.Name] = b
		}
	}
}

// checkBinary requires bin to be an executable of goos/goarch, statically linked, with no trace
// of the checkout's path root.
func checkBinary(t *testing.T, bin []byte, goos, goarch, root string) {
	t.Helper()
	require.False(t, bytes.Contains(bin, []byte(root)), "%s/%s: the binary holds the checkout's path (built without -trimpath)", goos, goarch)
	switch goos {
	case "linux":
		f, err := elf.NewFile(bytes.NewReader(bin))
		require.NoError(t, err, "linux/%s is an ELF file", goarch)
		machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[goarch]
		require.Equal(t, machine, f.Machine, "linux/%s is built for its architecture", goarch)
		for _, p := range f.Progs {
			require.NotEqual(t, elf.PT_INTERP, p.Type, "linux/%s is static: no program interpreter", goarch)
			require.NotEqual(t, elf.PT_DYNAMIC, p.Type, "linux/%s is static: no dynamic section", goarch)
		}
	case "darwin":
		f, err := macho.NewFile(bytes.NewReader(bin))
		require.NoError(t, err, "darwin/%s is a Mach-O file", goarch)
		cpu := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[goarch]
		require.Equal(t, cpu, f.Cpu, "darwin/%s is built for its architecture", goarch)
		require.Equal(t, macho.TypeExec, f.Type)
	}
}

// TestDockerfile checks the image recipe, since no Docker daemon runs here: a build stage that
// compiles jobq as make dist does (CGO off, -trimpath, the release stamp from build arguments)
// and a final stage that runs it as an unprivileged user with jobq as the entrypoint; and the
// Compose file's dashboard runs that image.
func TestDockerfile(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "Dockerfile"))
	require.NoError(t, err)
	text := string(raw)
	stages := regexp.MustCompile(`(?m)^FROM `).FindAllStringIndex(text, -1)
	require.Len(t, stages, 2, "a build stage and a run stage")
	build, final := text[:stages[1][0]], text[stages[1][0]:]
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-X main.releaseVersion=${VERSION}", "-X main.releaseCommit=${COMMIT}", "./cmd/jobq", "ARG VERSION", "ARG COMMIT"} {
		require.Contains(t, build, want, "the build stage")
	}
	user := regexp.MustCompile(`(?m)^USER\s+(\S+)`).FindStringSubmatch(final)
	require.NotNil(t, user, "the run stage names a user")
	require.NotContains(t, []string{"root", "0", "0:0"}, user[1], "the run stage is not root")
	require.Contains(t, final, `ENTRYPOINT ["jobq"]`)
	require.Contains(t, final, "COPY --from=build /out/jobq /usr/local/bin/jobq", "only the binary reaches the image")

	compose, err := os.ReadFile(filepath.Join(repoRoot(t), "docker-compose.yml"))
	require.NoError(t, err)
	require.Regexp(t, `(?s)dashboard:\s+build:\s+context: \.\s+dockerfile: Dockerfile\s+image: jobq:dev`, string(compose),
		"the Compose dashboard is built from this Dockerfile")
}
