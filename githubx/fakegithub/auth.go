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
// answers 401 if they do not hold. It returns who acts: the installed App's
// bot for an installation token or a JWT, the user of a personal access
// token (IssueUserToken), "" on a public route.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, kind authKind) (string, bool) {
	if kind == authNone {
		return "", true
	}
	scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	cred = strings.TrimSpace(cred)
	scheme = strings.ToLower(scheme)
	var actor string
	switch kind {
	case authApp:
		if scheme == "bearer" {
			if err := s.verifyJWT(cred); err != nil {
				writeError(w, http.StatusUnauthorized, "A JSON web token could not be decoded: "+err.Error())
				return "", false
			}
			actor = s.botLogin()
		}
	case authToken:
		if scheme == "token" || scheme == "bearer" {
			actor = s.tokenActor(cred)
		}
	}
	if actor == "" {
		writeError(w, http.StatusUnauthorized, "Bad credentials")
		return "", false
	}
	return actor, true
}

// verifyJWT checks an App JWT: RS256 with the App's key, iss = app id
// (string or number), exp present, not expired and at most ~10 min ahead.
func (s *Server) verifyJWT(raw string) error {
	app := s.currentApp()
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(raw, claims, func(t *jwt.Token) (any, error) {
		return app.pubKey, nil
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
	if iss != strconv.FormatInt(app.id, 10) {
		return fmt.Errorf("'iss' %q is not app %d", iss, app.id)
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

// tokenActor returns who a token acts for: the installed App's bot for an
// unexpired installation token, the user of a personal access token, ""
// for anything else.
func (s *Server) tokenActor(token string) string {
	if token == "" {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if login, ok := s.userTokens[token]; ok {
		return login
	}
	if exp, ok := s.tokens[token]; ok && time.Now().Before(exp) {
		return s.app.botLogin()
	}
	return ""
}

// IssueToken mints an installation token directly, as if the App had
// exchanged a JWT for it; tests and the sandbox use it to skip the JWT
// flow.
func (s *Server) IssueToken() string {
	tok, _ := s.issueToken()
	return tok
}

func (s *Server) issueToken() (string, time.Time) {
	tok := randomToken("ghs_")
	exp := time.Now().Add(tokenTTL).UTC().Truncate(time.Second)
	s.mu.Lock()
	s.tokens[tok] = exp
	s.mu.Unlock()
	return tok, exp
}

// randomToken returns prefix and 36 random letters and digits, the shape
// of GitHub's tokens.
func randomToken(prefix string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 36)
	for i := range b {
		n, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			panic(fmt.Sprintf("crypto/rand failed: %v", err))
		}
		b[i] = alphabet[n.Int64()]
	}
	return prefix + string(b)
}

// botLogin is the login of the installed App's bot user.
func (s *Server) botLogin() string { return s.currentApp().botLogin() }

// apiApp renders the installed App.
func (s *Server) apiApp() *github.App {
	app := s.currentApp()
	return &github.App{
		ID:      github.Int64(app.id),
		Slug:    github.String(app.slug),
		NodeID:  github.String(fmt.Sprintf("A_%d", app.id)),
		Name:    github.String(app.name),
		Owner:   s.user(app.owner),
		HTMLURL: github.String(s.URL() + "/apps/" + app.slug),
		Events:  append([]string(nil), app.events...),
	}
}

// apiInstallation renders the single installation; account is its owner.
func (s *Server) apiInstallation(account string) *github.Installation {
	app := s.currentApp()
	if account == "" {
		account = app.owner
	}
	return &github.Installation{
		ID:                  github.Int64(s.installationID),
		AppID:               github.Int64(app.id),
		AppSlug:             github.String(app.slug),
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
