package notify

import (
	"errors"
	"net/url"
)

// RedactURL is raw reduced to its scheme and host, the only parts of a
// target URL that may be logged: chat webhook URLs carry their credential
// in the path (hooks.slack.com/services/T…/B…/secret), others may carry
// one in the query or user info. An unparseable URL is replaced whole.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(unparseable URL)"
	}
	return u.Scheme + "://" + u.Host
}

// redactErr rewrites, in place, the URL that net/http and net/url quote
// in their errors (*url.Error: `Post "https://…": …`) to RedactURL's form.
// err is returned for chaining.
func redactErr(err error) error {
	for e := err; e != nil; {
		var ue *url.Error
		if !errors.As(e, &ue) {
			break
		}
		ue.URL = RedactURL(ue.URL)
		e = ue.Err
	}
	return err
}
