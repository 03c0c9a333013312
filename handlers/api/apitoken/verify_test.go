package apitoken_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mergequeue/mq/handlers/api/apitoken"
	"github.com/mergequeue/mq/handlers/api/apitoken/apitokentest"
)

func TestHash(t *testing.T) {
	t.Parallel()
	want := sha256.Sum256([]byte("mq_secret"))
	if got := apitoken.Hash("mq_secret"); !bytes.Equal(got, want[:]) {
		t.Fatalf("Hash = %x, want the SHA-256 %x", got, want)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		stored  *apitoken.Token // stored under the secret "mq_s"; nil = none
		secret  string
		wantErr error // nil = verified
	}{
		{"live, never expires", &apitoken.Token{Name: "ci"}, "mq_s", nil},
		{"expires after now", &apitoken.Token{Name: "ci", ExpiresAt: testNow.Add(time.Millisecond)}, "mq_s", nil},
		{"expired at now", &apitoken.Token{Name: "ci", ExpiresAt: testNow}, "mq_s", apitoken.ErrExpired},
		{"expired before now", &apitoken.Token{Name: "ci", ExpiresAt: testNow.Add(-time.Hour)}, "mq_s", apitoken.ErrExpired},
		{"revoked", &apitoken.Token{Name: "ci", RevokedAt: testNow.Add(-time.Hour)}, "mq_s", apitoken.ErrRevoked},
		{"revoked in the future counts", &apitoken.Token{Name: "ci", RevokedAt: testNow.Add(time.Hour)}, "mq_s", apitoken.ErrRevoked},
		{"revoked wins over expired", &apitoken.Token{Name: "ci", RevokedAt: testNow, ExpiresAt: testNow}, "mq_s", apitoken.ErrRevoked},
		{"unknown secret", &apitoken.Token{Name: "ci"}, "mq_other", apitoken.ErrInvalid},
		{"no tokens", nil, "mq_s", apitoken.ErrInvalid},
		{"empty secret", &apitoken.Token{Name: "ci"}, "", apitoken.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store := apitokentest.NewStore()
			if tt.stored != nil {
				store.Add("mq_s", *tt.stored)
			}
			tok, err := apitoken.Verify(context.Background(), store, tt.secret, testNow)
			if tt.wantErr == nil {
				if err != nil || tok == nil || tok.Name != tt.stored.Name {
					t.Fatalf("Verify = %+v, %v; want the stored token", tok, err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || tok != nil {
				t.Fatalf("Verify = %+v, %v; want %v", tok, err, tt.wantErr)
			}
			if tt.secret != "" && strings.Contains(err.Error(), tt.secret) {
				t.Errorf("error %q quotes the secret", err)
			}
			if !apitoken.IsRefusal(err) {
				t.Errorf("IsRefusal(%v) = false", err)
			}
			// A refusal of a token that exists names it, for the log.
			wantID := ""
			if !errors.Is(tt.wantErr, apitoken.ErrInvalid) {
				wantID = "id-ci"
			}
			if got := apitoken.RefusedTokenID(err); got != wantID {
				t.Errorf("RefusedTokenID = %q, want %q", got, wantID)
			}
		})
	}
}

func TestVerifyEmptySecretIsNotLookedUp(t *testing.T) {
	t.Parallel()
	store := apitokentest.NewStore()
	if _, err := apitoken.Verify(context.Background(), store, "", testNow); !errors.Is(err, apitoken.ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
	if store.Lookups() != 0 {
		t.Errorf("empty secret looked up %d times", store.Lookups())
	}
}

// A store answering with a token whose hash is not the secret's is not
// believed.
func TestVerifyRejectsHashMismatch(t *testing.T) {
	t.Parallel()
	store := apitokentest.NewStore()
	store.Configure(func(f *apitokentest.Store) {
		f.Override = &apitoken.Token{ID: "x", Name: "x", Hash: apitoken.Hash("other")}
	})
	if tok, err := apitoken.Verify(context.Background(), store, "mq_s", testNow); !errors.Is(err, apitoken.ErrInvalid) {
		t.Fatalf("Verify = %+v, %v; want ErrInvalid", tok, err)
	}
}

// A store failure is no refusal: it is returned, wrapped, for a 500.
func TestVerifyStoreFailure(t *testing.T) {
	t.Parallel()
	store := apitokentest.NewStore()
	store.Configure(func(f *apitokentest.Store) { f.Err = errors.New("database is locked") })
	_, err := apitoken.Verify(context.Background(), store, "mq_s", testNow)
	if err == nil || !strings.Contains(err.Error(), "database is locked") {
		t.Fatalf("err = %v, want the store's error", err)
	}
	for _, refusal := range []error{apitoken.ErrInvalid, apitoken.ErrRevoked, apitoken.ErrExpired} {
		if errors.Is(err, refusal) {
			t.Errorf("store failure %v is a refusal (%v)", err, refusal)
		}
	}
}
