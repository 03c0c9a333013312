//go:build unix

package main

import (
	"bytes"
	crand "crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mergequeue/mq/githubx/fakegithub"
	"github.com/mergequeue/mq/queue/postgres/pgtest"
)

// The failover tests run several real `bot serve` processes (replicas) on
// one PostgreSQL schema, behind a round-robin load balancer in the test
// process that the fake GitHub's webhooks and the REST calls go through,
// so that every replica accepts some of them. They reuse the crash
// harness's driving and invariants (its address is the load balancer's).

// failoverTakeover bounds how long the queue may go without a decision-
// maker after its holder is killed.
const failoverTakeover = 30 * time.Second

// replica is one bot process of a replica set.
type replica struct {
	n    int
	addr string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	dead atomic.Bool
	// frozen is set while the process is stopped (SIGSTOP): the load
	// balancer leaves it out, as its health check would.
	frozen atomic.Bool
	// github is the address of its own proxy to the fake GitHub, which
	// logs its requests (replicaSet.githubLog); dbApp is the
	// application_name of its database sessions.
	github string
	dbApp  string
}

// githubRequest is one request a replica sent to GitHub, as its proxy
// received it.
type githubRequest struct {
	Replica int
	Method  string
	Path    string
	At      time.Time
	// Decision marks a write only a queue's decision-maker makes
	// (isDecisionWrite).
	Decision bool
}

// replicaSet is a crash harness whose bot is several replicas.
type replicaSet struct {
	*crashHarness
	binary   string
	mu       sync.Mutex
	replicas []*replica
	lb       *http.Server
	next     atomic.Uint64

	ghMu      sync.Mutex
	githubLog []githubRequest
}

// newReplicaSet starts a fake GitHub, a load balancer and n replicas on a
// new PostgreSQL schema (skipped without MQ_TEST_POSTGRES_URL), creates an
// API token, and waits until every replica is ready.
func newReplicaSet(t *testing.T, n int) *replicaSet {
	t.Helper()
	return newReplicaSetOn(t, n, pgtest.URL(t))
}

// newReplicaSetOn is newReplicaSet on the database at dbURL.
func newReplicaSetOn(t *testing.T, n int, dbURL string) *replicaSet {
	t.Helper()
	binary := botBinary(t)
	dir := t.TempDir()
	secret := make([]byte, 16)
	if _, err := crand.Read(secret); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &crashHarness{t: t, dir: dir, addr: ln.Addr().String(), dbURL: dbURL,
		cfgPath: filepath.Join(dir, "config.yml"), logPath: filepath.Join(dir, "bot.log"),
		client: &http.Client{Timeout: crashRequest}}
	s := &replicaSet{crashHarness: h, binary: binary}
	s.lb = &http.Server{Handler: http.HandlerFunc(s.balance), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.lb.Serve(ln) }()
	t.Cleanup(func() { _ = s.lb.Close() })
	fake, err := fakegithub.New(fakegithub.Options{Dir: filepath.Join(dir, "git"), WebhookSecret: hex.EncodeToString(secret),
		WebhookURL: "http://" + h.addr + "/api/github/hook"})
	if err != nil {
		t.Fatalf("failed to start the fake GitHub: %v", err)
	}
	h.fake = fake
	t.Cleanup(fake.Close)
	if err := fake.CreateRepo(crashRepoOwner, crashRepoName, map[string]string{"README.md": "widgets\n"}); err != nil {
		t.Fatal(err)
	}
	if err := fake.SetRequiredChecks(crashRepoOwner, crashRepoName, crashBranch, []string{"ci/test"}); err != nil {
		t.Fatal(err)
	}
	if err := fake.SetPermission(crashRepoOwner, crashRepoName, crashCommenter, "write"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app-key.pem"), fake.AppPrivateKeyPEM(), 0o600); err != nil {
		t.Fatalf("failed to write the App key: %v", err)
	}
	h.stopHook = s.stopAll
	t.Cleanup(func() {
		if err := h.stop(); err != nil {
			t.Errorf("failed to stop the replicas: %v", err)
		}
		if t.Failed() || os.Getenv("MQ_TEST_LOG") != "" {
			h.showLog()
		}
	})
	for i := range n {
		addr, err := freeLoopbackAddr()
		if err != nil {
			t.Fatal(err)
		}
		cfgPath := filepath.Join(dir, fmt.Sprintf("config-%d.yml", i+1))
		if i == 0 {
			h.cfgPath = cfgPath
		}
		r := &replica{n: i + 1, addr: addr, dbApp: fmt.Sprintf("mq-replica-%d", i+1)}
		r.github = s.githubProxy(r.n)
		if err := s.writeReplicaConfig(cfgPath, r, hex.EncodeToString(secret)); err != nil {
			t.Fatal(err)
		}
		if err := s.spawn(r, cfgPath); err != nil {
			t.Fatal(err)
		}
	}
	h.token = createToken(t, binary, "--config", h.cfgPath, "--name", "failover-harness")
	for _, r := range s.replicas {
		h.waitFor(fmt.Sprintf("replica %d to be ready", r.n), crashWait, func() bool {
			if r.dead.Load() {
				t.Fatalf("replica %d exited at start: %v", r.n, r.err)
			}
			return s.readyAt(r.addr)
		}, nil)
	}
	return s
}

// githubProxy starts replica n's proxy to the fake GitHub, which logs
// each request it forwards, and returns its address.
func (s *replicaSet) githubProxy(n int) string {
	s.t.Helper()
	target, err := url.Parse(s.fake.URL())
	if err != nil {
		s.t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		at, decision := time.Now(), isDecisionWrite(req)
		s.ghMu.Lock()
		s.githubLog = append(s.githubLog, githubRequest{Replica: n, Method: req.Method, Path: req.URL.Path, At: at, Decision: decision})
		s.ghMu.Unlock()
		proxy.ServeHTTP(w, req)
	})}
	go func() { _ = srv.Serve(ln) }()
	s.t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// githubRequests returns the GitHub requests logged so far.
func (s *replicaSet) githubRequests() []githubRequest {
	s.ghMu.Lock()
	defer s.ghMu.Unlock()
	return slices.Clone(s.githubLog)
}

// writeReplicaConfig writes replica r's configuration: its own address,
// its GitHub proxy, the load balancer as its public URL, the shared
// schema (its sessions named r.dbApp).
func (s *replicaSet) writeReplicaConfig(path string, r *replica, secret string) error {
	level := os.Getenv("MQ_TEST_LOG_LEVEL")
	if level == "" {
		level = "info"
	}
	keyPath := filepath.Join(s.dir, "app-key.pem") // written once, before the first replica starts
	cfg := fmt.Sprintf(`server:
  address: %[1]q
  public_url: "http://%[9]s"
github:
  web_url: %[2]q
  v3_api_url: "http://%[10]s/"
  v4_api_url: "http://%[10]s/graphql"
  host: "github.com"
  app:
    integration_id: %[3]d
    webhook_secret: %[4]q
    private_key_path: %[5]q
database:
  driver: postgres
  url: %[6]q
  replicas: true
logging:
  level: %[8]q
  format: "json"
engine:
  reconcile_interval: %[7]q
`, r.addr, s.fake.URL(), s.fake.AppID(), secret, keyPath, withParam(s.dbURL, "application_name", r.dbApp), crashReconcile.String(), level, s.addr, r.github)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		return fmt.Errorf("failed to write the configuration: %w", err)
	}
	return nil
}

// spawn starts replica r with the configuration at cfgPath.
func (s *replicaSet) spawn(r *replica, cfgPath string) error {
	f, err := os.OpenFile(s.logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("failed to open the bot log: %w", err)
	}
	defer f.Close() // the process has its own copy
	cmd := exec.Command(s.binary, "serve", "--config", cfgPath)
	cmd.Env = envWithout(os.Environ(), "MQ_")
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("failed to start replica %d: %w", r.n, err)
	}
	r.cmd, r.done = cmd, make(chan struct{})
	go func() {
		r.err = cmd.Wait()
		r.dead.Store(true)
		close(r.done)
	}()
	s.mu.Lock()
	s.replicas = append(s.replicas, r)
	s.mu.Unlock()
	return nil
}

// withParam returns the URL u with the query parameter key set to value.
func withParam(u, key, value string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	q := p.Query()
	q.Set(key, value)
	p.RawQuery = q.Encode()
	return p.String()
}

// live returns the replicas still running.
func (s *replicaSet) live() []*replica {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*replica
	for _, r := range s.replicas {
		if !r.dead.Load() {
			out = append(out, r)
		}
	}
	return out
}

// balance forwards a request to the live replicas in turn, to the next
// one when a replica cannot be reached (as a load balancer whose health
// check removed it would).
func (s *replicaSet) balance(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	live := slices.DeleteFunc(s.live(), func(r *replica) bool { return r.frozen.Load() })
	start := int(s.next.Add(1))
	for i := range live {
		r := live[(start+i)%len(live)]
		out, err := http.NewRequestWithContext(req.Context(), req.Method, "http://"+r.addr+req.URL.RequestURI(), bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		out.Header = req.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			var op *net.OpError
			if errors.As(err, &op) && op.Op == "dial" {
				continue // not listening: the next replica
			}
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
		resp.Body.Close()
		return
	}
	http.Error(w, "no replica is up", http.StatusBadGateway)
}

// readyAt reports whether the replica at addr answers /readyz with 200.
func (s *replicaSet) readyAt(addr string) bool {
	resp, err := s.client.Get("http://" + addr + "/readyz")
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// lease is the queue's lease as the database holds it.
type lease struct {
	Holder  string
	Token   int64
	Expires time.Time
}

// pid is the holder's process ID (holders are host/pid/random).
func (l lease) pid() int {
	parts := strings.Split(l.Holder, "/")
	if len(parts) < 3 {
		return 0
	}
	pid, _ := strconv.Atoi(parts[len(parts)-2])
	return pid
}

// leaseOf reads the lease of the queue of main.
func (s *replicaSet) leaseOf() (lease, error) {
	db, err := s.openDB()
	if err != nil {
		return lease{}, err
	}
	defer db.Close()
	var l lease
	var exp int64
	err = db.QueryRow(`SELECT l.holder, l.token, l.expires_at FROM queue_leases l JOIN queues q ON q.id = l.queue_id
		WHERE q.owner = $1 AND q.name = $2 AND q.branch = $3`, crashRepoOwner, crashRepoName, crashBranch).Scan(&l.Holder, &l.Token, &exp)
	if errors.Is(err, sql.ErrNoRows) {
		return lease{}, nil
	}
	if err != nil {
		return lease{}, fmt.Errorf("failed to read the queue's lease: %w", err)
	}
	l.Expires = time.Unix(0, exp)
	return l, nil
}

// holder returns the live replica holding the queue's lease, if any.
func (s *replicaSet) holder() (*replica, lease) {
	l, err := s.leaseOf()
	if err != nil || l.Holder == "" || time.Now().After(l.Expires) {
		return nil, l
	}
	for _, r := range s.live() {
		if r.cmd.Process.Pid == l.pid() {
			return r, l
		}
	}
	return nil, l
}

// killReplica sends SIGKILL to r (as `kill -9`) and waits until it is gone.
func (s *replicaSet) killReplica(r *replica) {
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-r.done:
	case <-time.After(crashWait):
		s.t.Fatalf("replica %d still running after SIGKILL", r.n)
	}
}

// stopAll stops every live replica with SIGTERM; each must exit 0.
func (s *replicaSet) stopAll() error {
	var errs []error
	live := s.live()
	for _, r := range live {
		_ = r.cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, r := range live {
		select {
		case <-r.done:
			if r.err != nil {
				errs = append(errs, fmt.Errorf("replica %d did not stop cleanly: %w", r.n, r.err))
			}
		case <-time.After(crashStopWait):
			_ = r.cmd.Process.Kill()
			<-r.done
			errs = append(errs, fmt.Errorf("replica %d ignored SIGTERM for %v and was killed", r.n, crashStopWait))
		}
	}
	return errors.Join(errs...)
}

// Three replicas on one database, webhooks and REST calls spread over all
// of them: the replica holding the queue's lease is killed with SIGKILL
// while a PR is testing; another replica takes the queue within 30 s, and
// once the queue is idle every PR merged exactly once and in queue order,
// no sticky comment or check run is duplicated and no acknowledged
// delivery is lost (the crash tests' invariants).
func TestFailoverKillTheLeaseHolder(t *testing.T) {
	t.Parallel()
	s := newReplicaSet(t, 3)
	h := s.crashHarness
	o, victim, before := s.sixPRsTestingUnderAHolder(t)
	t.Logf("killing replica %d, the lease holder (%s, token %d), while a PR tests", victim.n, before.Holder, before.Token)
	killed := time.Now()
	s.killReplica(victim)
	var after lease
	h.waitFor("another replica to take the queue", failoverTakeover, func() bool {
		var r *replica
		r, after = s.holder()
		return r != nil && after.Token > before.Token
	}, func() string { return fmt.Sprintf("lease: %+v", after) })
	t.Logf("%s took the queue (token %d) %v after the kill", after.Holder, after.Token, time.Since(killed).Round(time.Millisecond))

	stopCI := h.paceCI(rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1)), 100*time.Millisecond, 600*time.Millisecond)
	defer stopCI()
	h.finish(o)
}

// sixPRsTestingUnderAHolder creates the queue (concurrency 2), opens six
// PRs and submits them (each way in turn) with CI held, and waits until
// one tests under a lease holder: it returns the outcome the crash
// checks expect, the holder and its lease.
func (s *replicaSet) sixPRsTestingUnderAHolder(t *testing.T) (*crashOutcome, *replica, lease) {
	t.Helper()
	h := s.crashHarness
	h.createQueue(map[string]any{"concurrency": 2, "stateLabelsEnabled": true})
	o := &crashOutcome{How: map[int]submitMethod{}, Initial: h.mainLength()}
	var prs []int
	for i := range 6 {
		pr := h.openPR(fmt.Sprintf("change-%02d", i), map[string]string{fmt.Sprintf("change-%02d.txt", i): "change\n"})
		prs = append(prs, pr)
		o.How[pr] = submitMethod(i % 3)
		o.Merged = append(o.Merged, pr)
	}
	h.fake.SetCIHold(true) // the first PRs stay testing until released
	for _, pr := range prs {
		if err := h.submit(pr, o.How[pr]); err != nil {
			t.Fatal(err)
		}
	}
	var victim *replica
	var before lease
	h.waitFor("a PR testing under a lease holder", crashWait, func() bool {
		testing := false
		for _, pr := range prs {
			if e, ok, err := h.entry(pr); err == nil && ok && e.State == "testing" {
				testing = true
			}
		}
		victim, before = s.holder()
		return testing && victim != nil
	}, nil)
	return o, victim, before
}
