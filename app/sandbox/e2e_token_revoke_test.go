package sandbox

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// A token revoked while the server runs is refused by the very next
// request, although the server had just verified it (and caches verified
// tokens): revocation through the server's store takes effect at once.
func TestRevokedTokenIsRefusedAtOnce(t *testing.T) {
	t.Parallel()
	h := newHarnessWith(t, Options{})
	h.createQueue(2)
	body := map[string]any{"repo": repoBody(), "targetBranch": "main"}
	for range 3 {
		if status, out := h.post("getQueue", body); status != http.StatusOK {
			t.Fatalf("getQueue with a live token: %d %s", status, out)
		}
	}
	if err := h.env.App().Store().RevokeToken(context.Background(), "test", time.Now()); err != nil {
		t.Fatal(err)
	}
	if status, out := h.post("getQueue", body); status != http.StatusUnauthorized {
		t.Fatalf("getQueue right after the token was revoked: %d %s, want 401", status, out)
	}
}
