package fakegithub

import (
	"crypto/subtle"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"time"
)

// oauthCodeTTL is how long an authorization code may be exchanged (as on
// GitHub: ten minutes).
const oauthCodeTTL = 10 * time.Minute

// oauthState is the App's OAuth client and the codes it issued ("web
// application flow": authorize → code → access token → GET /user).
type oauthState struct {
	clientID, clientSecret string
	codes                  map[string]oauthCode
}

type oauthCode struct {
	login, redirectURI string
	expires            time.Time
}

// OAuthClient returns the installed App's OAuth client ID and secret,
// generated at the first call.
func (s *Server) OAuthClient() (id, secret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.oauthClientLocked()
}

func (s *Server) oauthClientLocked() (string, string) {
	if s.oauth.clientID == "" {
		s.oauth.clientID, s.oauth.clientSecret = "Iv1."+randomHex(8), randomHex(20)
		s.oauth.codes = map[string]oauthCode{}
	}
	return s.oauth.clientID, s.oauth.clientSecret
}

// handleOAuthAuthorize is GitHub's authorize page. The signed-in browser
// user is the login parameter (a fake's shortcut); without it a form asks
// for one. It redirects to redirect_uri with a one-time code and the state.
func (s *Server) handleOAuthAuthorize(c *reqCtx) {
	q := c.r.URL.Query()
	s.mu.Lock()
	id, _ := s.oauthClientLocked()
	s.mu.Unlock()
	if q.Get("client_id") != id {
		c.w.Header().Set("Content-Type", "text/html; charset=utf-8")
		c.w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(c.w, "<!doctype html><title>Not Found</title><p>The client_id is not that of an OAuth App or GitHub App.</p>")
		return
	}
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || redirect.Host == "" || (redirect.Scheme != "http" && redirect.Scheme != "https") {
		c.error(http.StatusBadRequest, "The redirect_uri MUST be an absolute http(s) URL.")
		return
	}
	login := q.Get("login")
	if login == "" {
		c.w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(c.w, `<!doctype html><title>Authorize</title><h1>Sign in to the fake GitHub</h1>
<form method="get" action="/login/oauth/authorize"><input type="hidden" name="client_id" value="%s">
<input type="hidden" name="redirect_uri" value="%s"><input type="hidden" name="state" value="%s">
<label>Login <input name="login" required autofocus></label> <button type="submit">Authorize</button></form>`,
			html.EscapeString(id), html.EscapeString(redirect.String()), html.EscapeString(q.Get("state")))
		return
	}
	code := randomHex(10)
	s.mu.Lock()
	s.oauth.codes[code] = oauthCode{login: login, redirectURI: redirect.String(), expires: time.Now().Add(oauthCodeTTL)}
	s.mu.Unlock()
	back := redirect.Query()
	back.Set("code", code)
	back.Set("state", q.Get("state"))
	redirect.RawQuery = back.Encode()
	http.Redirect(c.w, c.r, redirect.String(), http.StatusFound)
}

// handleOAuthAccessToken exchanges a code for a user access token ("ghu_…",
// acting as the user, like IssueUserToken). As on GitHub, refusals are
// 200 with an error field; a code works once.
func (s *Server) handleOAuthAccessToken(c *reqCtx) {
	if err := c.r.ParseForm(); err != nil {
		c.error(http.StatusBadRequest, "Problems parsing the body")
		return
	}
	f := c.r.Form
	s.mu.Lock()
	id, secret := s.oauthClientLocked()
	code, ok := s.oauth.codes[f.Get("code")]
	delete(s.oauth.codes, f.Get("code"))
	s.mu.Unlock()
	switch {
	case f.Get("client_id") != id || subtle.ConstantTimeCompare([]byte(f.Get("client_secret")), []byte(secret)) != 1:
		c.json(http.StatusOK, map[string]string{"error": "incorrect_client_credentials",
			"error_description": "The client_id and/or client_secret passed are incorrect."})
	case !ok || time.Now().After(code.expires):
		c.json(http.StatusOK, map[string]string{"error": "bad_verification_code",
			"error_description": "The code passed is incorrect or expired."})
	case f.Get("redirect_uri") != "" && f.Get("redirect_uri") != code.redirectURI:
		c.json(http.StatusOK, map[string]string{"error": "redirect_uri_mismatch",
			"error_description": "The redirect_uri MUST match the registered callback URL for this application."})
	default:
		tok := randomToken("ghu_")
		s.mu.Lock()
		s.userTokens[tok] = code.login
		s.mu.Unlock()
		c.json(http.StatusOK, map[string]string{"access_token": tok, "token_type": "bearer", "scope": ""})
	}
}

// handleGetAuthenticatedUser is GET /user: the user a user token acts for;
// an installation token is refused, as on GitHub.
func (s *Server) handleGetAuthenticatedUser(c *reqCtx) {
	if c.actor == s.botLogin() {
		c.error(http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	c.json(http.StatusOK, s.user(c.actor))
}
