package app

import (
	"strings"
	"testing"
)

// TestValidateBootstrapQueueNames: a bootstrap queue or a host breaking the
// naming rules fails validation with an error naming the configuration key
// and the rule, so a bad name never becomes a queue.
func TestValidateBootstrapQueueNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mutate func(c *Config)
		want   string // "" = valid
	}{
		{"valid names", func(c *Config) {
			c.Queues = []QueueBootstrap{{Repo: "octocat_acme/.github", Branch: "release/v1.2"}}
		}, ""},
		{"host with port", func(c *Config) { c.GitHub.Host = "ghe.example.com:8443" }, ""},
		{"owner traversal", func(c *Config) { c.Queues = []QueueBootstrap{{Repo: "..%2F/widgets", Branch: "main"}} },
			"invalid field queues[0].repo (owner): must hold only ASCII letters, digits and hyphens"},
		{"name traversal", func(c *Config) { c.Queues = []QueueBootstrap{{Repo: "acme/..", Branch: "main"}} },
			`invalid field queues[0].repo (name): must not be "." or ".."`},
		{"name with a space", func(c *Config) { c.Queues = []QueueBootstrap{{Repo: "acme/wid gets", Branch: "main"}} },
			"invalid field queues[0].repo (name)"},
		{"branch traversal", func(c *Config) {
			c.Queues = []QueueBootstrap{{Repo: "acme/widgets", Branch: "../../app/installations"}}
		},
			`invalid field queues[0].branch: must not contain ".."`},
		{"branch newline", func(c *Config) { c.Queues = []QueueBootstrap{{Repo: "acme/widgets", Branch: "main\n"}} },
			`invalid field queues[0].branch: must not contain control characters, got "main\n"`},
		{"branch lock", func(c *Config) { c.Queues = []QueueBootstrap{{Repo: "acme/widgets", Branch: "x.lock"}} },
			"invalid field queues[0].branch"},
		{"RTL override", func(c *Config) { c.Queues = []QueueBootstrap{{Repo: "acme/widgets", Branch: "main\u202e"}} },
			`U+202E), got "main\u202e"`},
		{"host path", func(c *Config) { c.GitHub.Host = "github.com/../x" }, "invalid field github.host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := validConfig(t)
			tt.mutate(c)
			err := c.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
