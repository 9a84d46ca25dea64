//go:build linux

package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/jobqdev/jobq"
)

// Fifty commands started at once, programs through the gate and shell commands through their
// shells, all run, and none leaves this process holding a copy of the reaper's pipe: each gate's
// copy is closed once its command runs (a leaked copy would keep the reaper from seeing the
// worker's death).
func TestFiftyGatedCommandsAtOnceLeaveNoCopyOfTheReapersPipe(t *testing.T) {
	program, err := Command(CommandConfig{Argv: []string{"/bin/true"}})
	require.NoError(t, err)
	shell, err := Command(CommandConfig{Argv: []string{"true"}, Shell: true})
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := range 50 {
		h := program
		if i%2 == 1 {
			h = shell
		}
		wg.Go(func() {
			store := "2d0f3d1e-0000-4000-8000-000000000001"
			errs <- h.Work(context.Background(), &jobq.Job{ID: int64(i + 1), Task: "cmd", Queue: "default",
				Payload: []byte(`{}`), Attempt: 1, MaxAttempts: 3, StoreID: &store})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	reaper.mu.Lock()
	w := reaper.w
	reaper.mu.Unlock()
	require.NotNil(t, w, "the reaper runs")
	var st syscall.Stat_t
	rc, err := w.SyscallConn()
	require.NoError(t, err)
	require.NoError(t, rc.Control(func(fd uintptr) { require.NoError(t, syscall.Fstat(int(fd), &st)) }))
	pipe := fmt.Sprintf("pipe:[%d]", st.Ino)
	entries, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	held := 0
	for _, e := range entries {
		if link, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && link == pipe {
			held++
		}
	}
	require.Equal(t, 1, held, "only the runner's own end of the reaper's pipe (%s) is open", pipe)
}
