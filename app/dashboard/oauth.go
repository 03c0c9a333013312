package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// GitHub sign-in (dashboard.access github): the App's OAuth web flow.
// /login/github sends the browser to GitHub's authorize page with a random
// state, also kept in a short-lived cookie; GitHub sends it back to
// /login/github/callback with a code, which (with the client secret) buys
// a user token; the token names the user (GET /user) and lists the
// repositories of the App's installations they can read (readableRepos),
// then it is dropped. Every GitHub call is the sign-in port's (GitHubSignIn).
// A server-side session (sessions.go) keeps the login and the
// readable repositories for githubSessionAge. It is not refreshed: a queue
// created later shows after the next sign-in.
const (
	oauthStateCookie = "mq_oauth_state"
	oauthStateAge    = 10 * time.Minute
)

// The sign-in's routes.
const (
	githubLoginPath    = "/login/github"
	githubCallbackPath = githubLoginPath + "/callback"
)

// GitHubSignIn is GitHub's side of the sign-in, the App's OAuth web flow
// (githubx.SignIn, its redirect URL CallbackURL).
type GitHubSignIn interface {
	// AuthCodeURL is GitHub's authorize page, which sends the browser back
	// to the callback with a code and state.
	AuthCodeURL(state string) string
	// Exchange buys a user token with a code; its error says why in words
	// a user may read.
	Exchange(ctx context.Context, code string) (string, error)
	// Login is the login of the user of token.
	Login(ctx context.Context, token string) (string, error)
	// ReadableRepos returns those of wanted ("owner/name", lower case) the
	// user of token can read among the App's installations, in at most
	// maxCalls GitHub calls: past them, what it found, and complete false.
	ReadableRepos(ctx context.Context, token string, wanted map[string]bool, maxCalls int) (repos []string, complete bool, err error)
}

// CallbackURL is where GitHub sends the browser back after sign-in, on
// the service at publicURL: the GitHub App's callback URL must be it.
func CallbackURL(publicURL string) string {
	return strings.TrimRight(publicURL, "/") + githubCallbackPath
}

// githubLogin starts the OAuth web flow.
func (d *Dashboard) githubLogin(w http.ResponseWriter, r *http.Request) {
	if d.access() != AccessGitHub {
		http.NotFound(w, r)
		return
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	state := hex.EncodeToString(b[:])
	next := safeNext(r.URL.Query().Get("next"))
	// Lax, not Strict: the browser comes back from GitHub, another site.
	http.SetCookie(w, &http.Cookie{Name: oauthStateCookie, Value: state + "." + base64.RawURLEncoding.EncodeToString([]byte(next)), //nolint:gosec // G124: Secure whenever the browser reaches us over https (secureCookies); HttpOnly and SameSite set
		Path: githubLoginPath, MaxAge: int(oauthStateAge.Seconds()), HttpOnly: true, Secure: d.secureCookies(r),
		SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, d.signIn.AuthCodeURL(state), http.StatusFound)
}

// githubCallback finishes the OAuth web flow. A missing or foreign state,
// a refused code or a GitHub failure signs nobody in and says why.
func (d *Dashboard) githubCallback(w http.ResponseWriter, r *http.Request) {
	if d.access() != AccessGitHub {
		http.NotFound(w, r)
		return
	}
	refuse := func(status int, msg string) {
		d.render(w, r, status, loginTmpl, "layout", pageData{Title: "Sign in", Body: loginView{Next: "/", Error: msg, GitHub: true}})
	}
	q := r.URL.Query()
	c, err := r.Cookie(oauthStateCookie)
	http.SetCookie(w, &http.Cookie{Name: oauthStateCookie, Value: "", Path: githubLoginPath, MaxAge: -1, HttpOnly: true, //nolint:gosec // G124: Secure whenever the browser reaches us over https (secureCookies); HttpOnly and SameSite set
		Secure: d.secureCookies(r), SameSite: http.SameSiteLaxMode})
	var state, next string
	if err == nil {
		var n64 string
		state, n64, _ = strings.Cut(c.Value, ".")
		nb, _ := base64.RawURLEncoding.DecodeString(n64)
		next = safeNext(string(nb))
	}
	if state == "" || subtle.ConstantTimeCompare([]byte(state), []byte(q.Get("state"))) != 1 {
		refuse(http.StatusBadRequest, "Not signed in: the sign-in expired or did not start here. Try again.")
		return
	}
	if e := q.Get("error"); e != "" {
		refuse(http.StatusUnauthorized, "Not signed in: GitHub answered "+e+".")
		return
	}
	ctx := r.Context()
	token, err := d.signIn.Exchange(ctx, q.Get("code"))
	if err != nil {
		zerolog.Ctx(r.Context()).Warn().Err(err).Msg("dashboard: GitHub sign-in failed")
		refuse(http.StatusUnauthorized, "Not signed in: "+err.Error()+".")
		return
	}
	login, err := d.signIn.Login(ctx, token)
	if err != nil {
		zerolog.Ctx(r.Context()).Warn().Err(err).Msg("dashboard: GitHub sign-in failed")
		refuse(http.StatusBadGateway, "Not signed in: "+err.Error()+".")
		return
	}
	repos, err := d.readableRepos(ctx, token)
	if err != nil {
		zerolog.Ctx(r.Context()).Error().Err(err).Str("login", login).Msg("dashboard: failed to check repository access")
		refuse(http.StatusBadGateway, "Not signed in: failed to check your access on GitHub; try again.")
		return
	}
	now := d.clock()
	if err := d.openSession(w, r, Session{Login: login, Repos: repos, CreatedAt: now, ExpiresAt: now.Add(githubSessionAge)}); err != nil {
		internalError(w, r, "dashboard: failed to sign in", err)
		return
	}
	zerolog.Ctx(r.Context()).Info().Str("login", login).Int("repos", len(repos)).Msg("dashboard: signed in with GitHub")
	// A page, not a redirect: a Strict cookie is not sent on a navigation
	// that started on GitHub, but is on one this page starts.
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintf(w, `<!doctype html><meta http-equiv="refresh" content="0; url=%[1]s"><title>Signed in</title><p>Signed in as %[2]s. <a href="%[1]s">Continue</a></p>`,
		html.EscapeString(next), html.EscapeString(login))
}
