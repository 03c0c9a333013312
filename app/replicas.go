package app

import (
	"hash/fnv"
	"strconv"
)

// preferredReplica is the replica of live (the replicas sharing the
// database, alive) that decides for queueID: the one with the highest
// rendezvous hash of (replica, queue). Every replica computes the same
// from the same live set; when a replica joins or leaves, only the queues
// it gains or loses change hands (about 1/n of them), and the queues
// spread evenly. "" when live is empty.
func preferredReplica(live []string, queueID int64) string {
	best, bestHash := "", uint64(0)
	id := strconv.FormatInt(queueID, 10)
	for _, r := range live {
		h := fnv.New64a()
		_, _ = h.Write([]byte(r))
		_, _ = h.Write([]byte{0})
		_, _ = h.Write([]byte(id))
		// fnv's low bits mix poorly for close inputs: finish with a
		// 64-bit mixer (splitmix64's).
		x := h.Sum64()
		x ^= x >> 30
		x *= 0xbf58476d1ce4e5b9
		x ^= x >> 27
		x *= 0x94d049bb133111eb
		x ^= x >> 31
		if best == "" || x > bestHash || x == bestHash && r > best {
			best, bestHash = r, x
		}
	}
	return best
}
