package githubx

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/palantir/go-githubapp/githubapp"

	"github.com/mergequeue/mq/queue"
)

// Defaults applied by New to empty Config fields.
const (
	DefaultV3APIURL  = "https://api.github.com/"
	DefaultV4APIURL  = "https://api.github.com/graphql"
	DefaultWebURL    = "https://github.com"
	DefaultUserAgent = "mergequeue-bot"
	// DefaultHTTPTimeout bounds each try of a call, from sending it to the
	// end of its answer's body; waits for budget and rate-limit pauses are
	// not counted.
	DefaultHTTPTimeout = 2 * time.Minute
)

// Config says which GitHub to talk to and as which App.
type Config struct {
	V3APIURL   string // REST base, e.g. https://api.github.com/ or https://ghe.example.com/api/v3/
	V4APIURL   string // GraphQL endpoint
	WebURL     string // e.g. https://github.com
	AppID      int64
	PrivateKey []byte // PEM (PKCS#1 or PKCS#8)
	Host       string // the queue.Repo.Host this client serves ("" = queue.DefaultHost)
	UserAgent  string
}

// withDefaults fills empty fields and validates the rest.
func (c Config) withDefaults() (Config, error) {
	if c.V3APIURL == "" {
		c.V3APIURL = DefaultV3APIURL
	}
	if c.V4APIURL == "" {
		c.V4APIURL = DefaultV4APIURL
	}
	if c.WebURL == "" {
		c.WebURL = DefaultWebURL
	}
	if c.Host == "" {
		c.Host = queue.DefaultHost
	}
	if c.UserAgent == "" {
		c.UserAgent = DefaultUserAgent
	}
	if !strings.HasSuffix(c.V3APIURL, "/") {
		c.V3APIURL += "/"
	}
	var errs []error
	for name, raw := range map[string]string{"v3 API URL": c.V3APIURL, "v4 API URL": c.V4APIURL, "web URL": c.WebURL} {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme == "" || u.Host == "" {
			errs = append(errs, fmt.Errorf("invalid %s %q", name, raw))
		}
	}
	if c.AppID <= 0 {
		errs = append(errs, errors.New("app ID must be positive"))
	}
	if len(c.PrivateKey) == 0 {
		errs = append(errs, errors.New("private key is empty"))
	}
	if err := errors.Join(errs...); err != nil {
		return c, fmt.Errorf("invalid GitHub config: %w", err)
	}
	return c, nil
}

// Option customises a Client.
type Option func(*options)

type options struct {
	transport  http.RoundTripper
	retry      RetryPolicy
	middleware []githubapp.ClientMiddleware
	now        func() time.Time
	timeout    time.Duration
	observer   Observer
	budget     Budget
	clock      Clock
	git        *GitBuildConfig // nil: test branches are built with the merges API
}

func defaultOptions() options {
	return options{
		retry:   DefaultRetryPolicy(),
		now:     time.Now,
		timeout: DefaultHTTPTimeout,
		budget:  DefaultBudget(),
		clock:   realClock{},
	}
}

// WithTransport sets the base transport (default http.DefaultTransport).
func WithTransport(rt http.RoundTripper) Option {
	return func(o *options) { o.transport = rt }
}

// WithRetryPolicy replaces the retry and rate-limit policy; zero fields
// take their defaults.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(o *options) { o.retry = p }
}

// WithMiddleware adds client middleware (e.g. githubapp.ClientMetrics or
// githubapp.ClientLogging). It runs inside the retry middleware, so it sees
// every attempt.
func WithMiddleware(mw ...githubapp.ClientMiddleware) Option {
	return func(o *options) { o.middleware = append(o.middleware, mw...) }
}

// WithClock sets the clock used for PR read times and check-run
// completion times (default time.Now).
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithHTTPTimeout bounds each try of a call, to the end of its answer's
// body (default DefaultHTTPTimeout; 0 disables the bound). Waits for
// budget and rate-limit pauses are bounded by the caller's context only.
func WithHTTPTimeout(d time.Duration) Option {
	return func(o *options) { o.timeout = d }
}
