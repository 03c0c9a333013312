package record

import "time"

// DashboardSession is a browser signed in to the dashboard. The browser
// holds a random session id; only its SHA-256 (Hash) is stored, so the
// database does not hold working sessions. A session is opened either with
// an API token (TokenID) or as a GitHub user (Login and the repositories
// they could read), never both.
type DashboardSession struct {
	Hash    []byte // SHA-256 of the session id
	TokenID string // the API token it was opened with ("" for GitHub)
	Login   string // the GitHub user ("" for a token)
	// Repos are the repositories ("owner/name", lower case) the GitHub user
	// could read at sign-in.
	Repos     []string
	CreatedAt time.Time
	// SeenAt is the session's last use, as recorded by TouchSession.
	SeenAt time.Time
	// ExpiresAt is the end of the session, however it is used.
	ExpiresAt time.Time
	// Idle ends the session once it has not been used for so long after
	// SeenAt (0: no idle limit).
	Idle time.Duration
}

// Expired reports whether the session has ended at now: at or after
// ExpiresAt, or at or after SeenAt+Idle.
func (s DashboardSession) Expired(now time.Time) bool {
	return !now.Before(s.ExpiresAt) || s.Idle > 0 && !now.Before(s.SeenAt.Add(s.Idle))
}
