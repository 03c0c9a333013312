package service

import (
	"context"
	"errors"

	"github.com/mergequeue/mq/queue"
)

// conflictTries bounds how often a webhook or API write redoes its change
// on fresh state after another replica saved the same entry first.
const conflictTries = 5

// retryOnConflict runs fn, which reads what it changes and saves it, again
// while its save finds the entry changed since fn read it
// (queue.ErrConflict: another replica, or the queue's decision-maker,
// saved it; nothing was written), up to conflictTries times: each try
// decides on fresh state, so that no write undoes another. It returns
// fn's last error.
func retryOnConflict(ctx context.Context, fn func() error) error {
	var err error
	for range conflictTries {
		if err = fn(); !errors.Is(err, queue.ErrConflict) || ctx.Err() != nil {
			return err
		}
	}
	return err
}
