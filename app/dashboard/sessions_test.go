package dashboard

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/queue"
)

// signInWith posts the token to /login and returns the Cookie header of the
// session it opened.
func (d *dashEnv) signInWith(secret string) string {
	d.t.Helper()
	rec := d.do("POST", "/login", url.Values{"token": {secret}})
	for _, c := range rec.Result().Cookies() {
		if c.Name == sessionCookie && c.MaxAge > 0 {
			return c.Name + "=" + c.Value
		}
	}
	d.t.Fatalf("sign-in: %d, no session cookie in %v", rec.Code, rec.Result().Cookies())
	return ""
}

// signedIn reports whether the Cookie header still opens the dashboard.
func (d *dashEnv) signedIn(cookie string) bool {
	d.t.Helper()
	rec := d.do("GET", "/", nil, "Cookie", cookie)
	switch rec.Code {
	case http.StatusOK:
		return true
	case http.StatusSeeOther:
		return false
	}
	d.t.Fatalf("GET / with %s: %d %s", cookie, rec.Code, rec.Body)
	return false
}

// The cookie holds a random session id, not the token; the database holds
// only the id's hash, with the token the session was opened with.
func TestSessionCookieIsARandomID(t *testing.T) {
	d := newDashEnv(t, AccessToken)
	secret, tok, err := apitoken.Issue(context.Background(), d.store, "t", nil, nil, 0, d.now)
	d.must(err)
	seen := map[string]bool{}
	for range 3 {
		cookie := d.signInWith(secret)
		id := strings.TrimPrefix(cookie, sessionCookie+"=")
		raw, err := base64.RawURLEncoding.DecodeString(id)
		if err != nil || len(raw) < 16 || strings.Contains(id, secret) || seen[id] {
			t.Fatalf("session id %q: %d random bytes (%v), or the token, or seen before", id, len(raw), err)
		}
		seen[id] = true
		s, err := d.store.Session(context.Background(), sessionHash(id))
		if err != nil || s.TokenID != tok.ID || s.Login != "" {
			t.Fatalf("stored session %+v, %v; want one of token %s", s, err, tok.ID)
		}
		if _, err := d.store.Session(context.Background(), []byte(id)); !errors.Is(err, queue.ErrNotFound) {
			t.Errorf("the id itself is a key of the store: %v", err)
		}
	}
}

// Signing out ends the session on the server: the same cookie, replayed,
// no longer opens the dashboard. Another session of the token lives on.
func TestLogoutRevokesTheSession(t *testing.T) {
	d := newDashEnv(t, AccessToken)
	secret, _, err := apitoken.Issue(context.Background(), d.store, "t", nil, nil, 0, d.now)
	d.must(err)
	cookie, other := d.signInWith(secret), d.signInWith(secret)
	if !d.signedIn(cookie) {
		t.Fatal("not signed in after sign-in")
	}
	out := d.do("POST", "/logout", url.Values{}, "Cookie", cookie)
	if out.Code != http.StatusSeeOther || !allCleared(out.Result().Cookies()) {
		t.Fatalf("sign out: %d, cookies %v", out.Code, out.Result().Cookies())
	}
	if d.signedIn(cookie) {
		t.Error("the cookie of a signed-out session still opens the dashboard")
	}
	if !d.signedIn(other) {
		t.Error("signing out one browser ended another's session")
	}
}

// A session opened with a token ends when the token is revoked or expires.
func TestSessionEndsWithItsToken(t *testing.T) {
	d := newDashEnv(t, AccessToken)
	ctx := context.Background()
	secret, tok, err := apitoken.Issue(ctx, d.store, "revoked", nil, nil, 0, d.now)
	d.must(err)
	cookie := d.signInWith(secret)
	d.must(d.store.RevokeToken(ctx, tok.ID, d.now))
	if d.signedIn(cookie) {
		t.Error("a session of a revoked token still opens the dashboard")
	}

	short, _, err := apitoken.Issue(ctx, d.store, "short", nil, nil, time.Hour, d.now)
	d.must(err)
	cookie = d.signInWith(short)
	d.now = d.now.Add(59 * time.Minute)
	if !d.signedIn(cookie) {
		t.Error("a session of a live token ended")
	}
	d.now = d.now.Add(time.Minute)
	if d.signedIn(cookie) {
		t.Error("a session of an expired token still opens the dashboard")
	}
}

// A session opened with a token ends after tokenSessionIdle unused, and
// tokenSessionMax after sign-in however it is used.
func TestTokenSessionLifetime(t *testing.T) {
	d := newDashEnv(t, AccessToken)
	secret, _, err := apitoken.Issue(context.Background(), d.store, "t", nil, nil, 0, d.now)
	d.must(err)
	idle := d.signInWith(secret)
	d.now = d.now.Add(tokenSessionIdle - time.Minute)
	if !d.signedIn(idle) {
		t.Fatal("session ended before its idle limit")
	}
	d.now = d.now.Add(tokenSessionIdle - time.Minute) // used a minute before: still live
	if !d.signedIn(idle) {
		t.Fatal("a session in use ended at the idle limit counted from sign-in")
	}
	d.now = d.now.Add(tokenSessionIdle)
	if d.signedIn(idle) {
		t.Error("a session unused for the idle limit still opens the dashboard")
	}

	start := d.now
	kept := d.signInWith(secret)
	for d.now.Before(start.Add(tokenSessionMax - tokenSessionIdle)) {
		d.now = d.now.Add(tokenSessionIdle - time.Hour)
		if !d.signedIn(kept) {
			t.Fatalf("a session in use ended %s after sign-in", d.now.Sub(start))
		}
	}
	d.now = start.Add(tokenSessionMax)
	if d.signedIn(kept) {
		t.Error("a session still opens the dashboard past its absolute lifetime")
	}
}

// The raw token of the former sign-in cookie is no longer accepted, and
// the browser is told to forget it.
func TestLegacyTokenCookieIsRefused(t *testing.T) {
	d := newDashEnv(t, AccessToken)
	secret, _, err := apitoken.Issue(context.Background(), d.store, "t", nil, nil, 0, d.now)
	d.must(err)
	rec := d.do("GET", "/", nil, "Cookie", "mq_dashboard="+secret)
	cleared := false
	for _, c := range rec.Result().Cookies() {
		cleared = cleared || c.Name == "mq_dashboard" && c.MaxAge < 0
	}
	if rec.Code != http.StatusSeeOther || !cleared {
		t.Errorf("legacy cookie: %d, cookies %v; want a redirect that clears it", rec.Code, rec.Result().Cookies())
	}
}
