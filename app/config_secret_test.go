package app

import (
	"strings"
	"testing"
)

// A notification URL that fails validation is named by its key only: its
// value may hold a chat webhook's credential.
func TestInvalidNotificationURLIsNotQuoted(t *testing.T) {
	t.Parallel()
	const secret = "B0SECRET0XXXX"
	for _, raw := range []string{
		"hooks.slack.com/services/T0/" + secret,     // no scheme
		"ftp://hooks.example/" + secret,             // not http(s)
		"https://hooks.example/%zz" + secret,        // unparseable
		"https:///services/T0/" + secret + "?x=%zz", // no host
	} {
		c := validConfig(t)
		c.Notifications = []NotificationTarget{{URL: raw, Kind: NotifySlack}}
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "notifications[0].url") {
			t.Fatalf("Validate(%q) = %v, want a notifications[0].url error", raw, err)
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("Validate(%q) quotes the secret: %v", raw, err)
		}
	}
}

// A webhook secret shorter than MinWebhookSecretLen is refused at start-up
// (a 5-character one was accepted) with a message that says how long it
// must be and does not quote it.
func TestShortWebhookSecretIsRefusedUnquoted(t *testing.T) {
	t.Parallel()
	const short = "Zq9xW"
	c := validConfig(t)
	c.GitHub.App.WebhookSecret = short
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "github.app.webhook_secret") || !strings.Contains(err.Error(), "at least 16") {
		t.Fatalf("Validate() with a 5-character webhook secret = %v, want an error asking for at least 16 characters", err)
	}
	if strings.Contains(err.Error(), short) {
		t.Errorf("Validate() quotes the webhook secret: %v", err)
	}
}
