package githubx

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/go-github/v66/github"
)

// RegisteredApp is the GitHub App the App manifest flow registered, as
// GitHub answers the conversion of its code: who it is and the secrets
// GitHub shows this once only.
type RegisteredApp struct {
	ID      int64
	Slug    string
	Name    string
	HTMLURL string // the App's page, e.g. https://github.com/apps/<slug>
	// PEM is the App's private key (PKCS#1).
	PEM           string
	WebhookSecret string
}

// CompleteAppManifest exchanges the code GitHub's App manifest flow sent
// back for the App it registered (POST /app-manifests/{code}/conversions,
// without credentials), on the REST API at apiURL (e.g.
// https://api.github.com/). GitHub answers a code once. The request goes
// through the middlewares of every client (the path guard, the retry
// middleware, which never retries it: it is a write; an Observer, if
// given) with opts as New takes them; a code that is not one safe path
// segment (ErrUnsafePath) is refused before anything is sent.
func CompleteAppManifest(ctx context.Context, apiURL, code string, opts ...Option) (*RegisteredApp, error) {
	seg, err := segment("manifest code", code)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(apiURL, "/") {
		apiURL += "/"
	}
	base, err := url.Parse(apiURL)
	if err != nil || base.Scheme == "" || base.Host == "" {
		return nil, fmt.Errorf("invalid API URL %q", apiURL)
	}
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	gh := github.NewClient(plainHTTPClient(o, newBasePaths(Config{V3APIURL: apiURL}), 0))
	gh.BaseURL = base
	gh.UserAgent = DefaultUserAgent
	a, _, err := gh.Apps.CompleteAppManifest(ctx, seg)
	if err != nil {
		return nil, wrap("convert the App manifest's code", err)
	}
	return &RegisteredApp{ID: a.GetID(), Slug: a.GetSlug(), Name: a.GetName(), HTMLURL: a.GetHTMLURL(), PEM: a.GetPEM(),
		WebhookSecret: a.GetWebhookSecret()}, nil
}
