package redistest

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// sysProcAttr makes the kernel SIGKILL a server when the test binary dies without running its
// cleanups (go test -timeout, SIGKILL, os.Exit), so no server outlives its test run.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

type spawnReq struct {
	cmd *exec.Cmd
	err chan error
}

// spawner forks every server from one locked OS thread that never exits. Pdeathsig fires when the
// parent *thread* exits, and the Go runtime may end a thread while the process lives on (a goroutine
// that exits while locked to its thread), which would otherwise kill a server mid-test.
var spawner = sync.OnceValue(func() chan<- spawnReq {
	ch := make(chan spawnReq)
	go func() {
		runtime.LockOSThread()
		for req := range ch {
			req.err <- req.cmd.Start()
		}
	}()
	return ch
})

func spawn(cmd *exec.Cmd) error {
	req := spawnReq{cmd: cmd, err: make(chan error, 1)}
	spawner() <- req
	return <-req.err
}
