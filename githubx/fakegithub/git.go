package fakegithub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// zeroSHA is git's null object id: "no ref" in update-ref and push events.
const zeroSHA = "0000000000000000000000000000000000000000"

// gitTimeout bounds one git process.
const gitTimeout = 60 * time.Second

// gitDir runs git commands against one bare repository. It holds no state
// besides the path, so it is safe for concurrent use; callers serialize
// writes that must be atomic.
type gitDir struct {
	path string
}

// gitResult is the outcome of one git process.
type gitResult struct {
	stdout string
	stderr string
	code   int // exit code; 0 on success
}

// baseEnv isolates git from the machine's and user's configuration.
func baseEnv() []string {
	env := make([]string, 0, len(os.Environ())+4)
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
	)
}

// exec runs git with args; a non-zero exit is reported in the result, not
// as an error. Errors are failures to run git at all.
func (g *gitDir) exec(stdin string, env []string, args ...string) (gitResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	full := append([]string{"-C", g.path}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(baseEnv(), env...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return gitResult{stdout: out.String(), stderr: errb.String()}, nil
	case errors.As(err, &exitErr) && ctx.Err() == nil:
		return gitResult{stdout: out.String(), stderr: errb.String(), code: exitErr.ExitCode()}, nil
	default:
		return gitResult{}, fmt.Errorf("failed to run git %s: %w (%s)", args[0], err, strings.TrimSpace(errb.String()))
	}
}

// run runs git and fails on a non-zero exit, returning trimmed stdout.
func (g *gitDir) run(stdin string, env []string, args ...string) (string, error) {
	res, err := g.exec(stdin, env, args...)
	if err != nil {
		return "", err
	}
	if res.code != 0 {
		return "", fmt.Errorf("failed to run git %s: exit %d (%s)", strings.Join(args, " "), res.code, strings.TrimSpace(res.stderr))
	}
	return strings.TrimSpace(res.stdout), nil
}

// initBare creates the bare repository with "main" as its default branch.
func initBare(path string) (*gitDir, error) {
	if err := os.MkdirAll(path, 0o750); err != nil {
		return nil, fmt.Errorf("failed to create repository dir: %w", err)
	}
	g := &gitDir{path: path}
	if _, err := g.run("", nil, "init", "--bare", "-q", "-b", "main"); err != nil {
		return nil, err
	}
	if _, err := g.run("", nil, "config", "gc.auto", "0"); err != nil {
		return nil, err
	}
	return g, nil
}

// isHex reports whether s is a non-empty lower- or upper-case hex string.
func isHex(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
