//go:build unix

package githubx

import (
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own and makes its
// cancellation (the timeout, a cancelled context, a lease's write window
// ending) kill the whole group: git does a push or a fetch in helpers it
// starts (git-remote-https, send-pack, pack-objects), and killing git
// alone leaves them running, so a push cut off when its lease could pass
// on would go on and might publish a branch afterwards, unrecorded.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
