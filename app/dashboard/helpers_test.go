package dashboard

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/readside"
	"github.com/mergequeue/mq/queue/record"
	"github.com/mergequeue/mq/queue/sqlite"
	"github.com/mergequeue/mq/queue/sqlite/sqlitetest"
)

// dashT0 is a whole hour, the dashboard tests' "now" unless they move it.
var dashT0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// dashEnv is a Dashboard on a real store, a fixed clock and GitHub at
// https://gh.example, its requests logged to log.
type dashEnv struct {
	t      *testing.T
	store  *sqlite.Store
	cfg    Config
	signIn GitHubSignIn
	dash   *Dashboard
	mux    http.Handler
	now    time.Time
	log    zerolog.Logger
}

func newDashEnv(t *testing.T, access Access) *dashEnv {
	t.Helper()
	store := sqlitetest.Open(t)
	d := &dashEnv{t: t, store: store, now: dashT0, log: zerolog.New(io.Discard),
		cfg: Config{Access: access, Host: "github.com", WebURL: "https://gh.example/", PublicURL: "http://localhost:8080"}}
	d.rewire()
	return d
}

// rewire builds the dashboard again from d.cfg and d.signIn.
func (d *dashEnv) rewire() {
	d.t.Helper()
	clock := func() time.Time { return d.now }
	reads := readside.New(d.store, readside.Options{Now: clock})
	dash, err := New(d.cfg, Ports{Reads: reads, Sessions: testSessions{d.store}, Tokens: d.store,
		SignIn: d.signIn, Now: clock})
	if err != nil {
		d.t.Fatal(err)
	}
	mux := http.NewServeMux()
	dash.Routes(mux)
	d.dash, d.mux = dash, mux
}

// testSessions is the SQLite store as a SessionStore.
type testSessions struct{ *sqlite.Store }

func (s testSessions) CreateSession(ctx context.Context, d Session) error {
	return s.Store.CreateSession(ctx, record.DashboardSession(d))
}

func (s testSessions) Session(ctx context.Context, hash []byte) (Session, error) {
	d, err := s.Store.Session(ctx, hash)
	return Session(d), err
}

func (d *dashEnv) queue(owner, name, branch string) *queue.Queue {
	d.t.Helper()
	q := &queue.Queue{Key: queue.QueueKey{Repo: queue.Repo{Host: "github.com", Owner: owner, Name: name}, Branch: branch},
		State: queue.QueueRunning, Settings: queue.DefaultSettings(), NextSeq: 1, CreatedAt: d.now, UpdatedAt: d.now}
	if err := d.store.CreateQueue(context.Background(), q); err != nil {
		d.t.Fatal(err)
	}
	return q
}

func (d *dashEnv) must(err error) {
	d.t.Helper()
	if err != nil {
		d.t.Fatal(err)
	}
}

// do serves one request; header pairs are name, value.
func (d *dashEnv) do(method, path string, body url.Values, header ...string) *httptest.ResponseRecorder {
	d.t.Helper()
	var r *http.Request
	if body != nil {
		r = httptest.NewRequest(method, path, strings.NewReader(body.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		r = httptest.NewRequest(method, path, nil)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	d.mux.ServeHTTP(rec, r.WithContext(d.log.WithContext(r.Context())))
	return rec
}

// page GETs path and wants 200.
func (d *dashEnv) page(path string, header ...string) string {
	d.t.Helper()
	rec := d.do("GET", path, nil, header...)
	if rec.Code != http.StatusOK {
		d.t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	return rec.Body.String()
}

func wantIn(t *testing.T, page string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q:\n%s", w, page)
		}
	}
}
