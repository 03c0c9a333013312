package fakegithub

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v4"
	"github.com/google/go-github/v66/github"
)

// tokenTTL is how long installation tokens live (as on GitHub).
const tokenTTL = time.Hour

// maxJWTLifetime is GitHub's limit on exp (10 minutes) plus clock slack.
const maxJWTLifetime = 11 * time.Minute

// GenerateAppKey creates a 2048-bit RSA key for a GitHub App and its
// PKCS#1 PEM encoding (the format GitHub hands out).
func GenerateAppKey() (privPEM []byte, key *rsa.PrivateKey, err error) {
	key, err = rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to generate app key: %w", err)
	}
	privPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	return privPEM, key, nil
}

// authorize checks the request's credentials for the route's auth kind and
// answers 401 if they do not hold.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, kind authKind) bool {
	if kind == authNone {
		return true
	}
	scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	cred = strings.TrimSpace(cred)
	scheme = strings.ToLower(scheme)
	var ok bool
	switch kind {
	case authApp:
		if scheme == "bearer" {
			if err := s.verifyJWT(cred); err == nil {
				ok = true
			} else {
				writeError(w, http.StatusUnauthorized, "A JSON web token could not be decoded: "+err.Error())
				return false
			}
		}
	case authToken:
		ok = (scheme == "token" || scheme == "bearer") && s.validToken(cred)
	}
	if !ok {
		writeError(w, http.StatusUnauthorized, "Bad credentials")
	}
	return ok
}

// verifyJWT checks an App JWT: RS256 with the App's key, iss = app id
// (string or number), exp present, not expired and at most ~10 min ahead.
func (s *Server) verifyJWT(raw string) error {
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(raw, claims, func(t *jwt.Token) (any, error) {
		return s.pubKey, nil
	}, jwt.WithValidMethods([]string{"RS256"}))
	if err != nil {
		return fmt.Errorf("invalid token: %w", err)
	}
	var iss string
	switch v := claims["iss"].(type) {
	case string:
		iss = v
	case float64:
		iss = strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return fmt.Errorf("missing 'iss' claim")
	}
	if iss != strconv.FormatInt(s.appID, 10) {
		return fmt.Errorf("'iss' %q is not app %d", iss, s.appID)
	}
	exp, ok := claims["exp"].(float64)
	if !ok {
		return fmt.Errorf("missing 'exp' claim")
	}
	if time.Until(time.Unix(int64(exp), 0)) > maxJWTLifetime {
		return fmt.Errorf("'exp' is too far in the future")
	}
	return nil
}

// validToken reports whether token is an unexpired installation token.
func (s *Server) validToken(token string) bool {
	if token == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.tokens[token]
	return ok && time.Now().Before(exp)
}

// IssueToken mints an installation token directly, as if the App had
// exchanged a JWT for it; tests and the sandbox use it to skip the JWT
// flow.
func (s *Server) IssueToken() string {
	tok, _ := s.issueToken()
	return tok
}

func (s *Server) issueToken() (string, time.Time) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 36)
	for i := range b {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			panic(fmt.Sprintf("crypto/rand failed: %v", err))
		}
		b[i] = alphabet[n.Int64()]
	}
	tok := "ghs_" + string(b)
	exp := time.Now().Add(tokenTTL).UTC().Truncate(time.Second)
	s.mu.Lock()
	s.tokens[tok] = exp
	s.mu.Unlock()
	return tok, exp
}

// botUser is the App's bot account.
func (s *Server) botUser() *github.User { return s.user(BotLogin) }

// apiApp renders the App.
func (s *Server) apiApp() *github.App {
	return &github.App{
		ID:      github.Int64(s.appID),
		Slug:    github.String(AppSlug),
		NodeID:  github.String(fmt.Sprintf("A_%d", s.appID)),
		Name:    github.String("Merge Queue"),
		Owner:   s.user("mergequeue"),
		HTMLURL: github.String(s.URL() + "/apps/" + AppSlug),
		Events:  []string{"pull_request", "issue_comment", "push", "status", "check_run", "check_suite"},
	}
}

// apiInstallation renders the single installation; account is its owner.
func (s *Server) apiInstallation(account string) *github.Installation {
	if account == "" {
		account = "mergequeue"
	}
	return &github.Installation{
		ID:                  github.Int64(s.installationID),
		AppID:               github.Int64(s.appID),
		AppSlug:             github.String(AppSlug),
		TargetType:          github.String("Organization"),
		Account:             s.user(account),
		RepositorySelection: github.String("all"),
		AccessTokensURL:     github.String(fmt.Sprintf("%s/app/installations/%d/access_tokens", s.URL(), s.installationID)),
	}
}

// installationRef is the {"id": …} stub webhooks carry.
func (s *Server) installationRef() *github.Installation {
	return &github.Installation{ID: github.Int64(s.installationID), NodeID: github.String(fmt.Sprintf("I_%d", s.installationID))}
}

func (s *Server) handleGetApp(c *reqCtx) { c.json(http.StatusOK, s.apiApp()) }

func (s *Server) handleListInstallations(c *reqCtx) {
	c.json(http.StatusOK, []*github.Installation{s.apiInstallation("")})
}

func (s *Server) handleGetInstallation(c *reqCtx) {
	if id, ok := c.params["id"]; ok && id != strconv.FormatInt(s.installationID, 10) {
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	account := c.params["org"]
	if account == "" {
		account = c.params["user"]
	}
	c.json(http.StatusOK, s.apiInstallation(account))
}

func (s *Server) handleRepoInstallation(c *reqCtx) {
	c.json(http.StatusOK, s.apiInstallation(c.repo.owner))
}

func (s *Server) handleCreateToken(c *reqCtx) {
	if c.params["id"] != strconv.FormatInt(s.installationID, 10) {
		c.error(http.StatusNotFound, "Not Found")
		return
	}
	tok, exp := s.issueToken()
	c.json(http.StatusCreated, &github.InstallationToken{
		Token:     github.String(tok),
		ExpiresAt: &github.Timestamp{Time: exp},
		Permissions: &github.InstallationPermissions{
			Contents:     github.String("write"),
			PullRequests: github.String("write"),
			Issues:       github.String("write"),
			Checks:       github.String("write"),
			Statuses:     github.String("write"),
			Metadata:     github.String("read"),
		},
	})
}
