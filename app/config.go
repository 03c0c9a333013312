package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"
)

// The configuration is split by concern: the server (config_server.go),
// GitHub and its budget (config_github.go, config_budget.go), the database
// (config_database.go), commands, test PRs and the engine
// (config_engine.go), the bootstrap queues (config_queues.go), the
// dashboard (config_dashboard.go), notifications (config_notifications.go)
// and logging (config_logging.go); environment overrides
// (config_env.go), defaults (config_defaults.go) and validation
// (config_validate.go) each have one place.

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
