package githubx

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mergequeue/mq/queue"
)

// gitRun is how one git process runs.
type gitRun struct {
	dir     string // the repository (-C); "" = none
	timeout time.Duration
	stdin   string
	env     []string // added to the cleaned environment
	token   string   // sent as HTTP Basic credentials (http.extraHeader), never in argv or on disk
}

// gitExitError is a git process that ran and exited non-zero.
type gitExitError struct {
	args   string
	code   int
	stdout string
	stderr string
}

func (e *gitExitError) Error() string {
	return fmt.Sprintf("git %s: exit %d: %s", e.args, e.code, strings.TrimSpace(e.stderr))
}

// gitEnv isolates git from the machine's and user's configuration and
// from any GIT_* variable of the process, and keeps it from prompting.
func gitEnv() []string {
	env := make([]string, 0, len(os.Environ())+8)
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_ASKPASS=",
		"SSH_ASKPASS=",
	)
}

// authEnv passes the token to git as configuration in the environment
// (GIT_CONFIG_COUNT): it is in no argument list (ps shows those to every
// user; a process's environment only to its owner) and in no file.
// Redirects are not followed, so the header goes to the remote only.
func authEnv(token string) []string {
	basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
	return []string{
		"GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=http.extraHeader",
		"GIT_CONFIG_VALUE_0=Authorization: Basic " + basic,
		"GIT_CONFIG_KEY_1=http.followRedirects",
		"GIT_CONFIG_VALUE_1=false",
	}
}

// runGit runs git with args and returns its standard output. A non-zero
// exit is a *gitExitError; a process killed by the timeout is
// queue.ErrTransient; a cancelled ctx is ctx's error. On unix, a git cut
// off by the timeout or ctx is killed with every process it started.
func runGit(ctx context.Context, r gitRun, args ...string) (string, error) {
	timeout := r.timeout
	if timeout <= 0 {
		timeout = DefaultGitTimeout
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	full := args
	if r.dir != "" {
		full = append([]string{"-C", r.dir}, args...)
	}
	cmd := exec.CommandContext(pctx, "git", full...)
	cmd.Env = append(gitEnv(), r.env...)
	if r.token != "" {
		cmd.Env = append(cmd.Env, authEnv(r.token)...)
	}
	if r.stdin != "" {
		cmd.Stdin = strings.NewReader(r.stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	ownGroup(cmd) // a cut-off git takes its helpers with it
	err := cmd.Run()
	if err == nil {
		return out.String(), nil
	}
	name := args[0]
	if ctx.Err() != nil {
		return "", fmt.Errorf("failed to run git %s: %w", name, ctx.Err())
	}
	if pctx.Err() != nil {
		return "", fmt.Errorf("failed to run git %s: %w: no answer within %v", name, queue.ErrTransient, timeout)
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return out.String(), &gitExitError{args: name, code: exitErr.ExitCode(), stdout: out.String(), stderr: errb.String()}
	}
	return "", fmt.Errorf("failed to run git %s: %w", name, err)
}

// httpStatusRE finds the status curl reports for a failed request.
var httpStatusRE = regexp.MustCompile(`returned error: (\d{3})`)

// errGitUnauthorized is a 401 from the remote: the token expired or was
// revoked.
var errGitUnauthorized = errors.New("GitHub refused the installation token")

// classifyTransport maps a failed fetch or push that did not get to the
// point of a per-ref answer: 401 is errGitUnauthorized (a new token is
// minted next time, so it is transient too), another 4xx (a missing
// repository, a permission the App lacks) is permanent, anything else (a
// 5xx, 429, a timeout, a dropped or refused connection) is
// queue.ErrTransient.
func classifyTransport(op string, err error) error {
	var ee *gitExitError
	if !errors.As(err, &ee) {
		return err // already classified by runGit
	}
	msg := strings.TrimSpace(ee.stderr)
	if m := httpStatusRE.FindStringSubmatch(msg); m != nil {
		status, _ := strconv.Atoi(m[1])
		switch {
		case status == 401:
			return fmt.Errorf("failed to %s: %w: %w: %s", op, queue.ErrTransient, errGitUnauthorized, msg)
		case status >= 400 && status < 500 && status != 408 && status != 429:
			return fmt.Errorf("failed to %s: HTTP %d: %s", op, status, msg)
		}
	}
	return fmt.Errorf("failed to %s: %w: %s", op, queue.ErrTransient, msg)
}
