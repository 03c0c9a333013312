package autotune

import (
	"math/rand/v2"

	"github.com/mergequeue/mq/queue"
)

func newRng() *rand.Rand { return rand.New(rand.NewPCG(7, 8)) }

func defaultsForTest() queue.Settings { return queue.DefaultSettings() }
