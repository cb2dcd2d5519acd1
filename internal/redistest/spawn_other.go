//go:build !linux

package redistest

import (
	"os/exec"
	"syscall"
)

// sysProcAttr has no parent-death signal off Linux; Cleanup still stops servers on t.Fatal and
// panics, only a killed test binary can leave one behind.
func sysProcAttr() *syscall.SysProcAttr { return nil }

func spawn(cmd *exec.Cmd) error { return cmd.Start() }
