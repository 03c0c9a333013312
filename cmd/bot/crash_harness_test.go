//go:build unix

package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/queue/crashpoint"
	"github.com/mergequeue/mq/queue/sqlite/sqlitetest"
)

// The crash harness runs the real `bot serve` binary as a subprocess
// against a fake GitHub in the test process, over loopback, on one SQLite
// file and one port for its whole life. It kills the process with SIGKILL
// (or lets a crash point do it) and restarts it as a supervisor (systemd,
// Kubernetes) would, then checks what the queue left on GitHub and in its
// database (crash_invariants_test.go).
//
// Every wait is a condition polled under a bound of its own; the sleeps
// are polling intervals and a supervisor's restart backoff, never a wait
// for an outcome.

const (
	crashWait       = 90 * time.Second  // one wait for a condition
	crashIdleWait   = 240 * time.Second // the wait for a whole queue to drain
	crashRequest    = 30 * time.Second  // one HTTP request to the bot
	crashStopWait   = 30 * time.Second  // a graceful stop (SIGTERM)
	crashPoll       = 25 * time.Millisecond
	crashReconcile  = time.Second // engine.reconcile_interval of the bot
	crashLogTail    = 150         // log lines shown when a test fails
	crashRepoOwner  = "acme"
	crashRepoName   = "widgets"
	crashBranch     = "main"
	crashAuthor     = "dev"   // opens the PRs
	crashCommenter  = "alice" // has write permission: comments and labels
	crashEnqueueTag = "merge-queue"
)

// bot is the binary under test, built once per test binary.
var bot struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bot.dir != "" {
		_ = os.RemoveAll(bot.dir)
	}
	os.Exit(code)
}

// botBinary builds cmd/bot (without -race, whatever the tests use) into a
// temporary directory the first time it is called; the Go build cache
// makes it cheap after the first run on a machine.
func botBinary(t testing.TB) string {
	t.Helper()
	bot.once.Do(func() {
		dir, err := os.MkdirTemp("", "mq-crash-bot-")
		if err != nil {
			bot.err = fmt.Errorf("failed to create the build directory: %w", err)
			return
		}
		bot.dir = dir
		goTool, err := exec.LookPath("go")
		if err != nil {
			bot.err = fmt.Errorf("failed to find the go command: %w", err)
			return
		}
		path := filepath.Join(dir, "bot")
		out, err := exec.Command(goTool, "build", "-o", path, ".").CombinedOutput()
		if err != nil {
			bot.err = fmt.Errorf("failed to build the bot: %w\n%s", err, out)
			return
		}
		bot.path = path
	})
	if bot.err != nil {
		t.Fatal(bot.err)
	}
	return bot.path
}

// crashOptions configure a crash harness.
type crashOptions struct {
	// Crashpoint is MQ_CRASHPOINT for the first process; after a process
	// dies at a crash point the next ones start without it.
	Crashpoint string
}

// crashHarness is one fake GitHub, one database and the bot processes run
// on them, one at a time, supervised.
type crashHarness struct {
	t       *testing.T
	fake    *fakegithub.Server
	dir     string
	cfgPath string
	dbPath  string
	logPath string
	addr    string // the bot's host:port, the same across restarts
	token   string // REST API token
	client  *http.Client

	mu         sync.Mutex
	proc       *botProc // nil between a death and the restart
	crashEnv   string   // MQ_CRASHPOINT of the next start
	exits      []botExit
	starts     int
	kills      int // SIGKILLs sent by the harness
	stopping   bool
	supervised chan struct{} // closed when the supervisor returns

	// dbURL is the PostgreSQL schema of replicas (failover tests); empty
	// for the SQLite file of one process.
	dbURL string
	// stopHook, if set, stops the bot's processes instead of stop's own
	// supervision (failover tests run several).
	stopHook func() error
}

// botProc is one bot process.
type botProc struct {
	n       int // 1-based start number
	cmd     *exec.Cmd
	started time.Time
	logFrom int64 // offset of its first log line in the log file
	done    chan struct{}
	err     error // from Wait, valid once done is closed

	mu        sync.Mutex
	byHarness bool // the harness sent the fatal signal
}

// botExit is how one bot process ended.
type botExit struct {
	Start     int
	Signal    syscall.Signal // 0 when the process exited
	Code      int            // exit code when it exited
	ByHarness bool           // killed or stopped by the harness
	// Crashpoint is "name hit N" when a crash point killed it.
	Crashpoint string
	Uptime     time.Duration
}

func (e botExit) String() string {
	how := fmt.Sprintf("exit %d", e.Code)
	if e.Signal != 0 {
		how = "signal " + e.Signal.String()
	}
	switch {
	case e.Crashpoint != "":
		how += " at crash point " + e.Crashpoint
	case e.ByHarness:
		how += " (sent by the harness)"
	}
	return fmt.Sprintf("process %d: %s after %v", e.Start, how, e.Uptime.Round(time.Millisecond))
}

// newCrashHarness starts a fake GitHub with acme/widgets (main requires
// ci/test; alice may write), writes the bot's configuration, creates an
// API token with `bot token create`, starts the bot under supervision and
// waits until it is ready. Cleanup stops everything and, when the test
// failed, shows the end of the bot's log.
func newCrashHarness(t *testing.T, opts crashOptions) *crashHarness {
	t.Helper()
	binary := botBinary(t)
	dir := t.TempDir()
	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		t.Fatal(err)
	}
	addr, err := freeLoopbackAddr()
	if err != nil {
		t.Fatal(err)
	}
	h := &crashHarness{
		t: t, dir: dir, addr: addr, crashEnv: opts.Crashpoint,
		cfgPath: filepath.Join(dir, "config.yml"), dbPath: filepath.Join(dir, "mq.db"), logPath: filepath.Join(dir, "bot.log"),
		client: &http.Client{Timeout: crashRequest},
	}
	fake, err := fakegithub.New(fakegithub.Options{Dir: filepath.Join(dir, "git"), WebhookSecret: hex.EncodeToString(secret),
		WebhookURL: "http://" + addr + "/api/github/hook"})
	if err != nil {
		t.Fatalf("failed to start the fake GitHub: %v", err)
	}
	h.fake = fake
	t.Cleanup(fake.Close)
	if err := fake.CreateRepo(crashRepoOwner, crashRepoName, map[string]string{"README.md": "widgets\n"}); err != nil {
		t.Fatalf("failed to create the repository: %v", err)
	}
	if err := fake.SetRequiredChecks(crashRepoOwner, crashRepoName, crashBranch, []string{"ci/test"}); err != nil {
		t.Fatalf("failed to protect %s: %v", crashBranch, err)
	}
	if err := fake.SetPermission(crashRepoOwner, crashRepoName, crashCommenter, "write"); err != nil {
		t.Fatalf("failed to grant %s write: %v", crashCommenter, err)
	}
	if err := h.writeConfig(hex.EncodeToString(secret)); err != nil {
		t.Fatal(err)
	}
	sqlitetest.CopyTo(t, h.dbPath) // migrated already: the bot opens it as it would a file of a previous run
	h.token = createToken(t, binary, "--db", h.dbPath, "--name", "crash-harness")

	t.Cleanup(func() {
		if err := h.stop(); err != nil {
			t.Errorf("failed to stop the bot: %v", err)
		}
		if t.Failed() || os.Getenv("MQ_TEST_LOG") != "" {
			h.showLog()
		}
	})
	h.mu.Lock()
	err = h.spawnLocked()
	h.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	h.supervised = make(chan struct{})
	go h.supervise()
	h.waitReady()
	return h
}

// writeConfig writes the bot's configuration: the fake's URLs and App
// credentials, the webhook secret, the database, a 1 s reconcile interval,
// JSON logs at $MQ_TEST_LOG_LEVEL (default info).
func (h *crashHarness) writeConfig(secret string) error {
	level := os.Getenv("MQ_TEST_LOG_LEVEL")
	if level == "" {
		level = "info"
	}
	keyPath := filepath.Join(h.dir, "app-key.pem")
	if err := os.WriteFile(keyPath, h.fake.AppPrivateKeyPEM(), 0o600); err != nil {
		return fmt.Errorf("failed to write the App key: %w", err)
	}
	cfg := fmt.Sprintf(`server:
  address: %[1]q
  public_url: "http://%[1]s"
github:
  web_url: %[2]q
  v3_api_url: "%[2]s/"
  v4_api_url: "%[2]s/graphql"
  host: "github.com"
  app:
    integration_id: %[3]d
    webhook_secret: %[4]q
    private_key_path: %[5]q
database:
  path: %[6]q
logging:
  level: %[8]q
  format: "json"
engine:
  reconcile_interval: %[7]q
`, h.addr, h.fake.URL(), h.fake.AppID(), secret, keyPath, h.dbPath, crashReconcile.String(), level)
	if err := os.WriteFile(h.cfgPath, []byte(cfg), 0o600); err != nil {
		return fmt.Errorf("failed to write the configuration: %w", err)
	}
	return nil
}

// spawnLocked starts a bot process with the current MQ_CRASHPOINT. Caller
// holds h.mu.
func (h *crashHarness) spawnLocked() error {
	h.starts++
	f, err := os.OpenFile(h.logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("failed to open the bot log: %w", err)
	}
	defer f.Close()
	fmt.Fprintf(f, "=== harness: start %d, %s=%q, %s ===\n", h.starts, crashpoint.Env, h.crashEnv, time.Now().Format(time.RFC3339Nano))
	from, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("failed to read the bot log offset: %w", err)
	}
	cmd := exec.Command(botBinary(h.t), "serve", "--config", h.cfgPath)
	cmd.Env = append(envWithout(os.Environ(), "MQ_"), crashpoint.Env+"="+h.crashEnv)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("failed to start the bot: %w", err)
	}
	p := &botProc{n: h.starts, cmd: cmd, started: time.Now(), logFrom: from, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	h.proc = p
	return nil
}

// supervise restarts the bot whenever it ends, until stop: at once after a
// kill, with a backoff (0.2 s doubling to 5 s) while it keeps failing on
// its own (e.g. it cannot reach GitHub at start-up). A process that died
// at a crash point is followed by ones without MQ_CRASHPOINT.
func (h *crashHarness) supervise() {
	defer close(h.supervised)
	backoff := time.Duration(0)
	for {
		h.mu.Lock()
		p := h.proc
		h.mu.Unlock()
		<-p.done
		exit := h.classify(p)
		h.mu.Lock()
		h.exits = append(h.exits, exit)
		h.proc = nil
		if exit.Crashpoint != "" {
			h.crashEnv = ""
		}
		stopping := h.stopping
		h.mu.Unlock()
		if stopping {
			return
		}
		h.t.Logf("bot %v; restarting", exit)
		switch {
		case exit.ByHarness || exit.Crashpoint != "":
			backoff = 0
		case backoff == 0:
			backoff = 200 * time.Millisecond
		default:
			backoff = min(2*backoff, 5*time.Second)
		}
		time.Sleep(backoff) // a supervisor's restart delay, not a wait for an outcome
		h.mu.Lock()
		if h.stopping {
			h.mu.Unlock()
			return
		}
		err := h.spawnLocked()
		h.mu.Unlock()
		if err != nil {
			h.t.Errorf("supervisor: %v", err)
			return
		}
	}
}

// crashLine is what package crashpoint writes before killing the process.
var crashLine = regexp.MustCompile(`crashpoint: (\S+ hit \d+): killing the process`)

// classify tells how p ended, from its wait status and its log.
func (h *crashHarness) classify(p *botProc) botExit {
	e := botExit{Start: p.n, Uptime: time.Since(p.started)}
	p.mu.Lock()
	e.ByHarness = p.byHarness
	p.mu.Unlock()
	if st := p.cmd.ProcessState; st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Signal = ws.Signal()
		} else {
			e.Code = st.ExitCode()
		}
	}
	if f, err := os.Open(h.logPath); err == nil {
		defer f.Close()
		if _, err := f.Seek(p.logFrom, io.SeekStart); err == nil {
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 64<<10), 4<<20)
			for sc.Scan() {
				line := sc.Text()
				if strings.HasPrefix(line, "=== harness: start ") {
					break
				}
				if m := crashLine.FindStringSubmatch(line); m != nil {
					e.Crashpoint = m[1]
				}
			}
		}
	}
	return e
}

// kill sends SIGKILL to the running bot (as `kill -9`) and waits until it
// is gone; the supervisor restarts it. It reports false when no process
// was running (between a death and its restart).
func (h *crashHarness) kill() bool {
	h.mu.Lock()
	p := h.proc
	if p != nil {
		h.kills++
	}
	h.mu.Unlock()
	if p == nil {
		return false
	}
	p.mu.Lock()
	p.byHarness = true
	p.mu.Unlock()
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(crashWait):
		h.t.Errorf("bot process %d still running %v after SIGKILL", p.n, crashWait)
	}
	return true
}

// restart kills the bot and waits until the process the supervisor starts
// in its place is ready.
func (h *crashHarness) restart() {
	h.t.Helper()
	if !h.kill() {
		h.t.Logf("restart: no process was running")
	}
	h.waitReady()
}

// stop ends supervision and stops the bot gracefully (SIGTERM); it is an
// error when the process does not exit 0 within crashStopWait (it is then
// killed). Calling stop again does nothing.
func (h *crashHarness) stop() error {
	h.mu.Lock()
	if h.stopping {
		h.mu.Unlock()
		return nil
	}
	h.stopping = true
	p := h.proc
	hook := h.stopHook
	h.mu.Unlock()
	if hook != nil {
		return hook()
	}
	var err error
	if p != nil {
		p.mu.Lock()
		p.byHarness = true
		p.mu.Unlock()
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
			if p.err != nil {
				err = fmt.Errorf("bot process %d did not stop cleanly on SIGTERM: %w", p.n, p.err)
			}
		case <-time.After(crashStopWait):
			_ = p.cmd.Process.Kill()
			<-p.done
			err = fmt.Errorf("bot process %d ignored SIGTERM for %v and was killed", p.n, crashStopWait)
		}
	}
	if h.supervised != nil {
		<-h.supervised
	}
	return err
}

// exitsSoFar returns how every process that ended so far ended.
func (h *crashHarness) exitsSoFar() []botExit {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]botExit(nil), h.exits...)
}

// counts returns how many processes were started and killed by the harness.
func (h *crashHarness) counts() (starts, kills int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.starts, h.kills
}

// ready reports whether the bot answers /readyz with 200.
func (h *crashHarness) ready() bool {
	resp, err := h.client.Get("http://" + h.addr + "/readyz")
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// waitReady waits until a bot process answers /readyz.
func (h *crashHarness) waitReady() {
	h.t.Helper()
	h.waitFor("the bot to be ready", crashWait, h.ready, func() string {
		return fmt.Sprintf("exits so far: %v", h.exitsSoFar())
	})
}

// waitFor polls cond every crashPoll until it holds, failing the test
// after bound.
func (h *crashHarness) waitFor(what string, bound time.Duration, cond func() bool, explain func() string) {
	h.t.Helper()
	if err := pollUntil(bound, cond); err != nil {
		msg := ""
		if explain != nil {
			msg = "; " + explain()
		}
		h.t.Fatalf("timed out after %v waiting for %s%s", bound, what, msg)
	}
}

// pollUntil polls cond every crashPoll until it holds or bound passes.
func pollUntil(bound time.Duration, cond func() bool) error {
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			return errors.New("deadline passed")
		}
		time.Sleep(crashPoll) // polling interval, not a wait for an outcome
	}
	return nil
}

// showLog logs the end of the bot's log (all of it with MQ_TEST_LOG set).
func (h *crashHarness) showLog() {
	data, err := os.ReadFile(h.logPath)
	if err != nil {
		h.t.Logf("no bot log: %v", err)
		return
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	from := 0
	if os.Getenv("MQ_TEST_LOG") == "" && len(lines) > crashLogTail {
		from = len(lines) - crashLogTail
	}
	h.t.Logf("bot log %s (lines %d-%d of %d):\n%s", h.logPath, from+1, len(lines), len(lines), strings.Join(lines[from:], "\n"))
}

// handedOut holds the addresses freeLoopbackAddr returned: a port is
// free again once its probe closes, before the bot binds it, and the
// kernel may offer it to the next probe (two replicas of one failover
// test were given the same port and one exited with "address in use").
var handedOut sync.Map

// freeLoopbackAddr finds a free loopback port for the bot, never one it
// returned before in this process; it stays the bot's address across
// restarts, so the fake's webhook URL stays valid.
func freeLoopbackAddr() (string, error) {
	for range 100 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", fmt.Errorf("failed to find a free port: %w", err)
		}
		addr := ln.Addr().String()
		if err := ln.Close(); err != nil {
			return "", fmt.Errorf("failed to free port %s: %w", addr, err)
		}
		if _, taken := handedOut.LoadOrStore(addr, true); !taken {
			return addr, nil
		}
	}
	return "", fmt.Errorf("failed to find a free port not handed out before")
}

// envWithout drops the variables whose name starts with prefix, so that
// the developer's MQ_* settings never reach the bot under test.
func envWithout(env []string, prefix string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, prefix) {
			out = append(out, kv)
		}
	}
	return out
}

// createToken runs binary's `token create` with args (outside the test's
// MQ_ environment) and returns the secret it prints last.
func createToken(t *testing.T, binary string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"token", "create"}, args...)...)
	cmd.Env = envWithout(os.Environ(), "MQ_")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bot token create: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}
