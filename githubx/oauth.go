package githubx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v66/github"
	"golang.org/x/oauth2"
)

// SignInTimeout bounds each GitHub call of a sign-in, its retries and
// waits included: a user waits on it.
const SignInTimeout = 15 * time.Second

// OAuthConfig is the GitHub App's OAuth client, which signs users in (the
// web flow): the App's settings page shows the client ID and makes client
// secrets.
type OAuthConfig struct {
	ClientID     string
	ClientSecret string
	// RedirectURL is where GitHub sends the browser back with a code: the
	// App's callback URL.
	RedirectURL string
}

// SignIn is the App's OAuth web flow on the Client's GitHub (its web URL
// for the flow, its API for the reads), and the reads a sign-in makes with
// the user's token. The code exchange is golang.org/x/oauth2's. Every call
// goes through the Client's middlewares: the path guard, the retry
// middleware (reads retried on 5xx and network errors, short rate limits
// waited out; the exchange, a write, never retried) and the Client's
// Observer. It spends no installation's budget: a user token's limits are
// the user's. Each call is bounded by SignInTimeout. Safe for concurrent
// use.
type SignIn struct {
	oauth     oauth2.Config
	http      *http.Client
	apiURL    *url.URL
	userAgent string
}

// SignIn returns the web flow of the App's OAuth client oc.
func (c *Client) SignIn(oc OAuthConfig) (*SignIn, error) {
	api, err := url.Parse(c.cfg.V3APIURL) // ends in "/" (withDefaults)
	if err != nil {
		return nil, fmt.Errorf("failed to parse the API URL %q: %w", c.cfg.V3APIURL, err)
	}
	web := strings.TrimRight(c.cfg.WebURL, "/")
	return &SignIn{
		oauth: oauth2.Config{ClientID: oc.ClientID, ClientSecret: oc.ClientSecret, RedirectURL: oc.RedirectURL,
			// GitHub takes the client's credentials in the form.
			Endpoint: oauth2.Endpoint{AuthURL: web + "/login/oauth/authorize", TokenURL: web + "/login/oauth/access_token",
				AuthStyle: oauth2.AuthStyleInParams}},
		http:      plainHTTPClient(c.opts, newBasePaths(c.cfg), SignInTimeout),
		apiURL:    api,
		userAgent: c.cfg.UserAgent,
	}, nil
}

// AuthCodeURL is GitHub's authorize page for the App's OAuth client,
// which sends the browser back to the redirect URL with a code and state.
func (s *SignIn) AuthCodeURL(state string) string { return s.oauth.AuthCodeURL(state) }

// Exchange buys a user access token with the code GitHub sent back (POST
// /login/oauth/access_token). A code GitHub refuses (used, expired, for
// another redirect URL, or wrong client credentials) is an error quoting
// GitHub's error code and description; GitHub's body is never quoted
// otherwise.
func (s *SignIn) Exchange(ctx context.Context, code string) (string, error) {
	if code == "" {
		return "", errors.New("GitHub sent no code")
	}
	tok, err := s.oauth.Exchange(context.WithValue(ctx, oauth2.HTTPClient, s.http), code)
	if err != nil {
		var re *oauth2.RetrieveError
		switch {
		case errors.As(err, &re) && re.ErrorCode != "":
			return "", fmt.Errorf("GitHub refused the code (%s: %s)", re.ErrorCode, re.ErrorDescription)
		case errors.As(err, &re) && re.Response != nil:
			return "", fmt.Errorf("failed to exchange the code: GitHub answered %s", re.Response.Status)
		}
		return "", wrap("exchange the code", err)
	}
	return tok.AccessToken, nil
}

// user is a go-github client acting as the user of token.
func (s *SignIn) user(token string) *github.Client {
	gh := github.NewClient(s.http).WithAuthToken(token)
	gh.BaseURL = s.apiURL
	gh.UserAgent = s.userAgent
	return gh
}

// Login returns the login of the user of token (GET /user).
func (s *SignIn) Login(ctx context.Context, token string) (string, error) {
	u, _, err := s.user(token).Users.Get(ctx, "")
	if err != nil {
		return "", wrap("read the signed-in user", err)
	}
	if u.GetLogin() == "" {
		return "", errors.New("failed to read the signed-in user: no login")
	}
	return u.GetLogin(), nil
}

// UserListPerPage is the page size of the listings ReadableRepos makes.
const UserListPerPage = 100

// errCallBound: a listing needed more GitHub calls than its bound.
var errCallBound = errors.New("more GitHub calls needed than the bound allows")

// ReadableRepos returns the repositories of wanted ("owner/name", lower
// case) that the user of token can read (pull), as GitHub lists them for
// the user among the repositories of the App's installations:
//
//	GET /user/installations                       (the App's installations the user can access)
//	GET /user/installations/{id}/repositories     (their repositories the user can access)
//
// in pages of UserListPerPage, stopping once every wanted repository is
// found. The calls depend on the user's installations and repositories,
// never on the number wanted, and are at most maxCalls: past them, it
// returns what it found so far, and complete false. A repository the App
// is not installed on, or that the user cannot see, is just not listed:
// access is never granted by default.
func (s *SignIn) ReadableRepos(ctx context.Context, token string, wanted map[string]bool, maxCalls int) (repos []string, complete bool, err error) {
	if len(wanted) == 0 {
		return nil, true, nil
	}
	l := &userLister{gh: s.user(token), max: maxCalls}
	var ids []int64
	for page := 1; ; page++ {
		var res struct {
			Total         int `json:"total_count"`
			Installations []struct {
				ID int64 `json:"id"`
			} `json:"installations"`
		}
		if err := l.get(ctx, "user/installations", page, &res); err != nil {
			return partial(nil, err)
		}
		for _, inst := range res.Installations {
			ids = append(ids, inst.ID)
		}
		if len(res.Installations) < UserListPerPage || len(ids) >= res.Total {
			break
		}
	}
	found := map[string]bool{}
	var out []string
	for _, id := range ids {
		listed := 0
		for page := 1; len(found) < len(wanted); page++ {
			var res struct {
				Total        int `json:"total_count"`
				Repositories []struct {
					FullName    string          `json:"full_name"`
					Permissions map[string]bool `json:"permissions"`
				} `json:"repositories"`
			}
			if err := l.get(ctx, fmt.Sprintf("user/installations/%d/repositories", id), page, &res); err != nil {
				return partial(out, err)
			}
			for _, r := range res.Repositories {
				full := strings.ToLower(r.FullName)
				if wanted[full] && !found[full] && (r.Permissions == nil || r.Permissions["pull"]) {
					found[full] = true
					out = append(out, full)
				}
			}
			listed += len(res.Repositories)
			if len(res.Repositories) < UserListPerPage || listed >= res.Total {
				break
			}
		}
	}
	return out, true, nil
}

// partial is what ReadableRepos answers when listing stopped on err: past
// the call bound, what was found, incomplete; else the error.
func partial(found []string, err error) ([]string, bool, error) {
	if errors.Is(err, errCallBound) {
		return found, false, nil
	}
	return nil, false, err
}

// userLister reads pages with a user's client, counting its calls
// against the bound.
type userLister struct {
	gh         *github.Client
	calls, max int
}

// get decodes GET path?per_page&page into out.
func (l *userLister) get(ctx context.Context, path string, page int, out any) error {
	if l.calls >= l.max {
		return errCallBound
	}
	l.calls++
	q := url.Values{"per_page": {fmt.Sprint(UserListPerPage)}, "page": {fmt.Sprint(page)}}
	req, err := l.gh.NewRequest(http.MethodGet, path+"?"+q.Encode(), nil)
	if err != nil {
		return fmt.Errorf("failed to build the request of %s: %w", path, err)
	}
	if _, err := l.gh.Do(ctx, req, out); err != nil {
		return wrap("list "+path, err)
	}
	return nil
}
