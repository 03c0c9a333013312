package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"text/template"
	"time"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/githubx"
)

// setupConfig is the config `bot setup` writes: the keys that differ from
// config.example.yml's defaults, strings quoted as JSON (valid YAML).
var setupConfig = template.Must(template.New("config").Funcs(template.FuncMap{"q": quoteYAML}).Parse(
	`# Written by "bot setup" on {{.Date}} for the GitHub App {{q .Name}},
# {{q .HTMLURL}}.
# It holds the App's webhook secret and names its private key file: keep
# both private (mode 0600), or move the secrets to the environment
# (MQ_GITHUB_WEBHOOK_SECRET, MQ_GITHUB_PRIVATE_KEY_PATH). Every other key
# takes its default; config.example.yml documents them all.

server:
  address: {{q .Address}}
  public_url: {{q .PublicURL}}

github:
  web_url: {{q .WebURL}}
  v3_api_url: {{q .APIURL}}
  v4_api_url: {{q .GraphQLURL}}
  app:
    integration_id: {{.AppID}}
    webhook_secret: {{q .WebhookSecret}}
    private_key_path: {{q .KeyPath}}

database:
  path: {{q .DBPath}}
`))

// quoteYAML quotes s as a JSON string, which YAML reads back unchanged.
func quoteYAML(s string) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}

// writeFiles writes the App's private key beside the config (mode 0600),
// then the config naming it (mode 0600), which takes its name only once
// app.LoadConfig and Validate accept it, as `bot serve` will. Without
// force neither file may exist.
func (p *setupPlan) writeFiles(a *githubx.RegisteredApp) error {
	if err := writeSecretFile(p.keyPath, []byte(a.PEM), p.force); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p.configPath), ".bot-setup-*.yml") // mode 0600
	if err != nil {
		return fmt.Errorf("failed to write the config: %w", err)
	}
	defer os.Remove(tmp.Name()) // once linked or renamed, a no-op or a harmless failure
	err = setupConfig.Execute(tmp, map[string]any{
		"Date": time.Now().UTC().Format(time.DateOnly), "Name": a.Name, "HTMLURL": a.HTMLURL,
		"Address": p.address, "PublicURL": p.publicURL, "WebURL": p.webURL, "APIURL": p.apiURL,
		"GraphQLURL": p.graphqlURL, "AppID": a.ID, "WebhookSecret": a.WebhookSecret,
		"KeyPath": p.keyPath, "DBPath": p.dbPath,
	})
	if err = errors.Join(err, tmp.Close()); err != nil {
		return fmt.Errorf("failed to write the config: %w", err)
	}
	cfg, err := app.LoadConfig(tmp.Name(), nil)
	if err == nil {
		err = cfg.Validate()
	}
	if err != nil {
		return fmt.Errorf("the config written is not valid: %w", err)
	}
	if p.force {
		err = os.Rename(tmp.Name(), p.configPath)
	} else {
		err = os.Link(tmp.Name(), p.configPath) // fails if the file appeared meanwhile
	}
	if err != nil {
		return fmt.Errorf("failed to write %s: %w", p.configPath, err)
	}
	return nil
}

// writeSecretFile writes data to path with mode 0600; without overwrite an
// existing file is an error.
func writeSecretFile(path string, data []byte, overwrite bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if overwrite {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600) //nolint:gosec // the operator names the file
	if err != nil {
		return fmt.Errorf("failed to write %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil && overwrite {
		err = f.Chmod(0o600) // an older file may have been readable by others
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("failed to write %s: %w", path, err)
	}
	return nil
}
