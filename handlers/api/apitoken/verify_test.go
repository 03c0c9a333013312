package apitoken

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestHash(t *testing.T) {
	t.Parallel()
	want := sha256.Sum256([]byte("mq_secret"))
	if got := Hash("mq_secret"); !bytes.Equal(got, want[:]) {
		t.Fatalf("Hash = %x, want the SHA-256 %x", got, want)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		stored  *Token // stored under the secret "mq_s"; nil = none
		secret  string
		wantErr error // nil = verified
	}{
		{"live, never expires", &Token{Name: "ci"}, "mq_s", nil},
		{"expires after now", &Token{Name: "ci", ExpiresAt: testNow.Add(time.Millisecond)}, "mq_s", nil},
		{"expired at now", &Token{Name: "ci", ExpiresAt: testNow}, "mq_s", ErrExpired},
		{"expired before now", &Token{Name: "ci", ExpiresAt: testNow.Add(-time.Hour)}, "mq_s", ErrExpired},
		{"revoked", &Token{Name: "ci", RevokedAt: testNow.Add(-time.Hour)}, "mq_s", ErrRevoked},
		{"revoked in the future counts", &Token{Name: "ci", RevokedAt: testNow.Add(time.Hour)}, "mq_s", ErrRevoked},
		{"revoked wins over expired", &Token{Name: "ci", RevokedAt: testNow, ExpiresAt: testNow}, "mq_s", ErrRevoked},
		{"unknown secret", &Token{Name: "ci"}, "mq_other", ErrInvalid},
		{"no tokens", nil, "mq_s", ErrInvalid},
		{"empty secret", &Token{Name: "ci"}, "", ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store := newFakeTokens()
			if tt.stored != nil {
				store.add("mq_s", *tt.stored)
			}
			tok, err := Verify(context.Background(), store, tt.secret, testNow)
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
		})
	}
}

func TestVerifyEmptySecretIsNotLookedUp(t *testing.T) {
	t.Parallel()
	store := newFakeTokens()
	if _, err := Verify(context.Background(), store, "", testNow); !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
	if store.lookups != 0 {
		t.Errorf("empty secret looked up %d times", store.lookups)
	}
}

// A store answering with a token whose hash is not the secret's is not
// believed.
func TestVerifyRejectsHashMismatch(t *testing.T) {
	t.Parallel()
	store := newFakeTokens()
	store.configure(func(f *fakeTokens) { f.override = &Token{ID: "x", Name: "x", Hash: Hash("other")} })
	if tok, err := Verify(context.Background(), store, "mq_s", testNow); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Verify = %+v, %v; want ErrInvalid", tok, err)
	}
}

// A store failure is no refusal: it is returned, wrapped, for a 500.
func TestVerifyStoreFailure(t *testing.T) {
	t.Parallel()
	store := newFakeTokens()
	store.configure(func(f *fakeTokens) { f.err = errors.New("database is locked") })
	_, err := Verify(context.Background(), store, "mq_s", testNow)
	if err == nil || !strings.Contains(err.Error(), "database is locked") {
		t.Fatalf("err = %v, want the store's error", err)
	}
	for _, refusal := range []error{ErrInvalid, ErrRevoked, ErrExpired} {
		if errors.Is(err, refusal) {
			t.Errorf("store failure %v is a refusal (%v)", err, refusal)
		}
	}
}
