package apitoken_test

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/handlers/api/apitoken/apitokentest"
	"github.com/mergequeue/mq/queue"
)

var testNow = time.Date(2026, 7, 23, 1, 32, 50, 0, time.UTC)

var secretPattern = regexp.MustCompile(`^mq_[a-z2-7]{52}$`)

func TestIssue(t *testing.T) {
	t.Parallel()
	store := apitokentest.NewStore()
	secret, tok, err := apitoken.Issue(context.Background(), store, " ci ", []string{"octo/widgets"}, []string{"acme"}, 24*time.Hour, testNow)
	if err != nil {
		t.Fatalf("Issue: %v", err)
	}
	if !secretPattern.MatchString(secret) {
		t.Errorf("secret %q does not match %s", secret, secretPattern)
	}
	if _, err := uuid.Parse(tok.ID); err != nil {
		t.Errorf("ID %q is not a UUID: %v", tok.ID, err)
	}
	if !bytes.Equal(tok.Hash, apitoken.Hash(secret)) {
		t.Error("Hash is not the SHA-256 of the secret")
	}
	if tok.Name != "ci" || !tok.CreatedAt.Equal(testNow) || !tok.ExpiresAt.Equal(testNow.Add(24*time.Hour)) {
		t.Errorf("token = %+v", tok)
	}
	stored, err := store.TokenByHash(context.Background(), apitoken.Hash(secret))
	if err != nil || stored.ID != tok.ID {
		t.Fatalf("stored token = %+v, %v", stored, err)
	}
	verified, err := apitoken.Verify(context.Background(), store, secret, testNow)
	if err != nil || verified.ID != tok.ID {
		t.Fatalf("Verify(issued secret) = %+v, %v", verified, err)
	}
}

func TestIssueSecretsDiffer(t *testing.T) {
	t.Parallel()
	store := apitokentest.NewStore()
	a, _, err := apitoken.Issue(context.Background(), store, "a", nil, nil, 0, testNow)
	if err != nil {
		t.Fatal(err)
	}
	b, tok, err := apitoken.Issue(context.Background(), store, "b", nil, nil, 0, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Error("two tokens share a secret")
	}
	if !tok.ExpiresAt.IsZero() || tok.Repos != nil || tok.Owners != nil {
		t.Errorf("ttl 0 and no scope: got %+v", tok)
	}
}

func TestIssueErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		tok    string
		repos  []string
		owners []string
		ttl    time.Duration
		want   string
	}{
		{"empty name", "  ", nil, nil, 0, "name is required"},
		{"control in name", "a\nb", nil, nil, 0, "printable"},
		{"negative ttl", "ci", nil, nil, -time.Second, "negative"},
		{"repo without slash", "ci", []string{"widgets"}, nil, 0, "owner/name"},
		{"repo with two slashes", "ci", []string{"a/b/c"}, nil, 0, "owner/name"},
		{"repo empty owner", "ci", []string{"/b"}, nil, 0, "owner/name"},
		{"repo empty name", "ci", []string{"a/"}, nil, 0, "owner/name"},
		{"repo dot name", "ci", []string{"a/.."}, nil, 0, "owner/name"},
		{"owner with slash", "ci", nil, []string{"a/b"}, 0, "owner"},
		{"owner empty", "ci", nil, []string{""}, 0, "owner"},
		{"duplicate live name", "taken", nil, nil, 0, "already exists"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store := apitokentest.NewStore()
			store.Add("x", apitoken.Token{Name: "taken"})
			_, _, err := apitoken.Issue(context.Background(), store, tt.tok, tt.repos, tt.owners, tt.ttl, testNow)
			var ie *queue.InputError
			if !errors.As(err, &ie) || !strings.Contains(ie.Msg, tt.want) {
				t.Fatalf("err = %v, want an InputError containing %q", err, tt.want)
			}
			if list, _ := store.ListTokens(context.Background()); len(list) != 1 {
				t.Errorf("store holds %d tokens, want 1", len(list))
			}
		})
	}
}

func TestIssueReusesRevokedName(t *testing.T) {
	t.Parallel()
	store := apitokentest.NewStore()
	store.Add("x", apitoken.Token{Name: "ci", RevokedAt: testNow})
	if _, _, err := apitoken.Issue(context.Background(), store, "ci", nil, nil, 0, testNow); err != nil {
		t.Fatalf("Issue: %v", err)
	}
}

func TestIssueStoreFailure(t *testing.T) {
	t.Parallel()
	store := apitokentest.NewStore()
	store.Configure(func(f *apitokentest.Store) { f.Err = errors.New("read-only database") })
	_, _, err := apitoken.Issue(context.Background(), store, "ci", nil, nil, 0, testNow)
	if err == nil || !strings.Contains(err.Error(), "read-only database") {
		t.Fatalf("err = %v", err)
	}
}

// ReadOnly issues a read-only token; without it a token has full access.
func TestIssueReadOnly(t *testing.T) {
	t.Parallel()
	store := apitokentest.NewStore()
	secret, tok, err := apitoken.Issue(context.Background(), store, "viewer", nil, nil, 0, testNow, apitoken.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	stored, err := apitoken.Verify(context.Background(), store, secret, testNow)
	if err != nil || !tok.ReadOnly || !stored.ReadOnly || stored.Access() != "read-only" {
		t.Fatalf("issued %+v, stored %+v, %v; want read-only", tok, stored, err)
	}
	_, full, err := apitoken.Issue(context.Background(), store, "ci", nil, nil, 0, testNow)
	if err != nil || full.ReadOnly || full.Access() != "full" {
		t.Fatalf("default token %+v, %v; want full access", full, err)
	}
}
