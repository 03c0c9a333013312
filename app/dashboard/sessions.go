package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/queue"
)

// Dashboard sessions. Signing in (with an API token, or with GitHub) opens
// a session on the server; the browser keeps only its random id (256 bits,
// in an HttpOnly, SameSite=Strict cookie, Secure over https), the database
// only the id's SHA-256. Every request looks the session up, so signing
// out (which deletes it), expiry, and the revocation or expiry of the
// token a session was opened with apply at once, even to a replayed
// cookie.
const (
	// sessionCookie holds the session id.
	sessionCookie = "mq_session"
	// tokenSessionIdle ends a session opened with a token after so long
	// unused.
	tokenSessionIdle = 12 * time.Hour
	// tokenSessionMax ends a session opened with a token so long after
	// sign-in however it is used (sooner when the token expires).
	tokenSessionMax = 7 * 24 * time.Hour
	// githubSessionAge ends a GitHub session so long after sign-in: its
	// readable repositories were read then.
	githubSessionAge = 8 * time.Hour
	// sessionTouchEvery is how stale a session's last use may be recorded
	// (one write per session per minute at most).
	sessionTouchEvery = time.Minute
	// sessionIDBytes is the entropy of a session id.
	sessionIDBytes = 32
)

// legacyCookies are the sign-in cookies of earlier versions (the raw API
// token; a signed GitHub session). They are no longer accepted, and cleared
// wherever a browser still sends them.
var legacyCookies = []string{"mq_dashboard", "mq_dashboard_gh"}

// Session is a signed-in browser, kept by the hash of its id (the store
// never sees the id itself).
type Session struct {
	// Hash is the SHA-256 of the session's id.
	Hash []byte
	// TokenID is the API token it was opened with ("" for GitHub).
	TokenID string
	// Login is the GitHub user it was opened for ("" for a token), and
	// Repos the repositories ("owner/name", lower case) they could read
	// then.
	Login string
	Repos []string
	// CreatedAt is the sign-in, SeenAt the last use recorded.
	CreatedAt time.Time
	SeenAt    time.Time
	// ExpiresAt ends it; so does an Idle (when positive) without use.
	ExpiresAt time.Time
	Idle      time.Duration
}

// Expired reports whether the session has ended at now: at or after
// ExpiresAt, or at or after SeenAt+Idle.
func (s Session) Expired(now time.Time) bool {
	return !now.Before(s.ExpiresAt) || s.Idle > 0 && !now.Before(s.SeenAt.Add(s.Idle))
}

// SessionStore keeps the dashboard's sessions by the hash of their id.
type SessionStore interface {
	// CreateSession stores a new session (queue.ErrExists if its hash is
	// taken).
	CreateSession(ctx context.Context, s Session) error
	// Session returns the session stored under hash, ended or not
	// (queue.ErrNotFound).
	Session(ctx context.Context, hash []byte) (Session, error)
	// TouchSession records a use at at (queue.ErrNotFound).
	TouchSession(ctx context.Context, hash []byte, at time.Time) error
	// DeleteSession removes a session; a missing one is no error.
	DeleteSession(ctx context.Context, hash []byte) error
}

// sessionHash is the SHA-256 of a session id, the only form stored.
func sessionHash(id string) []byte {
	sum := sha256.Sum256([]byte(id))
	return sum[:]
}

// openSession stores s under a fresh random id and gives the browser the
// id in the session cookie, clearing any legacy cookie.
func (d *Dashboard) openSession(w http.ResponseWriter, r *http.Request, s Session) error {
	raw := make([]byte, sessionIDBytes)
	if _, err := rand.Read(raw); err != nil {
		return fmt.Errorf("failed to generate a session id: %w", err)
	}
	id := base64.RawURLEncoding.EncodeToString(raw)
	s.Hash = sessionHash(id)
	if s.SeenAt.IsZero() {
		s.SeenAt = s.CreatedAt
	}
	if err := d.sessions.CreateSession(r.Context(), s); err != nil {
		return fmt.Errorf("failed to open a dashboard session: %w", err)
	}
	d.clearLegacyCookies(w, r)
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", MaxAge: int(s.ExpiresAt.Sub(s.CreatedAt).Seconds()), //nolint:gosec // G124: Secure whenever the browser reaches us over https (secureCookies); HttpOnly and SameSite set
		HttpOnly: true, Secure: d.secureCookies(r), SameSite: http.SameSiteStrictMode})
	return nil
}

// errNoSession: the request carries no live session.
var errNoSession = errors.New("no live dashboard session")

// sessionViewer returns the viewer of the request's session: errNoSession
// when it sends none, an unknown one or one that has ended (expired, idle,
// or opened with a token since revoked or expired); any other error is a
// store failure. A live session's use is recorded.
func (d *Dashboard) sessionViewer(r *http.Request) (viewer, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" || len(c.Value) > 128 {
		return viewer{}, errNoSession
	}
	ctx, now, hash := r.Context(), d.clock(), sessionHash(c.Value)
	s, err := d.sessions.Session(ctx, hash)
	if errors.Is(err, queue.ErrNotFound) {
		return viewer{}, errNoSession
	}
	if err != nil {
		return viewer{}, err
	}
	if s.Expired(now) {
		return viewer{}, errNoSession
	}
	v := viewer{CanLogout: true}
	if s.TokenID != "" {
		tok, err := d.tokens.TokenByID(ctx, s.TokenID)
		if errors.Is(err, queue.ErrNotFound) {
			return viewer{}, errNoSession
		}
		if err != nil {
			return viewer{}, fmt.Errorf("failed to read the session's token: %w", err)
		}
		if apitoken.Live(tok, now) != nil {
			return viewer{}, errNoSession
		}
		v.Token, v.Name = tok, "token "+tok.Name
	} else {
		if d.access() != AccessGitHub {
			return viewer{}, errNoSession // GitHub sign-in was turned off since
		}
		v.Login, v.Name, v.repos = s.Login, s.Login, map[string]bool{}
		for _, full := range s.Repos {
			v.repos[full] = true
		}
	}
	if now.Sub(s.SeenAt) >= sessionTouchEvery {
		if err := d.sessions.TouchSession(ctx, hash, now); err != nil && !errors.Is(err, queue.ErrNotFound) {
			return viewer{}, err
		}
	}
	return v, nil
}

// closeSession deletes the request's session, if any, and clears the
// browser's session (and legacy) cookies.
func (d *Dashboard) closeSession(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		if err := d.sessions.DeleteSession(r.Context(), sessionHash(c.Value)); err != nil {
			return fmt.Errorf("failed to end the dashboard session: %w", err)
		}
	}
	d.clearCookies(w, r)
	return nil
}

// clearCookies forgets the browser's session and legacy cookies.
func (d *Dashboard) clearCookies(w http.ResponseWriter, r *http.Request) {
	clearCookie(w, sessionCookie, d.secureCookies(r))
	for _, name := range legacyCookies {
		clearCookie(w, name, d.secureCookies(r))
	}
}

// clearLegacyCookies forgets the legacy cookies the browser sent.
func (d *Dashboard) clearLegacyCookies(w http.ResponseWriter, r *http.Request) {
	for _, name := range legacyCookies {
		if _, err := r.Cookie(name); err == nil {
			clearCookie(w, name, d.secureCookies(r))
		}
	}
}

func clearCookie(w http.ResponseWriter, name string, secure bool) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, //nolint:gosec // G124: Secure whenever the browser reaches us over https (secureCookies); HttpOnly and SameSite set
		HttpOnly: true, Secure: secure, SameSite: http.SameSiteStrictMode})
}
