package dashboard

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/rs/zerolog"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/queue"
)

// viewer is who reads the dashboard: anyone when it is public, a live API
// token, or a GitHub user signed in through the App's OAuth. The zero
// viewer may read nothing.
type viewer struct {
	Public bool
	// Token is the API token the viewer presented (nil otherwise).
	Token *apitoken.Token
	// Login is the GitHub user signed in ("" otherwise); repos are the
	// repositories ("owner/name", lower case) they could read at sign-in.
	Login string
	repos map[string]bool
	// Name is shown in the header ("" when public).
	Name string
	// CanLogout is set when the viewer signed in through a cookie.
	CanLogout bool
}

// Allows reports whether the viewer may see repo: every repository when
// public, the token's scope (apitoken.Token.Allows) for a token, the
// repositories a GitHub user could read for them.
func (v viewer) Allows(repo queue.Repo) bool {
	switch {
	case v.Public:
		return true
	case v.Token != nil:
		return v.Token.Allows(repo)
	case v.Login != "":
		return v.repos[strings.ToLower(repo.FullName())]
	}
	return false
}

// tokenHeader carries an API token, as on the REST API: scripts read the
// dashboard with it.
const tokenHeader = apitoken.Header

type viewerKey struct{}

func viewerFrom(ctx context.Context) viewer {
	v, _ := ctx.Value(viewerKey{}).(viewer)
	return v
}

// access is the configured access mode (New makes "" AccessToken).
func (d *Dashboard) access() Access {
	return d.cfg.Access
}

// guard lets a request through with its viewer in the context, or refuses
// it: a page redirects to /login (coming back afterwards), a fragment
// answers 401. The viewer comes from the x-api-token header (scripts) or
// the browser's session (signed in with a token or with GitHub).
func (d *Dashboard) guard(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if d.access() == AccessPublic {
			next(w, r.WithContext(context.WithValue(r.Context(), viewerKey{}, viewer{Public: true})))
			return
		}
		if secret := r.Header.Get(tokenHeader); secret != "" {
			tok, err := apitoken.Verify(r.Context(), d.tokens, secret, d.clock())
			switch {
			case apitoken.IsRefusal(err):
				logRefusal(r, err)
				http.Error(w, "dashboard: "+apitoken.RefusalMessage, http.StatusUnauthorized)
			case err != nil:
				internalError(w, r, "dashboard: failed to verify a token", err)
			default:
				v := viewer{Token: tok, Name: "token " + tok.Name}
				next(w, r.WithContext(context.WithValue(r.Context(), viewerKey{}, v)))
			}
			return
		}
		v, err := d.sessionViewer(r)
		switch {
		case err == nil:
			next(w, r.WithContext(context.WithValue(r.Context(), viewerKey{}, v)))
			return
		case !errors.Is(err, errNoSession):
			internalError(w, r, "dashboard: failed to read the session", err)
			return
		}
		if _, err := r.Cookie(sessionCookie); err == nil {
			clearCookie(w, sessionCookie, d.secureCookies(r))
		}
		d.clearLegacyCookies(w, r)
		if strings.HasPrefix(r.URL.Path, "/fragments/") {
			http.Error(w, "dashboard: not signed in", http.StatusUnauthorized)
			return
		}
		http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
	}
}

// logRefusal logs why a presented token was refused, at info level with
// the token's ID when one has the secret; the client is only told
// apitoken.RefusalMessage.
func logRefusal(r *http.Request, err error) {
	ev := zerolog.Ctx(r.Context()).Info().Str("reason", err.Error()).Str("path", r.URL.Path)
	if id := apitoken.RefusedTokenID(err); id != "" {
		ev = ev.Str("token_id", id)
	}
	ev.Msg("dashboard: refused an API token")
}

// secureCookies is true when the browser reaches us over https (directly,
// or as the configured public URL says).
func (d *Dashboard) secureCookies(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(strings.ToLower(d.cfg.PublicURL), "https://")
}

type loginView struct {
	Next  string
	Error string
	// GitHub offers "Sign in with GitHub" (dashboard.access github).
	GitHub bool
}

// loginPage asks for an API token (a public dashboard needs none).
func (d *Dashboard) loginPage(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"))
	if d.access() == AccessPublic {
		http.Redirect(w, r, next, http.StatusSeeOther) //nolint:gosec // G710: safeNext keeps only a path on this site
		return
	}
	d.render(w, r, http.StatusOK, loginTmpl, "layout", pageData{Title: "Sign in",
		Body: loginView{Next: next, GitHub: d.access() == AccessGitHub}})
}

// login checks the token entered and opens a session with it (see
// sessions.go), then goes back where the reader was going. A
// refused token changes nothing and gets the one refusal message.
func (d *Dashboard) login(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.PostForm.Get("next"))
	secret := strings.TrimSpace(r.PostForm.Get("token"))
	tok, err := apitoken.Verify(r.Context(), d.tokens, secret, d.clock())
	switch {
	case err == nil:
	case apitoken.IsRefusal(err):
		logRefusal(r, err)
		d.render(w, r, http.StatusUnauthorized, loginTmpl, "layout",
			pageData{Title: "Sign in", Body: loginView{Next: next, Error: "Not signed in: " + apitoken.RefusalMessage + ".",
				GitHub: d.access() == AccessGitHub}})
		return
	default:
		internalError(w, r, "dashboard: failed to verify a token", err)
		return
	}
	now := d.clock()
	s := Session{TokenID: tok.ID, CreatedAt: now, ExpiresAt: now.Add(tokenSessionMax), Idle: tokenSessionIdle}
	if !tok.ExpiresAt.IsZero() && tok.ExpiresAt.Before(s.ExpiresAt) {
		s.ExpiresAt = tok.ExpiresAt
	}
	if err := d.openSession(w, r, s); err != nil {
		internalError(w, r, "dashboard: failed to sign in", err)
		return
	}
	zerolog.Ctx(r.Context()).Info().Str("token_id", tok.ID).Msg("dashboard: signed in with a token")
	http.Redirect(w, r, next, http.StatusSeeOther) //nolint:gosec // G710: safeNext keeps only a path on this site
}

// logout ends the browser's session on the server (a replayed cookie no
// longer works) and forgets its cookies.
func (d *Dashboard) logout(w http.ResponseWriter, r *http.Request) {
	if err := d.closeSession(w, r); err != nil {
		internalError(w, r, "dashboard: failed to sign out", err)
		return
	}
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
