package app

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mergequeue/mq/githubx"
	"github.com/mergequeue/mq/queue"
)

var testRSAKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

func pkcs1PEM() string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(testRSAKey())}))
}

func pkcs8PEM(t *testing.T, key any) string {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// writeFile writes content to name in a fresh temp dir and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// validConfig is a Config that passes Validate, built the way LoadConfig does.
func validConfig(t *testing.T) *Config {
	t.Helper()
	c, err := LoadConfig("", envMap(map[string]string{
		EnvWebhookSecret: "s3cret-webhook-secret",
		EnvAppID:         "42",
		EnvPrivateKey:    pkcs1PEM(),
	}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLoadConfigDefaults(t *testing.T) {
	t.Parallel()
	c, err := LoadConfig("", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Server: ServerConfig{Address: DefaultServerAddress, PublicURL: DefaultPublicURL},
		GitHub: GitHubConfig{
			WebURL: githubx.DefaultWebURL, V3APIURL: githubx.DefaultV3APIURL, V4APIURL: githubx.DefaultV4APIURL,
			Host: "github.com",
			// GitHub's documented secondary limits.
			Budget: GitHubBudget{ConcurrentRequests: 100, PointsPerMinute: 900, WritesPerMinute: 80, WritesPerHour: 500,
				Minute: time.Minute, Hour: time.Hour, MaxPause: 15 * time.Minute},
			// Test branches are built with the merges API (SPEC §6).
			TestBranches: TestBranchesREST, Git: GitHubGit{Dir: "git-clones", Timeout: 2 * time.Minute},
		},
		Database: DatabaseConfig{Driver: "sqlite", Path: "mq.db"},
		Commands: CommandsConfig{Prefix: "/mq"}, TestPRs: TestPRsConfig{TitleTemplate: "merge queue: {{.PRs}}"},
		Logging: LoggingConfig{Level: "info", Format: "json"},
		Engine:  EngineConfig{ReconcileInterval: 30 * time.Second},
		// The dashboard is private unless configured public.
		Dashboard: DashboardConfig{Access: DashboardToken},
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("defaults:\n got %+v\nwant %+v", c, want)
	}
}

func TestLoadConfigDecoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		yaml  string
		check func(t *testing.T, c *Config)
	}{
		{
			name: "enterprise URLs derive host",
			yaml: "github:\n  web_url: https://GHE.example.com:8443\n  v3_api_url: https://ghe.example.com/api/v3/\n",
			check: func(t *testing.T, c *Config) {
				if c.GitHub.Host != "ghe.example.com" || c.GitHub.V3APIURL != "https://ghe.example.com/api/v3/" {
					t.Errorf("github = %+v", c.GitHub)
				}
			},
		},
		{
			name: "explicit host and bot login kept",
			yaml: "github:\n  host: example.org\n  bot_login: mq-bot\n",
			check: func(t *testing.T, c *Config) {
				if c.GitHub.Host != "example.org" || c.BotLoginFor("ignored") != "mq-bot" {
					t.Errorf("github = %+v", c.GitHub)
				}
			},
		},
		{
			name: "duration and logging",
			yaml: "engine:\n  reconcile_interval: 2m\nlogging:\n  level: debug\n  format: console\n",
			check: func(t *testing.T, c *Config) {
				if c.Engine.ReconcileInterval != 2*time.Minute || c.Logging != (LoggingConfig{"debug", "console"}) {
					t.Errorf("got %+v %+v", c.Engine, c.Logging)
				}
			},
		},
		{
			name: "bootstrap queues take defaults; absent vs empty statuses",
			yaml: "queues:\n  - repo: o/r\n    branch: main\n  - repo: o/r\n    branch: dev\n    mode: parallel\n    concurrency: 3\n    required_statuses: []\n    merge_method: rebase\n",
			check: func(t *testing.T, c *Config) {
				q0, q1 := c.Queues[0], c.Queues[1]
				if q0.Mode != "single" || q0.MergeMethod != "squash" || q0.Concurrency != 1 || q0.RequiredStatuses != nil {
					t.Errorf("queues[0] = %+v", q0)
				}
				s, err := q1.Settings()
				if err != nil {
					t.Fatal(err)
				}
				if s.Mode != queue.ModeParallel || s.Concurrency != 3 || s.MergeMethod != queue.Rebase ||
					s.RequiredStatuses == nil || len(s.RequiredStatuses) != 0 {
					t.Errorf("queues[1] settings = %+v", s)
				}
				if k := q1.Key(c.GitHub.Host); k.String() != "github.com/o/r:dev" {
					t.Errorf("key = %s", k)
				}
			},
		},
		{
			name: "notification kind defaults to webhook",
			yaml: "notifications:\n  - url: https://x.example/h\n  - url: https://hooks.slack.com/x\n    kind: slack\n",
			check: func(t *testing.T, c *Config) {
				if c.Notifications[0].Kind != NotifyWebhook || c.Notifications[1].Kind != NotifySlack {
					t.Errorf("notifications = %+v", c.Notifications)
				}
			},
		},
		{
			name:  "empty file",
			yaml:  "",
			check: func(t *testing.T, c *Config) {},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := LoadConfig(writeFile(t, "c.yml", tt.yaml), nil)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

func TestLoadConfigErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		want string
	}{
		{"unknown top-level key", "sever:\n  address: x\n", nil, "field sever not found"},
		{"unknown nested key", "github:\n  app:\n    private_key_file: x\n", nil, "field private_key_file not found"},
		{"unknown queue key", "queues:\n  - repo: o/r\n    brnach: main\n", nil, "field brnach not found"},
		{"integer duration", "engine:\n  reconcile_interval: 30\n", nil, "into time.Duration"},
		{"two documents", "server: {}\n---\nserver: {}\n", nil, "single YAML document"},
		{"bad app id env", "", map[string]string{EnvAppID: "abc"}, EnvAppID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := LoadConfig(writeFile(t, "c.yml", tt.yaml), envMap(tt.env))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
	if _, err := LoadConfig(filepath.Join(t.TempDir(), "missing.yml"), nil); err == nil {
		t.Fatal("missing file: want error")
	}
}

func TestLoadConfigEnvOverrides(t *testing.T) {
	t.Parallel()
	file := "server:\n  address: :1\n  public_url: http://file\ngithub:\n  app:\n    integration_id: 1\n    webhook_secret: file\n    private_key_path: /file.pem\ndatabase:\n  path: file.db\nlogging:\n  level: error\n"
	tests := []struct {
		name  string
		env   map[string]string
		check func(t *testing.T, c *Config)
	}{
		{
			name: "no env keeps file",
			check: func(t *testing.T, c *Config) {
				if c.GitHub.App.WebhookSecret != "file" || c.GitHub.App.PrivateKeyPath != "/file.pem" || c.Database.Path != "file.db" {
					t.Errorf("got %+v", c)
				}
			},
		},
		{
			name: "every override",
			env: map[string]string{
				EnvWebhookSecret: "env", EnvAppID: "99", EnvPrivateKeyPath: "/env.pem",
				EnvDatabasePath: "/data/mq.db", EnvServerAddress: ":9", EnvPublicURL: "https://mq.example", EnvLogLevel: "warn",
			},
			check: func(t *testing.T, c *Config) {
				want := AppCredentials{IntegrationID: 99, WebhookSecret: "env", PrivateKeyPath: "/env.pem"}
				if c.GitHub.App != want || c.Database.Path != "/data/mq.db" || c.Server != (ServerConfig{Address: ":9", PublicURL: "https://mq.example"}) ||
					c.Logging.Level != "warn" {
					t.Errorf("got %+v", c)
				}
			},
		},
		{
			name: "inline key from env replaces file key path",
			env:  map[string]string{EnvPrivateKey: "PEM"},
			check: func(t *testing.T, c *Config) {
				if c.GitHub.App.PrivateKey != "PEM" || c.GitHub.App.PrivateKeyPath != "" {
					t.Errorf("app = %+v", c.GitHub.App)
				}
			},
		},
		{
			name: "both key variables keep both (Validate reports it)",
			env:  map[string]string{EnvPrivateKey: "PEM", EnvPrivateKeyPath: "/k"},
			check: func(t *testing.T, c *Config) {
				if c.GitHub.App.PrivateKey != "PEM" || c.GitHub.App.PrivateKeyPath != "/k" {
					t.Errorf("app = %+v", c.GitHub.App)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := LoadConfig(writeFile(t, "c.yml", file), envMap(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		mutate func(c *Config)
		want   []string // substrings; nil = valid
	}{
		{"valid pkcs1 inline", func(c *Config) {}, nil},
		{"valid pkcs8 file", func(c *Config) {
			c.GitHub.App.PrivateKey = ""
			c.GitHub.App.PrivateKeyPath = writeFile(t, "k.pem", pkcs8PEM(t, testRSAKey()))
		}, nil},
		{"valid escaped newlines", func(c *Config) {
			c.GitHub.App.PrivateKey = strings.ReplaceAll(pkcs1PEM(), "\n", `\n`)
		}, nil},
		{"valid queues and notifications", func(c *Config) {
			c.Queues = []QueueBootstrap{
				{Repo: "o/r", Branch: "main", Mode: "Parallel", MergeMethod: "merge_commit"},
				{Repo: "o/r", Branch: "dev"}, // empty fields take queue defaults
			}
			c.Notifications = []NotificationTarget{{URL: "https://x.example", Kind: NotifySlack}}
		}, nil},
		{"custom test PR title", func(c *Config) { c.TestPRs.TitleTemplate = "[mq {{.Branch}}] {{.PRs}}" }, nil},
		{"scaled-down budget", func(c *Config) { c.GitHub.Budget = GitHubBudget{WritesPerMinute: 30, Minute: time.Second} }, nil},
		{"negative budget", func(c *Config) { c.GitHub.Budget.WritesPerHour, c.GitHub.Budget.Minute = -1, -time.Second },
			[]string{"github.budget: invalid GitHub budget: writes per hour must not be negative", "minute must not be negative"}},
		{"test PR title that does not parse", func(c *Config) { c.TestPRs.TitleTemplate = "{{.PRs" },
			[]string{"test_prs.title_template: invalid test PR title template"}},
		{"test PR title of the bare branch name", func(c *Config) { c.TestPRs.TitleTemplate = "{{.TestBranch}}" },
			[]string{"not nothing or the bare branch name"}},
		{"test PR title naming an unknown field", func(c *Config) { c.TestPRs.TitleTemplate = "{{.Nope}}" },
			[]string{"test_prs.title_template"}},
		{"empty webhook secret", func(c *Config) { c.GitHub.App.WebhookSecret = "" },
			[]string{"github.app.webhook_secret is required (or MQ_GITHUB_WEBHOOK_SECRET)"}},
		{"5-character webhook secret", func(c *Config) { c.GitHub.App.WebhookSecret = "abcde" },
			[]string{"github.app.webhook_secret (or MQ_GITHUB_WEBHOOK_SECRET) has 5 characters, want at least 16"}},
		{"15-character webhook secret", func(c *Config) { c.GitHub.App.WebhookSecret = "0123456789abcde" },
			[]string{"has 15 characters, want at least 16"}},
		{"16-character webhook secret", func(c *Config) { c.GitHub.App.WebhookSecret = "0123456789abcdef" }, nil},
		{"no key", func(c *Config) { c.GitHub.App.PrivateKey = "" }, []string{"github.app.private_key or github.app.private_key_path is required"}},
		{"both keys", func(c *Config) { c.GitHub.App.PrivateKeyPath = "/k" }, []string{"both set"}},
		{"unreadable key file", func(c *Config) {
			c.GitHub.App.PrivateKey = ""
			c.GitHub.App.PrivateKeyPath = filepath.Join(t.TempDir(), "nope.pem")
		}, []string{"github.app.private_key_path: failed to read key"}},
		{"not PEM", func(c *Config) { c.GitHub.App.PrivateKey = "hello" }, []string{"github.app.private_key: no PEM block"}},
		{"garbage PEM", func(c *Config) {
			c.GitHub.App.PrivateKey = string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: []byte("x")}))
		}, []string{"github.app.private_key: failed to parse"}},
		{"EC key", func(c *Config) { c.GitHub.App.PrivateKey = pkcs8PEM(t, ecKey) }, []string{"not an RSA key"}},
		{"app id", func(c *Config) { c.GitHub.App.IntegrationID = 0 }, []string{"github.app.integration_id"}},
		{"urls", func(c *Config) {
			c.Server.PublicURL = "localhost:8080"
			c.GitHub.WebURL = "ftp://x"
			c.GitHub.V3APIURL = "/api/v3"
			c.GitHub.V4APIURL = "http://%zz"
		}, []string{"server.public_url", "github.web_url", "github.v3_api_url", "github.v4_api_url"}},
		{"address and host", func(c *Config) { c.Server.Address = "8080"; c.GitHub.Host = "" }, []string{"server.address", "github.host"}},
		{"database", func(c *Config) { c.Database = DatabaseConfig{Driver: "mysql"} }, []string{"database.driver"}},
		{"sqlite without a path", func(c *Config) { c.Database = DatabaseConfig{Driver: "sqlite", URL: "postgres://h/db"} },
			[]string{"database.path", "database.url is for driver"}},
		{"sqlite with replicas", func(c *Config) { c.Database = DatabaseConfig{Driver: "sqlite", Path: "mq.db", Replicas: true} },
			[]string{"database.replicas is for driver"}},
		{"postgres without a URL", func(c *Config) { c.Database = DatabaseConfig{Driver: "postgres"} }, []string{"database.url is required"}},
		{"postgres with a bad URL", func(c *Config) { c.Database = DatabaseConfig{Driver: "postgres", URL: "mysql://u:s3cret@h/db"} },
			[]string{"database.url: want a postgres://"}},
		{"command prefix", func(c *Config) { c.Commands.Prefix = "/m q" }, []string{"commands.prefix"}},
		{"logging", func(c *Config) { c.Logging = LoggingConfig{Level: "trace", Format: "xml"} },
			[]string{"logging.level", "logging.format"}},
		{"reconcile interval", func(c *Config) { c.Engine.ReconcileInterval = -time.Second }, []string{"engine.reconcile_interval"}},
		{"bad bootstrap queues", func(c *Config) {
			c.Queues = []QueueBootstrap{
				{Repo: "just-a-name", Branch: "main"},
				{Repo: "o/r/x", Branch: "main"},
				{Repo: "o/r", Mode: "serial", MergeMethod: "ff", Concurrency: -1},
				{Repo: "o/r", Branch: "main"},
				{Repo: "O/R", Branch: "main"},
			}
		}, []string{
			`queues[0].repo: "just-a-name" is not owner/name`, "queues[1].repo", "queues[2].branch is required",
			"queues[2].concurrency", "queues[2].mode", `queues[2].merge_method: "ff"`, "queues[4]: O/R branch main is already queues[3]",
		}},
		{"bootstrap concurrency past its bound", func(c *Config) {
			c.Queues = []QueueBootstrap{{Repo: "o/r", Branch: "main", Concurrency: 2562048}}
		}, []string{"queues[0]: concurrency must be between 1 and 1000, got 2562048"}},
		{"blank bootstrap required status", func(c *Config) {
			c.Queues = []QueueBootstrap{{Repo: "o/r", Branch: "main", RequiredStatuses: []string{"ci", " "}}}
		}, []string{"queues[0]: required_statuses[1] must be a non-empty status or check name"}},
		{"bootstrap enums in any case, errors naming the YAML keys", func(c *Config) {
			c.Queues = []QueueBootstrap{{Repo: "o/r", Branch: "main", Mode: "PARALLEL", MergeMethod: "Squash"},
				{Repo: "o/r", Branch: "dev", Mode: "fast", MergeMethod: "mergeCommit"}}
		}, []string{`queues[1].mode: "fast" is not one of single, parallel`,
			`queues[1].merge_method: "mergeCommit" is not one of merge_commit, squash, rebase`}},
		{"bootstrap autoTune without its bound, and bounds out of range", func(c *Config) {
			c.Queues = []QueueBootstrap{{Repo: "o/r", Branch: "main", AutoTune: true},
				{Repo: "o/r", Branch: "dev", AutoTune: true, AutoTuneMaxRuns: -2, AutoTuneMaxRunsPerHundredMerges: -1}}
		}, []string{"queues[0]: autoTune requires autoTuneMaxRuns", "queues[1]: auto_tune_max_runs must be between 0 and 1000, got -2",
			"queues[1]: auto_tune_max_runs_per_hundred_merges must be between 0 and 100000, got -1"}},
		{"bad notification", func(c *Config) {
			c.Notifications = []NotificationTarget{{URL: "nope", Kind: "email"}}
		}, []string{"notifications[0].url", `notifications[0].kind: "email"`}},
		{"duplicate notification target", func(c *Config) {
			c.Notifications = []NotificationTarget{{URL: "https://x.example/h", Kind: NotifyWebhook}, {URL: "https://x.example/h", Kind: NotifyWebhook}}
		}, []string{"notifications[1]: the same webhook target as notifications[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := validConfig(t)
			tt.mutate(c)
			err := c.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want %q", tt.want)
			}
			t.Log(err)
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %v\nwant it to contain %q", err, w)
				}
			}
			if n := len(strings.Split(err.Error(), "\n")); n < len(tt.want) {
				t.Errorf("got %d problems, want at least %d (all reported at once)", n, len(tt.want))
			}
		})
	}
}

func TestPrivateKeyPEMAndGitHubClientConfig(t *testing.T) {
	t.Parallel()
	c := validConfig(t)
	c.GitHub.App.PrivateKey = ""
	c.GitHub.App.PrivateKeyPath = writeFile(t, "k.pem", pkcs1PEM())
	if got := string(c.PrivateKeyPEM()); got != pkcs1PEM() {
		t.Fatalf("PrivateKeyPEM from file = %q", got)
	}
	g := c.GitHubClientConfig()
	if string(g.PrivateKey) != pkcs1PEM() || g.AppID != 42 || g.Host != "github.com" ||
		g.V3APIURL != githubx.DefaultV3APIURL || g.V4APIURL != githubx.DefaultV4APIURL || g.WebURL != githubx.DefaultWebURL {
		t.Fatalf("GitHubClientConfig = %+v", g)
	}
	c.GitHub.App.PrivateKeyPath = filepath.Join(t.TempDir(), "gone.pem")
	if c.PrivateKeyPEM() != nil {
		t.Fatal("unreadable key file: want nil")
	}
	if got := c.BotLoginFor("my-app"); got != "my-app[bot]" {
		t.Fatalf("BotLoginFor = %q", got)
	}
}

func TestLogger(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, level, format string
		wantJSON            bool
	}{
		{"json warn", "warn", "json", true},
		{"console warn", "WARN", "console", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := &Config{Logging: LoggingConfig{Level: tt.level, Format: tt.format}}
			var buf bytes.Buffer
			log := c.loggerTo(&buf)
			log.Info().Msg("hidden")
			log.Warn().Str("k", "v").Msg("shown")
			out := buf.String()
			if strings.Contains(out, "hidden") || !strings.Contains(out, "shown") {
				t.Fatalf("level filtering wrong: %q", out)
			}
			var obj map[string]any
			isJSON := json.Unmarshal(bytes.TrimSpace(buf.Bytes()), &obj) == nil
			if isJSON != tt.wantJSON {
				t.Fatalf("json = %v, want %v: %q", isJSON, tt.wantJSON, out)
			}
			if isJSON && (obj["level"] != "warn" || obj["k"] != "v" || obj["time"] == nil) {
				t.Fatalf("fields = %v", obj)
			}
		})
	}
}

// TestConfigExample keeps config.example.yml in step with Config: it decodes
// strictly, validates once secrets come from the environment, leaves every
// default unchanged, and mentions every key.
func TestConfigExample(t *testing.T) {
	t.Parallel()
	const path = "../config.example.yml"
	c, err := LoadConfig(path, envMap(map[string]string{
		EnvWebhookSecret:  "s3cret-webhook-secret",
		EnvAppID:          "1",
		EnvPrivateKeyPath: writeFile(t, "k.pem", pkcs1PEM()),
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("example does not validate: %v", err)
	}
	def, err := LoadConfig("", nil)
	if err != nil {
		t.Fatal(err)
	}
	def.GitHub.App = c.GitHub.App
	def.Queues, def.Notifications = c.Queues, c.Notifications
	if !reflect.DeepEqual(c, def) {
		t.Errorf("example values differ from defaults:\nexample  %+v\ndefaults %+v", c, def)
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range yamlKeys(reflect.TypeFor[Config](), "") {
		if strings.Contains(key, "[]") {
			// List items are documented in comments: require the field name.
			field := key[strings.LastIndex(key, ".")+1:]
			if !strings.Contains(string(raw), field+":") {
				t.Errorf("config.example.yml does not document %s", key)
			}
			continue
		}
		if !hasPath(doc, strings.Split(key, ".")) {
			t.Errorf("config.example.yml lacks key %s", key)
		}
	}
}

// yamlKeys lists the dotted yaml paths of t's leaf fields; list items are
// written "name[].field".
func yamlKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for f := range t.Fields() {
		name := strings.Split(f.Tag.Get("yaml"), ",")[0]
		key := prefix + name
		ft := f.Type
		switch {
		case ft.Kind() == reflect.Struct:
			keys = append(keys, yamlKeys(ft, key+".")...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			keys = append(keys, key)
			keys = append(keys, yamlKeys(ft.Elem(), key+"[].")...)
		default:
			keys = append(keys, key)
		}
	}
	return keys
}

func hasPath(m map[string]any, path []string) bool {
	v, ok := m[path[0]]
	if !ok || len(path) == 1 {
		return ok
	}
	sub, ok := v.(map[string]any)
	return ok && hasPath(sub, path[1:])
}
