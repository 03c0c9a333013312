package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	mq "github.com/mergequeue/mq"
	"github.com/mergequeue/mq/app"
)

// appManifest is a GitHub App manifest: app.yml's keys, GitHub's JSON
// names.
type appManifest struct {
	Name               string            `yaml:"name" json:"name"`
	Description        string            `yaml:"description" json:"description,omitempty"`
	URL                string            `yaml:"url" json:"url"`
	HookAttributes     hookAttributes    `yaml:"hook_attributes" json:"hook_attributes"`
	RedirectURL        string            `yaml:"redirect_url" json:"redirect_url,omitempty"`
	Public             bool              `yaml:"public" json:"public"`
	DefaultPermissions map[string]string `yaml:"default_permissions" json:"default_permissions"`
	DefaultEvents      []string          `yaml:"default_events" json:"default_events"`
}

// hookAttributes configure the App's webhook.
type hookAttributes struct {
	URL    string `yaml:"url" json:"url"`
	Active bool   `yaml:"active" json:"active"`
}

// loadManifest decodes the embedded app.yml; an unknown key is an error.
func loadManifest() (appManifest, error) {
	var m appManifest
	dec := yaml.NewDecoder(bytes.NewReader(mq.AppManifest))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("failed to decode app.yml: %w", err)
	}
	return m, nil
}

// forDeployment returns m with the URLs of a deployment: the App's homepage
// is publicURL (the dashboard), its webhook publicURL/api/github/hook, and
// GitHub sends the person back to redirectURL. A non-empty name replaces
// the manifest's.
func (m appManifest) forDeployment(name, publicURL, redirectURL string) appManifest {
	if name != "" {
		m.Name = name
	}
	base := strings.TrimRight(publicURL, "/")
	m.URL = base + "/"
	m.HookAttributes = hookAttributes{URL: base + app.WebhookPath, Active: true}
	m.RedirectURL = redirectURL
	return m
}

// JSON is the manifest as GitHub reads it from the form's manifest field.
func (m appManifest) JSON() (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("failed to encode the manifest: %w", err)
	}
	return string(b), nil
}
