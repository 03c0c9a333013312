package app

import (
	"fmt"
	"strconv"
	"strings"
)

// Environment variables that override the file (secrets and deployment knobs).
// An empty variable is treated as unset.
const (
	EnvWebhookSecret  = "MQ_GITHUB_WEBHOOK_SECRET" //nolint:gosec // a variable name, not a credential
	EnvAppID          = "MQ_GITHUB_APP_ID"
	EnvPrivateKey     = "MQ_GITHUB_PRIVATE_KEY"
	EnvPrivateKeyPath = "MQ_GITHUB_PRIVATE_KEY_PATH"
	EnvDatabasePath   = "MQ_DATABASE_PATH"
	// EnvDatabaseURL is database.url (PostgreSQL; it may hold a password).
	EnvDatabaseURL   = "MQ_DATABASE_URL"
	EnvServerAddress = "MQ_SERVER_ADDRESS"
	EnvPublicURL     = "MQ_PUBLIC_URL"
	EnvLogLevel      = "MQ_LOG_LEVEL"
	// EnvDashboardClientSecret is dashboard.github.client_secret.
	EnvDashboardClientSecret = "MQ_DASHBOARD_GITHUB_CLIENT_SECRET" //nolint:gosec // a variable name
)

func (c *Config) applyEnv(env func(string) string) error {
	setString := func(key string, dst *string) {
		if v := env(key); v != "" {
			*dst = v
		}
	}
	setString(EnvWebhookSecret, &c.GitHub.App.WebhookSecret)
	setString(EnvDatabasePath, &c.Database.Path)
	setString(EnvDatabaseURL, &c.Database.URL)
	setString(EnvServerAddress, &c.Server.Address)
	setString(EnvPublicURL, &c.Server.PublicURL)
	setString(EnvLogLevel, &c.Logging.Level)
	setString(EnvDashboardClientSecret, &c.Dashboard.GitHub.ClientSecret)
	setString(EnvTestBranches, &c.GitHub.TestBranches)
	setString(EnvGitDir, &c.GitHub.Git.Dir)
	if v := env(EnvAppID); v != "" {
		id, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %q is not an integer", EnvAppID, v)
		}
		c.GitHub.App.IntegrationID = id
	}
	// A key given through the environment replaces the file's key of either
	// form; both variables at once are reported by Validate.
	key, keyPath := env(EnvPrivateKey), env(EnvPrivateKeyPath)
	if key != "" {
		c.GitHub.App.PrivateKey = key
		if keyPath == "" {
			c.GitHub.App.PrivateKeyPath = ""
		}
	}
	if keyPath != "" {
		c.GitHub.App.PrivateKeyPath = keyPath
		if key == "" {
			c.GitHub.App.PrivateKey = ""
		}
	}
	return nil
}
