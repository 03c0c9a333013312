package app

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/mergequeue/mq/githubx"
	"github.com/mergequeue/mq/queue"
)

// MinWebhookSecretLen is the fewest characters a webhook secret may have:
// GitHub signs deliveries with HMAC-SHA256 keyed by it, and a short secret
// can be guessed offline from one captured delivery. GitHub recommends a
// long random string; bot setup writes the 40-character one GitHub makes.
const MinWebhookSecretLen = 16

// GitHubConfig is the GitHub App's `github:` block plus the host name queues
// are keyed by and an optional override of the bot's login.
type GitHubConfig struct {
	WebURL   string         `yaml:"web_url"`
	V3APIURL string         `yaml:"v3_api_url"`
	V4APIURL string         `yaml:"v4_api_url"`
	App      AppCredentials `yaml:"app"`
	// Host is the repo host of every queue (queue.Repo.Host); default: the
	// host name of WebURL.
	Host string `yaml:"host"`
	// BotLogin is the App's user login; empty = "<slug>[bot]" (see BotLoginFor).
	BotLogin string `yaml:"bot_login"`
	// Budget is each installation's share of GitHub's rate limits.
	Budget GitHubBudget `yaml:"budget"`
	// TestBranches is how test branches are built: TestBranchesREST
	// (default) or TestBranchesGit (config_testbranches.go).
	TestBranches string    `yaml:"test_branches"`
	Git          GitHubGit `yaml:"git"`
}

// AppCredentials identify and authenticate the GitHub App. Exactly one of
// PrivateKey (PEM text) and PrivateKeyPath is set.
type AppCredentials struct {
	IntegrationID  int64  `yaml:"integration_id"`
	WebhookSecret  string `yaml:"webhook_secret"`
	PrivateKey     string `yaml:"private_key"`
	PrivateKeyPath string `yaml:"private_key_path"`
}

// PrivateKeyPEM returns the App's private key: the inline PEM text (with
// literal "\n" escapes, as often found in environment variables, turned into
// newlines), or the contents of the key file. It returns nil when the file
// cannot be read; Validate reports that case.
func (c *Config) PrivateKeyPEM() []byte {
	if k := c.GitHub.App.PrivateKey; k != "" {
		if !strings.Contains(k, "\n") {
			k = strings.ReplaceAll(k, `\n`, "\n")
		}
		return []byte(k)
	}
	if p := c.GitHub.App.PrivateKeyPath; p != "" {
		data, err := os.ReadFile(p) //nolint:gosec // the operator names the file
		if err != nil {
			return nil
		}
		return data
	}
	return nil
}

// GitHubClientConfig returns the configuration of the GitHub client
// (githubx.New), with the private key resolved.
func (c *Config) GitHubClientConfig() githubx.Config {
	return githubx.Config{V3APIURL: c.GitHub.V3APIURL, V4APIURL: c.GitHub.V4APIURL, WebURL: c.GitHub.WebURL,
		AppID: c.GitHub.App.IntegrationID, PrivateKey: c.PrivateKeyPEM(), Host: c.GitHub.Host}
}

// BotLoginFor returns the configured bot login, or "<slug>[bot]" (the login
// GitHub gives an App's actions) when none is configured.
func (c *Config) BotLoginFor(slug string) string {
	if c.GitHub.BotLogin != "" {
		return c.GitHub.BotLogin
	}
	return slug + "[bot]"
}

// validateGitHub reports the github block's problems (its budget aside),
// each naming its key. It reads and parses the private key.
func (c *Config) validateGitHub() []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	errs = appendURLErr(errs, "github.web_url", c.GitHub.WebURL)
	errs = appendURLErr(errs, "github.v3_api_url", c.GitHub.V3APIURL)
	errs = appendURLErr(errs, "github.v4_api_url", c.GitHub.V4APIURL)
	if err := queue.ValidateHost(c.GitHub.Host); err != nil {
		errs = append(errs, renameField(err, "github.host"))
	}
	app := c.GitHub.App
	if app.IntegrationID <= 0 {
		add("github.app.integration_id must be a positive App ID (or %s)", EnvAppID)
	}
	if app.WebhookSecret == "" {
		add("github.app.webhook_secret is required (or %s)", EnvWebhookSecret)
	} else if n := utf8.RuneCountInString(app.WebhookSecret); n < MinWebhookSecretLen {
		// The secret itself is never quoted.
		add("github.app.webhook_secret (or %s) has %d characters, want at least %d: set a long random one "+
			"(e.g. openssl rand -hex 32) on the GitHub App's settings page and here", EnvWebhookSecret, n, MinWebhookSecretLen)
	}
	if err := c.validatePrivateKey(); err != nil {
		errs = append(errs, err)
	}
	return errs
}

func (c *Config) validatePrivateKey() error {
	app := c.GitHub.App
	switch {
	case app.PrivateKey != "" && app.PrivateKeyPath != "":
		return errors.New("github.app.private_key and github.app.private_key_path are both set; set one")
	case app.PrivateKey != "":
		if err := parseRSAPrivateKey(c.PrivateKeyPEM()); err != nil {
			return fmt.Errorf("github.app.private_key: %w", err)
		}
	case app.PrivateKeyPath != "":
		data, err := os.ReadFile(app.PrivateKeyPath) //nolint:gosec // the operator names the file
		if err != nil {
			return fmt.Errorf("github.app.private_key_path: failed to read key: %w", err)
		}
		if err := parseRSAPrivateKey(data); err != nil {
			return fmt.Errorf("github.app.private_key_path %s: %w", app.PrivateKeyPath, err)
		}
	default:
		return fmt.Errorf("github.app.private_key or github.app.private_key_path is required (or %s / %s)",
			EnvPrivateKey, EnvPrivateKeyPath)
	}
	return nil
}

// parseRSAPrivateKey checks that data is a PEM-encoded RSA private key in
// PKCS#1 or PKCS#8 form, as GitHub issues App keys.
func parseRSAPrivateKey(data []byte) error {
	block, _ := pem.Decode(data)
	if block == nil {
		return errors.New("no PEM block found")
	}
	if _, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return nil
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return fmt.Errorf("failed to parse %s as a PKCS#1 or PKCS#8 private key: %w", block.Type, err)
	}
	if _, ok := k.(*rsa.PrivateKey); !ok {
		return fmt.Errorf("key is a %T, not an RSA key", k)
	}
	return nil
}
