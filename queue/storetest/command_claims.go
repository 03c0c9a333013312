package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/mergequeue/mq/queue"
)

// claimTests prove queue.CommandClaims: the first delivery to claim a
// comment command keeps it; only that delivery may claim it again.
var claimTests = []testCase{
	{"command claims/first delivery keeps the command", func(t *testing.T, s queue.Store) {
		c := queue.CommandClaim{Repo: testRepo, CommentID: 7, UpdatedAt: t0, DeliveryID: "d1", ClaimedAt: at(time.Second)}
		wantClaim(t, s, c, true)
		wantClaim(t, s, c, true) // a retry of the same delivery
		replay := c
		replay.DeliveryID, replay.ClaimedAt = "d2", at(time.Hour)
		wantClaim(t, s, replay, false)
		// Whatever the spelling of the repository.
		replay.Repo = shouty
		wantClaim(t, s, replay, false)
		wantClaim(t, s, c, true) // d1 still owns it
	}},
	{"command claims/each comment and edit time is its own command", func(t *testing.T, s queue.Store) {
		c := queue.CommandClaim{Repo: testRepo, CommentID: 7, UpdatedAt: t0, DeliveryID: "d1", ClaimedAt: t0}
		wantClaim(t, s, c, true)
		for _, other := range []queue.CommandClaim{
			{Repo: testRepo, CommentID: 8, UpdatedAt: t0, DeliveryID: "d2", ClaimedAt: t0},
			{Repo: testRepo, CommentID: 7, UpdatedAt: at(time.Nanosecond), DeliveryID: "d3", ClaimedAt: t0},
			{Repo: otherRepo, CommentID: 7, UpdatedAt: t0, DeliveryID: "d4", ClaimedAt: t0},
			{Repo: testRepo, CommentID: 7, DeliveryID: "d5", ClaimedAt: t0}, // no updated_at
		} {
			wantClaim(t, s, other, true)
		}
		wantClaim(t, s, queue.CommandClaim{Repo: testRepo, CommentID: 7, DeliveryID: "d6", ClaimedAt: t0}, false)
	}},
	{"command claims/a rolled back claim is forgotten", func(t *testing.T, s queue.Store) {
		c := queue.CommandClaim{Repo: testRepo, CommentID: 9, UpdatedAt: t0, DeliveryID: "d1", ClaimedAt: t0}
		err := s.WithTx(ctx, func(tx queue.Store) error {
			wantClaim(t, tx, c, true)
			return errBoom
		})
		if !errors.Is(err, errBoom) {
			t.Fatalf("WithTx = %v, want %v", err, errBoom)
		}
		other := c
		other.DeliveryID = "d2"
		wantClaim(t, s, other, true)
	}},
	{"command claims/an empty delivery id is refused", func(t *testing.T, s queue.Store) {
		if _, err := s.ClaimCommand(ctx, queue.CommandClaim{Repo: testRepo, CommentID: 7, UpdatedAt: t0, ClaimedAt: t0}); err == nil {
			t.Fatal("ClaimCommand without a delivery id succeeded")
		}
		wantClaim(t, s, queue.CommandClaim{Repo: testRepo, CommentID: 7, UpdatedAt: t0, DeliveryID: "d1", ClaimedAt: t0}, true)
	}},
}

func wantClaim(t *testing.T, s queue.Store, c queue.CommandClaim, want bool) {
	t.Helper()
	got, err := s.ClaimCommand(ctx, c)
	must(t, err)
	if got != want {
		t.Errorf("ClaimCommand(%s comment %d at %s by %s) = %v, want %v", c.Repo, c.CommentID, c.UpdatedAt, c.DeliveryID, got, want)
	}
}
