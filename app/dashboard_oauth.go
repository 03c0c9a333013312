package app

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
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
// then it is dropped.
// A server-side session (dashboard_sessions.go) keeps the login and the
// readable repositories for githubSessionAge. It is not refreshed: a queue
// created later shows after the next sign-in.
const (
	oauthStateCookie = "mq_oauth_state"
	oauthStateAge    = 10 * time.Minute
)

func (a *App) oauthCallbackURL() string {
	return strings.TrimRight(a.cfg.Server.PublicURL, "/") + "/login/github/callback"
}

// githubLogin starts the OAuth web flow.
func (a *App) githubLogin(w http.ResponseWriter, r *http.Request) {
	if a.dashboardAccess() != DashboardGitHub {
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
		Path: "/login/github", MaxAge: int(oauthStateAge.Seconds()), HttpOnly: true, Secure: a.secureCookies(r),
		SameSite: http.SameSiteLaxMode})
	q := url.Values{"client_id": {a.cfg.Dashboard.GitHub.ClientID}, "redirect_uri": {a.oauthCallbackURL()}, "state": {state}}
	http.Redirect(w, r, strings.TrimRight(a.cfg.GitHub.WebURL, "/")+"/login/oauth/authorize?"+q.Encode(), http.StatusFound)
}

// githubCallback finishes the OAuth web flow. A missing or foreign state,
// a refused code or a GitHub failure signs nobody in and says why.
func (a *App) githubCallback(w http.ResponseWriter, r *http.Request) {
	if a.dashboardAccess() != DashboardGitHub {
		http.NotFound(w, r)
		return
	}
	refuse := func(status int, msg string) {
		a.render(w, r, status, loginTmpl, "layout", pageData{Title: "Sign in", Body: loginView{Next: "/", Error: msg, GitHub: true}})
	}
	q := r.URL.Query()
	c, err := r.Cookie(oauthStateCookie)
	http.SetCookie(w, &http.Cookie{Name: oauthStateCookie, Value: "", Path: "/login/github", MaxAge: -1, HttpOnly: true, //nolint:gosec // G124: Secure whenever the browser reaches us over https (secureCookies); HttpOnly and SameSite set
		Secure: a.secureCookies(r), SameSite: http.SameSiteLaxMode})
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
	token, err := a.exchangeOAuthCode(ctx, q.Get("code"))
	if err != nil {
		zerolog.Ctx(r.Context()).Warn().Err(err).Msg("dashboard: GitHub sign-in failed")
		refuse(http.StatusUnauthorized, "Not signed in: "+err.Error()+".")
		return
	}
	login, err := a.oauthUser(ctx, token)
	if err != nil {
		zerolog.Ctx(r.Context()).Warn().Err(err).Msg("dashboard: GitHub sign-in failed")
		refuse(http.StatusBadGateway, "Not signed in: "+err.Error()+".")
		return
	}
	repos, err := a.readableRepos(ctx, token)
	if err != nil {
		zerolog.Ctx(r.Context()).Error().Err(err).Str("login", login).Msg("dashboard: failed to check repository access")
		refuse(http.StatusBadGateway, "Not signed in: failed to check your access on GitHub; try again.")
		return
	}
	now := a.clock()
	if err := a.openSession(w, r, dashSession{Login: login, Repos: repos, CreatedAt: now, ExpiresAt: now.Add(githubSessionAge)}); err != nil {
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

// oauthHTTP is the client of the OAuth calls (bounded, as every GitHub
// call).
var oauthHTTP = &http.Client{Timeout: 15 * time.Second}

// exchangeOAuthCode buys a user token with a code.
func (a *App) exchangeOAuthCode(ctx context.Context, code string) (string, error) {
	if code == "" {
		return "", fmt.Errorf("GitHub sent no code")
	}
	form := url.Values{"client_id": {a.cfg.Dashboard.GitHub.ClientID}, "client_secret": {a.cfg.Dashboard.GitHub.ClientSecret},
		"code": {code}, "redirect_uri": {a.oauthCallbackURL()}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(a.cfg.GitHub.WebURL, "/")+"/login/oauth/access_token",
		strings.NewReader(form.Encode()))
	if err != nil {
		return "", fmt.Errorf("failed to build the token request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	var out struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if err := doJSON(req, &out); err != nil {
		return "", fmt.Errorf("failed to exchange the code: %w", err)
	}
	if out.Error != "" {
		return "", fmt.Errorf("GitHub refused the code (%s: %s)", out.Error, out.Description)
	}
	if out.AccessToken == "" {
		return "", fmt.Errorf("GitHub returned no token")
	}
	return out.AccessToken, nil
}

// oauthUser returns the login of a user token (GET /user).
func (a *App) oauthUser(ctx context.Context, token string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(a.cfg.GitHub.V3APIURL, "/")+"/user", nil)
	if err != nil {
		return "", fmt.Errorf("failed to build the user request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/vnd.github+json")
	var out struct {
		Login string `json:"login"`
	}
	if err := doJSON(req, &out); err != nil {
		return "", fmt.Errorf("failed to read the signed-in user: %w", err)
	}
	if out.Login == "" {
		return "", fmt.Errorf("failed to read the signed-in user: no login")
	}
	return out.Login, nil
}

// doJSON sends req and decodes a 200 answer into out.
func doJSON(req *http.Request, out any) error {
	res, err := oauthHTTP.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GitHub answered %s", res.Status)
	}
	return json.Unmarshal(body, out)
}
