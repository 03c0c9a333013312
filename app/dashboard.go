package app

import (
	"context"
	"fmt"
	"time"

	"github.com/mergequeue/mq/app/dashboard"
	"github.com/mergequeue/mq/githubx"
	"github.com/mergequeue/mq/queue/readside"
	"github.com/mergequeue/mq/queue/record"
)

// newDashboard wires the dashboard of cfg: its reads are the queue's read
// side (the one the REST API uses), its sessions and tokens the store's,
// its GitHub sign-in (with dashboard.access github) gh's OAuth web flow for
// the App's client.
func newDashboard(cfg *Config, store Database, reads *readside.Reads, gh *githubx.Client, now func() time.Time) (*dashboard.Dashboard, error) {
	ports := dashboard.Ports{Reads: reads, Sessions: sessionStore{store}, Tokens: store, Now: now}
	if cfg.Dashboard.Access == DashboardGitHub {
		if gh == nil {
			return nil, fmt.Errorf("failed to set up the GitHub sign-in: no GitHub client")
		}
		signIn, err := gh.SignIn(githubx.OAuthConfig{ClientID: cfg.Dashboard.GitHub.ClientID,
			ClientSecret: cfg.Dashboard.GitHub.ClientSecret, RedirectURL: dashboard.CallbackURL(cfg.Server.PublicURL)})
		if err != nil {
			return nil, fmt.Errorf("failed to set up the GitHub sign-in: %w", err)
		}
		ports.SignIn = signIn
	}
	d, err := dashboard.New(dashboard.Config{Access: cfg.Dashboard.Access, Host: cfg.GitHub.Host, WebURL: cfg.GitHub.WebURL,
		PublicURL: cfg.Server.PublicURL}, ports)
	if err != nil {
		return nil, fmt.Errorf("failed to create the dashboard: %w", err)
	}
	return d, nil
}

// sessionStore is the database as the dashboard's session store.
type sessionStore struct{ Database }

var _ dashboard.SessionStore = sessionStore{}

func (s sessionStore) CreateSession(ctx context.Context, d dashboard.Session) error {
	return s.Database.CreateSession(ctx, record.DashboardSession(d))
}

func (s sessionStore) Session(ctx context.Context, hash []byte) (dashboard.Session, error) {
	d, err := s.Database.Session(ctx, hash)
	return dashboard.Session(d), err
}

// pruneSessions deletes the dashboard sessions that have ended.
func (a *App) pruneSessions(ctx context.Context) {
	n, err := a.store.PruneSessions(ctx, a.now())
	if err != nil {
		if ctx.Err() == nil {
			a.log.Warn().Err(err).Msg("retention: failed to prune dashboard sessions")
		}
		return
	}
	if n > 0 {
		a.log.Info().Int64("sessions", n).Msg("retention: pruned ended dashboard sessions")
	}
}
