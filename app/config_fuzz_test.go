package app

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzConfig runs any YAML through the steps of LoadConfig (decodeStrict,
// environment overrides, defaults) and Validate, with or without the
// secrets in the environment. Nothing panics; errors say something; and a
// configuration Validate accepts can start: its queues yield valid
// settings and keys, its log level parses and its private key is an RSA key.
func FuzzConfig(f *testing.F) {
	example, err := os.ReadFile("../config.example.yml")
	if err != nil {
		f.Fatal(err)
	}
	// Without its comments: a new input is minimized byte by byte.
	var keys []string
	for _, line := range strings.Split(string(example), "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			keys = append(keys, line)
		}
	}
	for _, s := range []string{
		strings.Join(keys, "\n"),
		"",
		"---\n",
		"queues:\n  - repo: octo/widgets\n    branch: main\n    mode: PARALLEL\n    concurrency: 4\n    required_statuses: [ci, lint]\n    merge_method: rebase\n",
		"queues:\n  - {repo: octo/widgets, branch: main}\n  - {repo: OCTO/Widgets, branch: main}\n",
		"queues:\n  - {repo: octo/widgets, branch: main, concurrency: -1, mode: fast, merge_method: ff}\n",
		"queues:\n  - {repo: 'octo/wid gets', branch: ''}\n  - {repo: octo}\n",
		"queues:\n  - {repo: octo/widgets, branch: main, required_statuses: []}\n",
		"notifications:\n  - url: https://hooks.example.com/mq\n    secret: whsec_x\n  - {url: 'https://hooks.slack.com/services/T/B/X', kind: slack}\n",
		"notifications:\n  - {url: https://a.example}\n  - {url: https://a.example, kind: webhook}\n  - {url: ftp://x, kind: sms}\n",
		"engine:\n  reconcile_interval: 1h30m\n",
		"engine:\n  reconcile_interval: -5s\n",
		"engine:\n  reconcile_interval: 30\n",
		"server:\n  address: localhost\n  public_url: /relative\n",
		"github:\n  web_url: https://ghe.example.com\n  v3_api_url: https://ghe.example.com/api/v3/\n  v4_api_url: https://ghe.example.com/api/graphql\n",
		"github:\n  host: 'a b'\n  app:\n    integration_id: -1\n    private_key: 'not a key'\n    private_key_path: /etc/passwd\n",
		"github:\n  app:\n    private_key: \"-----BEGIN RSA PRIVATE KEY-----\\nAAAA\\n-----END RSA PRIVATE KEY-----\\n\"\n",
		"github:\n  app:\n    private_key_path: /dev/zero\n",
		"github:\n  app:\n    integration_id: 99999999999999999999\n",
		"logging: {level: DEBUG, format: Console}\n",
		"logging: {level: trace, format: text}\n",
		"commands: {prefix: '/mq now'}\n",
		"unknown_key: 1\n",
		"server: [1, 2]\n",
		"a: &a [*a, *a]\n",
		"x: &x {a: 1}\nserver: *x\n",
		"server: {address: ':8080'}\n---\nserver: {address: ':9090'}\n",
		"\t- tab\n",
		"\xff\xfe",
		"!!binary aGVsbG8=\n",
		"queues: !!map {}\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	// The smallest RSA key Go accepts: Validate parses it on every input.
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		f.Fatal(err)
	}
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
	keyFile := filepath.Join(f.TempDir(), "key.pem")
	if err := os.WriteFile(keyFile, []byte(keyPEM), 0o600); err != nil {
		f.Fatal(err)
	}
	secrets := envMap(map[string]string{EnvWebhookSecret: "s3cret-webhook-secret", EnvAppID: "42", EnvPrivateKey: keyPEM})
	f.Fuzz(func(t *testing.T, data []byte, withSecrets bool) {
		c := &Config{}
		if err := decodeStrict(data, c); err != nil {
			if err.Error() == "" {
				t.Fatalf("decodeStrict(%q): empty error", data)
			}
			return
		}
		env := envMap(nil)
		if withSecrets {
			env = secrets
		}
		if err := c.applyEnv(env); err != nil {
			t.Fatalf("applyEnv: %v", err)
		}
		if c.GitHub.App.PrivateKeyPath != "" {
			c.GitHub.App.PrivateKeyPath = keyFile // never read a file the input names
		}
		c.applyDefaults()
		if err := c.Validate(); err != nil {
			if err.Error() == "" {
				t.Fatalf("Validate(%q): empty error", data)
			}
			return
		}
		for i, q := range c.Queues {
			s, err := q.Settings()
			if err != nil {
				t.Fatalf("queues[%d] of %q passed Validate but has no settings: %v", i, data, err)
			}
			if err := s.Validate(); err != nil {
				t.Fatalf("queues[%d] of %q passed Validate but its settings do not: %v", i, data, err)
			}
			if k := q.Key(c.GitHub.Host); k.Repo.Owner == "" || k.Repo.Name == "" || k.Branch == "" || k.Repo.Host == "" {
				t.Fatalf("queues[%d] of %q passed Validate with key %+v", i, data, k)
			}
		}
		if _, err := parseLogLevel(c.Logging.Level); err != nil {
			t.Fatalf("accepted log level %q", c.Logging.Level)
		}
		if g := c.GitHubClientConfig(); len(g.PrivateKey) == 0 || g.AppID <= 0 || utf8.RuneCountInString(c.GitHub.App.WebhookSecret) < MinWebhookSecretLen {
			t.Fatalf("accepted App credentials %d, %q, %d-byte key", g.AppID, c.GitHub.App.WebhookSecret, len(g.PrivateKey))
		}
		if c.Engine.ReconcileInterval <= 0 || c.GitHub.Host == "" || c.Commands.Prefix == "" {
			t.Fatalf("accepted %+v", c)
		}
		log := c.loggerTo(io.Discard)
		log.Info().Msg("configured")
	})
}
