package app

import (
	"bytes"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/palantir/go-githubapp/githubapp"
	"github.com/rs/zerolog"
	"gopkg.in/yaml.v3"

	"github.com/mergequeue/mq/githubx"
	"github.com/mergequeue/mq/handlers"
	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/service"
)

// Defaults applied by applyDefaults to every key left empty (or zero).
// The others come from the package that owns them: GitHub's URLs from
// githubx (DefaultWebURL, DefaultV3APIURL, DefaultV4APIURL), the command
// prefix from handlers (DefaultCommandPrefix).
const (
	DefaultServerAddress     = ":8080"
	DefaultPublicURL         = "http://localhost:8080"
	DefaultDatabaseDriver    = "sqlite"
	DefaultDatabasePath      = "mq.db"
	DefaultLogLevel          = "info"
	DefaultLogFormat         = "json"
	DefaultReconcileInterval = 30 * time.Second
	DefaultNotificationKind  = NotifyWebhook
	DefaultDashboardAccess   = DashboardToken
)

// MinWebhookSecretLen is the fewest characters a webhook secret may have:
// GitHub signs deliveries with HMAC-SHA256 keyed by it, and a short secret
// can be guessed offline from one captured delivery. GitHub recommends a
// long random string; bot setup writes the 40-character one GitHub makes.
const MinWebhookSecretLen = 16

// Environment variables that override the file (secrets and deployment knobs).
// An empty variable is treated as unset.
const (
	EnvWebhookSecret  = "MQ_GITHUB_WEBHOOK_SECRET" //nolint:gosec // a variable name, not a credential
	EnvAppID          = "MQ_GITHUB_APP_ID"
	EnvPrivateKey     = "MQ_GITHUB_PRIVATE_KEY"
	EnvPrivateKeyPath = "MQ_GITHUB_PRIVATE_KEY_PATH"
	EnvDatabasePath   = "MQ_DATABASE_PATH"
	EnvServerAddress  = "MQ_SERVER_ADDRESS"
	EnvPublicURL      = "MQ_PUBLIC_URL"
	EnvLogLevel       = "MQ_LOG_LEVEL"
	// EnvDashboardClientSecret is dashboard.github.client_secret.
	EnvDashboardClientSecret = "MQ_DASHBOARD_GITHUB_CLIENT_SECRET" //nolint:gosec // a variable name
)

// Config is the whole process configuration (SPEC §9), decoded strictly from
// YAML; see config.example.yml for every key.
type Config struct {
	Server        ServerConfig         `yaml:"server"`
	GitHub        GitHubConfig         `yaml:"github"`
	Database      DatabaseConfig       `yaml:"database"`
	Commands      CommandsConfig       `yaml:"commands"`
	TestPRs       TestPRsConfig        `yaml:"test_prs"`
	Logging       LoggingConfig        `yaml:"logging"`
	Engine        EngineConfig         `yaml:"engine"`
	Queues        []QueueBootstrap     `yaml:"queues"`
	Notifications []NotificationTarget `yaml:"notifications"`
	Dashboard     DashboardConfig      `yaml:"dashboard"`
}

// ServerConfig is the HTTP listener and the URL users reach it at.
type ServerConfig struct {
	Address   string `yaml:"address"`
	PublicURL string `yaml:"public_url"`
	// AdminListen is the address of the admin listener (Go's pprof
	// profiles under /debug/pprof/); "" (the default) starts none. A
	// host-less address (":6060") listens on loopback only, and another
	// host must be a loopback one unless AdminAllowRemote is set: the
	// profiles show the process's memory and are served without
	// authentication.
	AdminListen string `yaml:"admin_listen"`
	// AdminAllowRemote lets AdminListen name a non-loopback host.
	AdminAllowRemote bool `yaml:"admin_allow_remote"`
}

// GitHubConfig is go-githubapp's `github:` block plus the host name queues
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
}

// AppCredentials identify and authenticate the GitHub App. Exactly one of
// PrivateKey (PEM text) and PrivateKeyPath is set.
type AppCredentials struct {
	IntegrationID  int64  `yaml:"integration_id"`
	WebhookSecret  string `yaml:"webhook_secret"`
	PrivateKey     string `yaml:"private_key"`
	PrivateKeyPath string `yaml:"private_key_path"`
}

// DatabaseConfig selects the store.
type DatabaseConfig struct {
	Driver string `yaml:"driver"`
	Path   string `yaml:"path"`
}

// TestPRsConfig configures the draft test PRs of queues with
// createPrsForTestingBranches.
type TestPRsConfig struct {
	// TitleTemplate is a Go text/template for their titles, executed with
	// service.TestPRTitleData (.PRs, .Numbers, .Branch, .TestBranch,
	// .Bisection); default service.DefaultTestPRTitle.
	TitleTemplate string `yaml:"title_template"`
}

// CommandsConfig configures PR comment commands.
type CommandsConfig struct {
	Prefix string `yaml:"prefix"`
}

// LoggingConfig configures the process logger (see Config.Logger).
type LoggingConfig struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// EngineConfig tunes the queue workers.
type EngineConfig struct {
	// ReconcileInterval bounds how long a missed webhook can delay a queue.
	ReconcileInterval time.Duration `yaml:"reconcile_interval"`
}

// QueueBootstrap is a queue created at start-up when it does not exist yet.
// Empty fields take queue.DefaultSettings.
type QueueBootstrap struct {
	Repo        string `yaml:"repo"` // "owner/name"
	Branch      string `yaml:"branch"`
	Mode        string `yaml:"mode"`
	Concurrency int    `yaml:"concurrency"`
	// RequiredStatuses: absent = branch protection decides; [] = none.
	RequiredStatuses []string `yaml:"required_statuses"`
	MergeMethod      string   `yaml:"merge_method"`
}

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

// DashboardAccess says who may read the dashboard.
type DashboardAccess string

// Dashboard access modes.
const (
	// DashboardToken requires a live API token; a token scoped to some
	// repositories shows only those.
	DashboardToken DashboardAccess = "token"
	// DashboardPublic lets anyone who reaches the port read every queue.
	DashboardPublic DashboardAccess = "public"
	// DashboardGitHub signs readers in with GitHub (the App's OAuth web
	// flow); each sees the queues of the repositories they can read. API
	// tokens are accepted too.
	DashboardGitHub DashboardAccess = "github"
)

// NotificationKind selects the payload format of a notification target.
type NotificationKind string

// Notification kinds (SPEC §8).
const (
	NotifyWebhook NotificationKind = "webhook" // Standard Webhooks JSON
	NotifySlack   NotificationKind = "slack"   // Slack-compatible one-line text
)

// NotificationTarget is one endpoint queue activity is sent to.
type NotificationTarget struct {
	URL    string           `yaml:"url"`
	Secret string           `yaml:"secret"`
	Kind   NotificationKind `yaml:"kind"`
}

// LoadConfig reads the YAML file at path (none when path is ""), rejecting
// unknown keys, then applies environment overrides read through env and the
// defaults. It does not validate: call Validate before using the result.
func LoadConfig(path string, env func(string) string) (*Config, error) {
	c := &Config{}
	if path != "" {
		data, err := os.ReadFile(path) //nolint:gosec // the operator names the file
		if err != nil {
			return nil, fmt.Errorf("failed to read config: %w", err)
		}
		if err := decodeStrict(data, c); err != nil {
			return nil, fmt.Errorf("failed to decode config %s: %w", path, err)
		}
	}
	if env == nil {
		env = func(string) string { return "" }
	}
	if err := c.applyEnv(env); err != nil {
		return nil, err
	}
	c.applyDefaults()
	return c, nil
}

// decodeStrict decodes one YAML document into c; unknown keys are errors.
// An empty document leaves c unchanged.
func decodeStrict(data []byte, c *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return errors.New("expected a single YAML document")
	}
	return nil
}

func (c *Config) applyEnv(env func(string) string) error {
	setString := func(key string, dst *string) {
		if v := env(key); v != "" {
			*dst = v
		}
	}
	setString(EnvWebhookSecret, &c.GitHub.App.WebhookSecret)
	setString(EnvDatabasePath, &c.Database.Path)
	setString(EnvServerAddress, &c.Server.Address)
	setString(EnvPublicURL, &c.Server.PublicURL)
	setString(EnvLogLevel, &c.Logging.Level)
	setString(EnvDashboardClientSecret, &c.Dashboard.GitHub.ClientSecret)
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

// applyDefaults fills every empty key with its Default… value. It is the
// only place defaults are applied.
func (c *Config) applyDefaults() {
	def := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	def(&c.Server.Address, DefaultServerAddress)
	def(&c.Server.PublicURL, DefaultPublicURL)
	def(&c.GitHub.WebURL, githubx.DefaultWebURL)
	def(&c.GitHub.V3APIURL, githubx.DefaultV3APIURL)
	def(&c.GitHub.V4APIURL, githubx.DefaultV4APIURL)
	if c.GitHub.Host == "" {
		if u, err := url.Parse(c.GitHub.WebURL); err == nil {
			c.GitHub.Host = strings.ToLower(u.Hostname())
		}
	}
	c.GitHub.Budget.applyDefaults()
	def(&c.Database.Driver, DefaultDatabaseDriver)
	def(&c.Database.Path, DefaultDatabasePath)
	def(&c.Commands.Prefix, handlers.DefaultCommandPrefix)
	def(&c.TestPRs.TitleTemplate, service.DefaultTestPRTitle)
	def(&c.Logging.Level, DefaultLogLevel)
	def(&c.Logging.Format, DefaultLogFormat)
	if c.Engine.ReconcileInterval == 0 {
		c.Engine.ReconcileInterval = DefaultReconcileInterval
	}
	if c.Dashboard.Access == "" {
		c.Dashboard.Access = DefaultDashboardAccess
	}
	qd := queue.DefaultSettings()
	for i := range c.Queues {
		q := &c.Queues[i]
		def(&q.Mode, string(qd.Mode))
		def(&q.MergeMethod, string(qd.MergeMethod))
		if q.Concurrency == 0 {
			q.Concurrency = qd.Concurrency
		}
	}
	for i := range c.Notifications {
		if c.Notifications[i].Kind == "" {
			c.Notifications[i].Kind = DefaultNotificationKind
		}
	}
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

// GitHubAppConfig returns the go-githubapp configuration for client
// creation and webhook dispatch, with the private key resolved.
func (c *Config) GitHubAppConfig() githubapp.Config {
	var g githubapp.Config
	g.WebURL = c.GitHub.WebURL
	g.V3APIURL = c.GitHub.V3APIURL
	g.V4APIURL = c.GitHub.V4APIURL
	g.App.IntegrationID = c.GitHub.App.IntegrationID
	g.App.WebhookSecret = c.GitHub.App.WebhookSecret
	g.App.PrivateKey = string(c.PrivateKeyPEM())
	return g
}

// BotLoginFor returns the configured bot login, or "<slug>[bot]" (the login
// GitHub gives an App's actions) when none is configured.
func (c *Config) BotLoginFor(slug string) string {
	if c.GitHub.BotLogin != "" {
		return c.GitHub.BotLogin
	}
	return slug + "[bot]"
}

// Key returns the queue this entry bootstraps on host. Call after Validate.
func (b QueueBootstrap) Key(host string) queue.QueueKey {
	owner, name, _ := strings.Cut(b.Repo, "/")
	return queue.QueueKey{Repo: queue.Repo{Host: host, Owner: owner, Name: name}, Branch: b.Branch}
}

// Settings returns queue.DefaultSettings with this entry's values applied.
// Call after Validate, which reports values Settings could not parse.
func (b QueueBootstrap) Settings() (queue.Settings, error) {
	s := queue.DefaultSettings()
	if b.Mode != "" {
		m, err := queue.ParseEnum("mode", b.Mode, queue.ModeSingle, queue.ModeParallel)
		if err != nil {
			return s, err
		}
		s.Mode = m
	}
	if b.MergeMethod != "" {
		m, err := queue.ParseEnum("merge_method", b.MergeMethod, queue.MergeCommit, queue.Squash, queue.Rebase)
		if err != nil {
			return s, err
		}
		s.MergeMethod = m
	}
	if b.Concurrency > 0 {
		s.Concurrency = b.Concurrency
	}
	if b.RequiredStatuses != nil {
		s.RequiredStatuses = append([]string{}, b.RequiredStatuses...)
	}
	return s, nil
}

// Validate returns every problem with the configuration joined into one
// error (errors.Join), each naming its key; nil when the process may start.
// It reads and parses the private key, so a key that would fail at the first
// GitHub call fails here instead.
func (c *Config) Validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if _, _, err := net.SplitHostPort(c.Server.Address); err != nil {
		add("server.address: %q is not host:port: %w", c.Server.Address, err)
	}
	if err := c.Server.validateAdmin(); err != nil {
		errs = append(errs, err)
	}
	errs = appendURLErr(errs, "server.public_url", c.Server.PublicURL)
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
	if c.Database.Driver != DefaultDatabaseDriver {
		add("database.driver: %q is not supported (only %q)", c.Database.Driver, DefaultDatabaseDriver)
	}
	if c.Database.Path == "" {
		add("database.path is required (or %s)", EnvDatabasePath)
	}
	if _, err := service.ParseTestPRTitle(c.TestPRs.TitleTemplate); err != nil {
		add("test_prs.title_template: %v", err)
	}
	if c.Commands.Prefix == "" || strings.ContainsAny(c.Commands.Prefix, " \t\r\n") {
		add("commands.prefix: %q must be one non-empty word", c.Commands.Prefix)
	}
	if _, err := parseLogLevel(c.Logging.Level); err != nil {
		errs = append(errs, err)
	}
	if f := strings.ToLower(c.Logging.Format); f != "json" && f != "console" {
		add("logging.format: %q is not one of json, console", c.Logging.Format)
	}
	if c.Engine.ReconcileInterval <= 0 {
		add("engine.reconcile_interval: %s must be positive", c.Engine.ReconcileInterval)
	}
	if err := c.GitHub.Budget.validate(); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, c.validateQueues()...)
	switch d := c.Dashboard; d.Access {
	case DashboardToken, DashboardPublic:
	case DashboardGitHub:
		if d.GitHub.ClientID == "" {
			add("dashboard.github.client_id is required with dashboard.access github")
		}
		if d.GitHub.ClientSecret == "" {
			add("dashboard.github.client_secret is required with dashboard.access github (or %s)", EnvDashboardClientSecret)
		}
	default:
		add("dashboard.access: %q is not one of token, github, public", d.Access)
	}
	seen := map[string]int{}
	for i, n := range c.Notifications {
		key := fmt.Sprintf("notifications[%d]", i)
		errs = appendSecretURLErr(errs, key+".url", n.URL)
		if n.Kind != NotifyWebhook && n.Kind != NotifySlack {
			add("%s.kind: %q is not one of webhook, slack", key, n.Kind)
		}
		// A target's delivery cursor is keyed by kind and URL (hashed).
		if j, dup := seen[string(n.Kind)+" "+n.URL]; dup {
			add("%s: the same %s target as notifications[%d]", key, n.Kind, j)
		}
		seen[string(n.Kind)+" "+n.URL] = i
	}
	return errors.Join(errs...)
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

func (c *Config) validateQueues() []error {
	var errs []error
	seen := map[string]int{}
	for i, q := range c.Queues {
		key := fmt.Sprintf("queues[%d]", i)
		owner, name, ok := strings.Cut(q.Repo, "/")
		switch {
		case !ok || owner == "" || name == "" || strings.Contains(name, "/"):
			errs = append(errs, fmt.Errorf("%s.repo: %q is not owner/name", key, q.Repo))
		default:
			if err := queue.ValidateOwner(owner); err != nil {
				errs = append(errs, renameField(err, key+".repo (owner)"))
			}
			if err := queue.ValidateRepoName(name); err != nil {
				errs = append(errs, renameField(err, key+".repo (name)"))
			}
		}
		if q.Branch == "" {
			errs = append(errs, fmt.Errorf("%s.branch is required", key))
		} else if err := queue.ValidateBranch(q.Branch); err != nil {
			errs = append(errs, renameField(err, key+".branch"))
		}
		if q.Concurrency < 0 {
			errs = append(errs, fmt.Errorf("%s.concurrency: %d must be positive", key, q.Concurrency))
		}
		if _, err := queue.ParseEnum("mode", q.Mode, queue.ModeSingle, queue.ModeParallel); err != nil && q.Mode != "" {
			errs = append(errs, fmt.Errorf("%s.%w", key, err))
		}
		if _, err := queue.ParseEnum("merge_method", q.MergeMethod, queue.MergeCommit, queue.Squash, queue.Rebase); err != nil && q.MergeMethod != "" {
			errs = append(errs, fmt.Errorf("%s.%w", key, err))
		}
		if s, err := q.Settings(); err == nil {
			if err := s.Validate(); err != nil { // ranges the queue enforces at creation
				errs = append(errs, fmt.Errorf("%s: %w", key, err))
			}
		}
		id := strings.ToLower(q.Repo) + ":" + q.Branch
		if j, dup := seen[id]; dup {
			errs = append(errs, fmt.Errorf("%s: %s branch %s is already queues[%d]", key, q.Repo, q.Branch, j))
		}
		seen[id] = i
	}
	return errs
}

// renameField makes a *queue.NameError name the configuration key instead
// of the API field ("invalid field queues[0].branch: must not contain
// \"..\", got \"a..b\""); other errors are prefixed with the key.
func renameField(err error, key string) error {
	var ne *queue.NameError
	if !errors.As(err, &ne) {
		return fmt.Errorf("%s: %w", key, err)
	}
	named := *ne
	named.Field = key
	return &named
}

// appendURLErr appends an error naming key unless raw is an absolute
// http(s) URL.
func appendURLErr(errs []error, key, raw string) []error {
	u, err := url.Parse(raw)
	if err != nil {
		return append(errs, fmt.Errorf("%s: %q is not a URL: %w", key, raw, err))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return append(errs, fmt.Errorf("%s: %q is not an absolute http(s) URL", key, raw))
	}
	return errs
}

// appendSecretURLErr is appendURLErr for a URL that may carry a credential
// (a notification target): the error quotes none of it.
func appendSecretURLErr(errs []error, key, raw string) []error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return append(errs, fmt.Errorf("%s: not an absolute http(s) URL (the value is not shown: it may hold a secret)", key))
	}
	return errs
}

func parseLogLevel(s string) (zerolog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return zerolog.DebugLevel, nil
	case "info":
		return zerolog.InfoLevel, nil
	case "warn":
		return zerolog.WarnLevel, nil
	case "error":
		return zerolog.ErrorLevel, nil
	}
	return zerolog.InfoLevel, fmt.Errorf("logging.level: %q is not one of debug, info, warn, error (or %s)", s, EnvLogLevel)
}

// Logger builds the process logger: JSON (or, with format console, a
// human-readable form) on stderr, at the configured level, with timestamps.
// An invalid level falls back to info; Validate reports it.
func (c *Config) Logger() zerolog.Logger { return c.loggerTo(os.Stderr) }

func (c *Config) loggerTo(w io.Writer) zerolog.Logger {
	if strings.EqualFold(c.Logging.Format, "console") {
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.RFC3339}
	}
	level, _ := parseLogLevel(c.Logging.Level)
	return zerolog.New(w).Level(level).With().Timestamp().Logger()
}
