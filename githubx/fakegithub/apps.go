package fakegithub

import (
	"crypto/rsa"
	"strings"
)

// defaultEvents are the events the App New installs subscribes to.
var defaultEvents = []string{"pull_request", "issue_comment", "push", "status", "check_run", "check_suite"}

// appState is the GitHub App the fake serves. The fake hosts one App at a
// time, installed on every repository (installation Server.InstallationID):
// the one New creates, until a manifest conversion replaces it.
type appState struct {
	id      int64
	slug    string
	name    string
	owner   string // login of the account owning the App
	pubKey  *rsa.PublicKey
	privPEM []byte // nil when the key was given by Options.AppPublicKey
	events  []string
}

// defaultApp is the App New installs: id (default 1), slug AppSlug, and
// pub (nil: New generates a key pair).
func defaultApp(id int64, pub *rsa.PublicKey) appState {
	if id == 0 {
		id = 1
	}
	return appState{id: id, slug: AppSlug, name: "Merge Queue", owner: "mergequeue", pubKey: pub, events: defaultEvents}
}

// botLogin is the login GitHub gives the App's actions: "<slug>[bot]".
func (a appState) botLogin() string { return a.slug + "[bot]" }

// currentApp returns the installed App.
func (s *Server) currentApp() appState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.app
}

// AppSlug returns the installed App's slug (AppSlug until a manifest
// conversion installs another App); its bot user is "<slug>[bot]".
func (s *Server) AppSlug() string { return s.currentApp().slug }

// slugify turns an App name into its slug as GitHub does: lower case,
// every run of other characters than letters and digits a single "-".
func slugify(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}
