package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/record"
)

var tokenTests = []portsCase{
	{"tokens/token round trip", func(t *testing.T, s Ports) {
		cases := []struct {
			name  string
			token record.Token
		}{
			{"every field", record.Token{ID: "t1", Name: "ci", Hash: hashOf("s1"), Repos: []string{"acme/widgets"},
				Owners: []string{"acme"}, ReadOnly: true, CreatedAt: t0, ExpiresAt: at(time.Hour), RevokedAt: at(time.Minute)}},
			{"nil scopes", record.Token{ID: "t2", Name: "admin", Hash: hashOf("s2"), CreatedAt: at(time.Second)}},
			{"empty scopes", record.Token{ID: "t3", Name: "x", Hash: hashOf("s3"), Repos: []string{}, Owners: []string{},
				CreatedAt: at(2 * time.Second)}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				if err := s.CreateToken(ctx, tc.token); err != nil {
					t.Fatalf("CreateToken: %v", err)
				}
				got, err := s.TokenByHash(ctx, tc.token.Hash)
				if err != nil {
					t.Fatalf("TokenByHash: %v", err)
				}
				assertEqual(t, got, &tc.token)
				byID, err := s.TokenByID(ctx, tc.token.ID)
				if err != nil {
					t.Fatalf("TokenByID: %v", err)
				}
				assertEqual(t, byID, &tc.token)
			})
		}
		list, err := s.ListTokens(ctx)
		if err != nil {
			t.Fatal(err)
		}
		assertEqual(t, list, []record.Token{cases[0].token, cases[1].token, cases[2].token})
	}},
	{"tokens/token errors", func(t *testing.T, s Ports) {
		tok := record.Token{ID: "t1", Name: "ci", Hash: hashOf("s1"), CreatedAt: t0}
		if err := s.CreateToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name string
			call func() error
			want error
		}{
			{"duplicate id", func() error { return s.CreateToken(ctx, record.Token{ID: "t1", Hash: hashOf("other")}) }, queue.ErrExists},
			{"duplicate hash", func() error { return s.CreateToken(ctx, record.Token{ID: "t2", Hash: hashOf("s1")}) }, queue.ErrExists},
			{"unknown hash", func() error { _, err := s.TokenByHash(ctx, hashOf("nope")); return err }, queue.ErrNotFound},
			{"unknown id", func() error { _, err := s.TokenByID(ctx, "nope"); return err }, queue.ErrNotFound},
			{"revoke unknown", func() error { return s.RevokeToken(ctx, "nope", t0) }, queue.ErrNotFound},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				if err := tc.call(); !errors.Is(err, tc.want) {
					t.Errorf("got %v, want %v", err, tc.want)
				}
			})
		}
		if err := s.CreateToken(ctx, record.Token{ID: "t3", Name: "no hash"}); err == nil {
			t.Error("CreateToken without a hash succeeded")
		}
		if err := s.RevokeToken(ctx, "t1", time.Time{}); err == nil {
			t.Error("RevokeToken with a zero time succeeded")
		}
	}},
	{"tokens/revoke token", func(t *testing.T, s Ports) {
		for _, tok := range []record.Token{
			{ID: "a", Name: "ci", Hash: hashOf("a"), CreatedAt: at(1)},
			{ID: "b", Name: "ci", Hash: hashOf("b"), CreatedAt: at(2)},
			{ID: "c", Name: "a", Hash: hashOf("c"), CreatedAt: at(3)}, // named like token a's ID
			{ID: "d", Name: "deploy", Hash: hashOf("d"), CreatedAt: at(4)},
		} {
			if err := s.CreateToken(ctx, tok); err != nil {
				t.Fatal(err)
			}
		}
		revokedAt := func() map[string]time.Time {
			t.Helper()
			list, err := s.ListTokens(ctx)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]time.Time{}
			for _, tok := range list {
				out[tok.ID] = tok.RevokedAt
			}
			return out
		}
		steps := []struct {
			name     string
			idOrName string
			at       time.Time
			want     map[string]time.Time
		}{
			{"by id wins over name", "a", at(time.Hour),
				map[string]time.Time{"a": at(time.Hour), "b": {}, "c": {}, "d": {}}},
			{"by name revokes every token with it", "ci", at(2 * time.Hour),
				map[string]time.Time{"a": at(time.Hour), "b": at(2 * time.Hour), "c": {}, "d": {}}},
			{"again keeps the first time", "b", at(3 * time.Hour),
				map[string]time.Time{"a": at(time.Hour), "b": at(2 * time.Hour), "c": {}, "d": {}}},
			{"by id", "d", at(4 * time.Hour),
				map[string]time.Time{"a": at(time.Hour), "b": at(2 * time.Hour), "c": {}, "d": at(4 * time.Hour)}},
		}
		for _, st := range steps { // sequential: each step builds on the previous
			if err := s.RevokeToken(ctx, st.idOrName, st.at); err != nil {
				t.Fatalf("%s: RevokeToken: %v", st.name, err)
			}
			got := revokedAt()
			if len(got) != len(st.want) {
				t.Fatalf("%s: %d tokens, want %d", st.name, len(got), len(st.want))
			}
			for id, want := range st.want {
				if !got[id].Equal(want) {
					t.Errorf("%s: token %s revoked at %v, want %v", st.name, id, got[id], want)
				}
			}
		}
	}},
}
