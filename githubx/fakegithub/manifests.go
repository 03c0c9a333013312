package fakegithub

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"
)

// manifestCodeTTL is how long a manifest's code can be converted (GitHub:
// the whole flow must finish within an hour).
const manifestCodeTTL = time.Hour

// appManifest is what the fake reads of a GitHub App manifest.
type appManifest struct {
	Name           string `json:"name"`
	URL            string `json:"url"`
	Description    string `json:"description"`
	HookAttributes *struct {
		URL    string `json:"url"`
		Active *bool  `json:"active"`
	} `json:"hook_attributes"`
	RedirectURL        string            `json:"redirect_url"`
	Public             bool              `json:"public"`
	DefaultEvents      []string          `json:"default_events"`
	DefaultPermissions map[string]string `json:"default_permissions"`
}

// pendingManifest is a registered manifest waiting for its conversion.
type pendingManifest struct {
	manifest appManifest
	owner    string
	expires  time.Time
}

// appFromManifest is GitHub's answer to a conversion: the App and, once
// only, its credentials.
type appFromManifest struct {
	*github.AppConfig
	Permissions map[string]string `json:"permissions"`
	Events      []string          `json:"events"`
}

// handleNewAppFromManifest is the page a browser posts a manifest to
// (POST /settings/apps/new?state=… or
// /organizations/{org}/settings/apps/new?state=…, form field "manifest").
// GitHub shows a page where the person names the App and clicks "Create
// GitHub App"; the fake creates it at once, as if they had, and redirects
// to the manifest's redirect_url with a one-time code and the state.
func (s *Server) handleNewAppFromManifest(c *reqCtx) {
	c.r.Body = http.MaxBytesReader(c.w, c.r.Body, maxBody)
	if err := c.r.ParseForm(); err != nil {
		c.error(http.StatusBadRequest, "Problems parsing the form: "+err.Error())
		return
	}
	raw := c.r.PostForm.Get("manifest")
	if raw == "" {
		c.error(http.StatusUnprocessableEntity, "Invalid GitHub App configuration: manifest is missing")
		return
	}
	var m appManifest
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		c.error(http.StatusUnprocessableEntity, "Invalid GitHub App configuration: the manifest is not JSON: "+err.Error())
		return
	}
	if err := m.validate(); err != nil {
		c.error(http.StatusUnprocessableEntity, "Invalid GitHub App configuration: "+err.Error())
		return
	}
	redirect, _ := url.Parse(m.RedirectURL) // checked by validate
	owner := c.params["org"]
	if owner == "" {
		owner = "mergequeue" // the person signed in to the fake
	}
	code := randomHex(20)
	s.mu.Lock()
	s.manifests[code] = &pendingManifest{manifest: m, owner: owner, expires: time.Now().Add(manifestCodeTTL)}
	s.mu.Unlock()
	q := redirect.Query()
	q.Set("code", code)
	if state := c.r.URL.Query().Get("state"); state != "" {
		q.Set("state", state)
	}
	redirect.RawQuery = q.Encode()
	http.Redirect(c.w, c.r, redirect.String(), http.StatusFound)
}

// validate checks what GitHub requires of a manifest, and the
// redirect_url the fake needs to answer without a person.
func (m *appManifest) validate() error {
	var errs []string
	if strings.TrimSpace(m.Name) == "" {
		errs = append(errs, "name is required (the fake has no page to type it in)")
	}
	if !absoluteHTTPURL(m.URL) {
		errs = append(errs, "url must be an absolute http(s) URL")
	}
	if m.HookAttributes != nil && (m.HookAttributes.Active == nil || *m.HookAttributes.Active) && !absoluteHTTPURL(m.HookAttributes.URL) {
		errs = append(errs, "hook_attributes.url must be an absolute http(s) URL")
	}
	if !absoluteHTTPURL(m.RedirectURL) {
		errs = append(errs, "redirect_url must be an absolute http(s) URL")
	}
	for k, v := range m.DefaultPermissions {
		if v != "read" && v != "write" && v != "admin" {
			errs = append(errs, fmt.Sprintf("default_permissions.%s: %q is not read, write or admin", k, v))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

func absoluteHTTPURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// handleManifestConversion is POST /app-manifests/{code}/conversions: it
// creates the App the code was issued for and answers its id, slug, PEM
// key, webhook secret and OAuth client credentials, once (a used, unknown
// or expired code is 404). The new App replaces the installed one: it is
// installed on every repository, JWTs must be signed with its key and
// carry its id, the installation tokens of the App it replaces stop
// working, and webhooks go to its hook URL signed with its secret.
func (s *Server) handleManifestConversion(c *reqCtx) {
	code := c.params["code"]
	s.mu.Lock()
	p, ok := s.manifests[code]
	delete(s.manifests, code)
	s.mu.Unlock()
	if !ok || time.Now().After(p.expires) {
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	m := p.manifest
	keyPEM, key, err := GenerateAppKey() // PKCS#1, as GitHub hands out
	if err != nil {
		c.fail(err)
		return
	}
	events := append([]string(nil), m.DefaultEvents...)
	perms := map[string]string{"metadata": "read"}
	for k, v := range m.DefaultPermissions {
		perms[k] = v
	}
	app := appState{id: s.newID(), slug: slugify(m.Name), name: m.Name, owner: p.owner,
		pubKey: &key.PublicKey, privPEM: keyPEM, events: events}
	if app.slug == "" {
		app.slug = fmt.Sprintf("app-%d", app.id)
	}
	secret := randomHex(20)
	s.mu.Lock()
	s.app = app
	s.tokens = map[string]time.Time{}
	s.mu.Unlock()
	if h := m.HookAttributes; h != nil && (h.Active == nil || *h.Active) {
		s.hooks.mu.Lock()
		s.hooks.url, s.hooks.secret = h.URL, secret
		s.hooks.mu.Unlock()
	}
	now := &github.Timestamp{Time: time.Now().UTC().Truncate(time.Second)}
	c.json(http.StatusCreated, appFromManifest{
		AppConfig: &github.AppConfig{
			ID:            github.Int64(app.id),
			Slug:          github.String(app.slug),
			NodeID:        github.String(fmt.Sprintf("A_%d", app.id)),
			Owner:         s.user(app.owner),
			Name:          github.String(app.name),
			Description:   github.String(m.Description),
			ExternalURL:   github.String(m.URL),
			HTMLURL:       github.String(s.URL() + "/apps/" + app.slug),
			CreatedAt:     now,
			UpdatedAt:     now,
			ClientID:      github.String("Iv1." + randomHex(8)),
			ClientSecret:  github.String(randomHex(20)),
			WebhookSecret: github.String(secret),
			PEM:           github.String(string(keyPEM)),
		},
		Permissions: perms,
		Events:      events,
	})
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err))
	}
	return hex.EncodeToString(b)
}
