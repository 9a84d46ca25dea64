package dashboard_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// screenshotNames are the screenshots docs/dashboard.md and the README show that
// TestDashboardInABrowser takes.
var screenshotNames = []string{"overview", "overview-phone", "signin", "jobs", "job", "dead", "confirm", "workers", "schedules", "settings", "audit", "staff-jobs"}

// pageScreenshots are those the tests of one page take: TestTheJobPageShowsItsBatchsProgress
// (batch), TestTheJobPageDrawsItsWorkflow (workflow) and TestTheOverviewSaysWhenItsLiveCountsWereKeptByMaintain
// (overview-kept-counts).
var pageScreenshots = []string{"batch", "workflow", "overview-kept-counts"}

// keepPageScreenshot writes the screenshot b took under name to docs/screenshots/name.png when
// JOBQ_UPDATE_SCREENSHOTS is set (make screenshots).
func keepPageScreenshot(t *testing.T, b *browser, name string) {
	t.Helper()
	if os.Getenv("JOBQ_UPDATE_SCREENSHOTS") == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(screenshotDir, name+".png"), b.shots[name], 0o644); err != nil {
		t.Fatal(err)
	}
}

// assetFingerprint is a sha256 over the dashboard's templates and static files, the code the
// screenshots show.
func assetFingerprint(t *testing.T) string {
	t.Helper()
	var names []string
	for _, dir := range []string{"templates", "static"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				names = append(names, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		body, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		h.Write([]byte(filepath.ToSlash(n) + "\n"))
		h.Write(body)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestScreenshotsAreFromTheCurrentTemplates fails when the templates or assets changed after the
// screenshots in docs/screenshots were taken: regenerate them with `make screenshots`.
func TestScreenshotsAreFromTheCurrentTemplates(t *testing.T) {
	recorded, err := os.ReadFile(filepath.Join(screenshotDir, "FINGERPRINT"))
	if err != nil {
		t.Fatalf("docs/screenshots/FINGERPRINT: %v (run make screenshots)", err)
	}
	if got := assetFingerprint(t); strings.TrimSpace(string(recorded)) != got {
		t.Fatalf("the dashboard's templates or assets changed since the screenshots in docs/screenshots were taken: run make screenshots and commit them")
	}
	for _, name := range append(slices.Clone(screenshotNames), pageScreenshots...) {
		info, err := os.Stat(filepath.Join(screenshotDir, name+".png"))
		if err != nil || info.Size() < 5000 {
			t.Errorf("docs/screenshots/%s.png is missing or empty: run make screenshots", name)
		}
	}
}
