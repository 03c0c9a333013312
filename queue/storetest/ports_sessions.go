package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/record"
)

var sessionTests = []portsCase{
	{"sessions/session round trip", func(t *testing.T, s Ports) {
		for _, d := range []record.DashboardSession{
			{Hash: hashOf("a"), TokenID: "tok-1", CreatedAt: t0, SeenAt: at(time.Second), ExpiresAt: at(7 * 24 * time.Hour),
				Idle: 12 * time.Hour},
			{Hash: hashOf("b"), Login: "alice", Repos: []string{"acme/widgets", "acme/gadgets"}, CreatedAt: t0, SeenAt: t0,
				ExpiresAt: at(8 * time.Hour)},
			{Hash: hashOf("c"), Login: "bob", Repos: []string{}, CreatedAt: t0, SeenAt: t0, ExpiresAt: at(8 * time.Hour)},
		} {
			if err := s.CreateSession(ctx, d); err != nil {
				t.Fatalf("CreateSession(%+v): %v", d, err)
			}
			got, err := s.Session(ctx, d.Hash)
			if err != nil {
				t.Fatalf("Session: %v", err)
			}
			assertEqual(t, got, d)
		}
		// SeenAt defaults to CreatedAt.
		if err := s.CreateSession(ctx, record.DashboardSession{Hash: hashOf("d"), TokenID: "t", CreatedAt: t0, ExpiresAt: at(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Session(ctx, hashOf("d")); err != nil || !got.SeenAt.Equal(t0) {
			t.Errorf("SeenAt of a new session = %v, %v; want its creation", got.SeenAt, err)
		}
	}},
	{"sessions/session errors", func(t *testing.T, s Ports) {
		ok := record.DashboardSession{Hash: hashOf("a"), TokenID: "t", CreatedAt: t0, ExpiresAt: at(time.Hour)}
		if err := s.CreateSession(ctx, ok); err != nil {
			t.Fatal(err)
		}
		bad := func(f func(*record.DashboardSession)) record.DashboardSession {
			d := ok
			d.Hash = hashOf("other")
			f(&d)
			return d
		}
		for name, d := range map[string]record.DashboardSession{
			"no hash":          bad(func(d *record.DashboardSession) { d.Hash = nil }),
			"token and login":  bad(func(d *record.DashboardSession) { d.Login = "alice" }),
			"neither":          bad(func(d *record.DashboardSession) { d.TokenID = "" }),
			"no expiry":        bad(func(d *record.DashboardSession) { d.ExpiresAt = time.Time{} }),
			"no creation time": bad(func(d *record.DashboardSession) { d.CreatedAt = time.Time{} }),
			"negative idle":    bad(func(d *record.DashboardSession) { d.Idle = -time.Second }),
		} {
			if err := s.CreateSession(ctx, d); err == nil {
				t.Errorf("%s: CreateSession succeeded", name)
			}
			if _, err := s.Session(ctx, hashOf("other")); !errors.Is(err, queue.ErrNotFound) {
				t.Errorf("%s: stored anyway (%v)", name, err)
			}
		}
		if err := s.CreateSession(ctx, ok); !errors.Is(err, queue.ErrExists) {
			t.Errorf("duplicate hash: %v, want ErrExists", err)
		}
		if _, err := s.Session(ctx, hashOf("nope")); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("unknown session: %v, want ErrNotFound", err)
		}
		if err := s.TouchSession(ctx, hashOf("nope"), t0); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("touch unknown: %v, want ErrNotFound", err)
		}
	}},
	// TouchSession moves SeenAt forward only; DeleteSession ends the session
	// for good, and deleting it again is no error.
	{"sessions/session touch and delete", func(t *testing.T, s Ports) {
		d := record.DashboardSession{Hash: hashOf("a"), TokenID: "t", CreatedAt: t0, ExpiresAt: at(time.Hour), Idle: time.Minute}
		if err := s.CreateSession(ctx, d); err != nil {
			t.Fatal(err)
		}
		for _, step := range []struct {
			at, want time.Time
		}{{at(30 * time.Second), at(30 * time.Second)}, {at(10 * time.Second), at(30 * time.Second)}, {at(time.Minute), at(time.Minute)}} {
			if err := s.TouchSession(ctx, d.Hash, step.at); err != nil {
				t.Fatal(err)
			}
			if got, _ := s.Session(ctx, d.Hash); !got.SeenAt.Equal(step.want) {
				t.Errorf("touched at %v: SeenAt %v, want %v", step.at, got.SeenAt, step.want)
			}
		}
		for range 2 {
			if err := s.DeleteSession(ctx, d.Hash); err != nil {
				t.Fatalf("DeleteSession: %v", err)
			}
		}
		if _, err := s.Session(ctx, d.Hash); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("deleted session: %v, want ErrNotFound", err)
		}
	}},
	// PruneSessions deletes the sessions that ended — expired, idle too long,
	// or opened with a token revoked, expired or gone — and keeps the others.
	{"sessions/prune sessions", func(t *testing.T, s Ports) {
		now := at(24 * time.Hour)
		for _, tok := range []record.Token{
			{ID: "live", Name: "live", Hash: hashOf("live"), CreatedAt: t0},
			{ID: "later", Name: "later", Hash: hashOf("later"), CreatedAt: t0, ExpiresAt: now.Add(time.Second)},
			{ID: "revoked", Name: "revoked", Hash: hashOf("revoked"), CreatedAt: t0, RevokedAt: at(time.Hour)},
			{ID: "expired", Name: "expired", Hash: hashOf("expired"), CreatedAt: t0, ExpiresAt: now},
		} {
			if err := s.CreateToken(ctx, tok); err != nil {
				t.Fatal(err)
			}
		}
		sessions := map[string]struct {
			d    record.DashboardSession
			kept bool
		}{
			"live token":          {record.DashboardSession{TokenID: "live", ExpiresAt: now.Add(time.Hour), SeenAt: now, Idle: time.Hour}, true},
			"token expiring soon": {record.DashboardSession{TokenID: "later", ExpiresAt: now.Add(time.Hour)}, true},
			"GitHub":              {record.DashboardSession{Login: "alice", ExpiresAt: now.Add(time.Second)}, true},
			"expired at now":      {record.DashboardSession{Login: "bob", ExpiresAt: now}, false},
			"idle":                {record.DashboardSession{TokenID: "live", ExpiresAt: now.Add(time.Hour), SeenAt: now.Add(-time.Hour), Idle: time.Hour}, false},
			"revoked token":       {record.DashboardSession{TokenID: "revoked", ExpiresAt: now.Add(time.Hour)}, false},
			"expired token":       {record.DashboardSession{TokenID: "expired", ExpiresAt: now.Add(time.Hour)}, false},
			"deleted token":       {record.DashboardSession{TokenID: "gone", ExpiresAt: now.Add(time.Hour)}, false},
		}
		want := int64(0)
		for name, c := range sessions {
			c.d.Hash, c.d.CreatedAt = hashOf(name), t0
			if err := s.CreateSession(ctx, c.d); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !c.kept {
				want++
			}
		}
		n, err := s.PruneSessions(ctx, now)
		if err != nil || n != want {
			t.Fatalf("PruneSessions = %d, %v; want %d", n, err, want)
		}
		for name, c := range sessions {
			_, err := s.Session(ctx, hashOf(name))
			if kept := err == nil; kept != c.kept {
				t.Errorf("%s: kept %v, want %v (%v)", name, kept, c.kept, err)
			}
		}
	}},
}
