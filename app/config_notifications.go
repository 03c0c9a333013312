package app

import "fmt"

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

// validateNotifications reports each target's problems, naming its key;
// no error quotes a target's URL, which may hold a secret.
func (c *Config) validateNotifications() []error {
	var errs []error
	seen := map[string]int{}
	for i, n := range c.Notifications {
		key := fmt.Sprintf("notifications[%d]", i)
		errs = appendSecretURLErr(errs, key+".url", n.URL)
		if n.Kind != NotifyWebhook && n.Kind != NotifySlack {
			errs = append(errs, fmt.Errorf("%s.kind: %q is not one of webhook, slack", key, n.Kind))
		}
		// A target's delivery cursor is keyed by kind and URL (hashed).
		if j, dup := seen[string(n.Kind)+" "+n.URL]; dup {
			errs = append(errs, fmt.Errorf("%s: the same %s target as notifications[%d]", key, n.Kind, j))
		}
		seen[string(n.Kind)+" "+n.URL] = i
	}
	return errs
}
