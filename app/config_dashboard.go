package app

import (
	"errors"
	"fmt"

	"github.com/mergequeue/mq/app/dashboard"
)

// DashboardConfig guards the dashboard (docs/decisions.md, "Dashboard
// access"). It never affects /v1, webhooks, /metrics, /healthz or /readyz.
type DashboardConfig struct {
	// Access is who may read the dashboard: DashboardToken (default: an API
	// token of /v1, entered once on /login), DashboardGitHub (a GitHub
	// login through the App's OAuth, or a token) or DashboardPublic (anyone
	// who can reach the port).
	Access DashboardAccess `yaml:"access"`
	// GitHub is the App's OAuth client, required by DashboardGitHub.
	GitHub DashboardOAuth `yaml:"github"`
}

// DashboardOAuth is the GitHub App's OAuth client (its settings page shows
// the client ID and makes client secrets); the App's callback URL must be
// server.public_url + "/login/github/callback".
type DashboardOAuth struct {
	ClientID     string `yaml:"client_id"`
	ClientSecret string `yaml:"client_secret"`
}

// DashboardAccess says who may read the dashboard (dashboard.Access).
type DashboardAccess = dashboard.Access

// Dashboard access modes (see dashboard.Access).
const (
	DashboardToken  = dashboard.AccessToken
	DashboardPublic = dashboard.AccessPublic
	DashboardGitHub = dashboard.AccessGitHub
)

// validate reports the dashboard block's problems, each naming its key.
func (d DashboardConfig) validate() []error {
	switch d.Access {
	case DashboardToken, DashboardPublic:
	case DashboardGitHub:
		var errs []error
		if d.GitHub.ClientID == "" {
			errs = append(errs, errors.New("dashboard.github.client_id is required with dashboard.access github"))
		}
		if d.GitHub.ClientSecret == "" {
			errs = append(errs, fmt.Errorf("dashboard.github.client_secret is required with dashboard.access github (or %s)", EnvDashboardClientSecret))
		}
		return errs
	default:
		return []error{fmt.Errorf("dashboard.access: %q is not one of token, github, public", d.Access)}
	}
	return nil
}
