package app

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/mergequeue/mq/queue"
)

// Validate returns every problem with the configuration joined into one
// error (errors.Join), each naming its key; nil when the process may start.
// It reads and parses the private key, so a key that would fail at the first
// GitHub call fails here instead.
func (c *Config) Validate() error {
	var errs []error
	errs = append(errs, c.Server.validate()...)
	errs = append(errs, c.validateGitHub()...)
	errs = append(errs, c.validateTestBranches()...)
	errs = append(errs, c.Database.validate()...)
	errs = append(errs, c.TestPRs.validate(), c.Commands.validate())
	errs = append(errs, c.Logging.validate()...)
	errs = append(errs, c.Engine.validate(), c.GitHub.Budget.validate())
	errs = append(errs, c.validateQueues()...)
	errs = append(errs, c.Dashboard.validate()...)
	errs = append(errs, c.validateNotifications()...)
	return errors.Join(errs...) // nil entries are dropped
}

// renameField makes a *queue.NameError name the configuration key instead
// of the API field ("invalid field queues[0].branch: must not contain
// \"..\", got \"a..b\""); other errors are prefixed with the key.
func renameField(err error, key string) error {
	var ne *queue.NameError
	if !errors.As(err, &ne) {
		return fmt.Errorf("%s: %w", key, err)
	}
	named := *ne
	named.Field = key
	return &named
}

// appendURLErr appends an error naming key unless raw is an absolute
// http(s) URL.
func appendURLErr(errs []error, key, raw string) []error {
	u, err := url.Parse(raw)
	if err != nil {
		return append(errs, fmt.Errorf("%s: %q is not a URL: %w", key, raw, err))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return append(errs, fmt.Errorf("%s: %q is not an absolute http(s) URL", key, raw))
	}
	return errs
}

// appendSecretURLErr is appendURLErr for a URL that may carry a credential
// (a notification target): the error quotes none of it.
func appendSecretURLErr(errs []error, key, raw string) []error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return append(errs, fmt.Errorf("%s: not an absolute http(s) URL (the value is not shown: it may hold a secret)", key))
	}
	return errs
}
