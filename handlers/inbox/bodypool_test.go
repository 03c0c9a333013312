package inbox

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"io"
	"testing"
)

// stepReader returns at most step bytes per Read.
type stepReader struct {
	r    io.Reader
	step int
}

func (s *stepReader) Read(p []byte) (int, error) {
	return s.r.Read(p[:min(len(p), s.step)])
}

// checkPoolRead reads body through a pool of budget chunks with limit, in
// reads of at most step bytes, and checks the outcome against what the
// pool promises: the body whole with its HMAC when it fits, else the
// error that says why; the budget all given back after release.
func checkPoolRead(t *testing.T, body []byte, limit int64, budgetChunks int64, step int) {
	t.Helper()
	p := newBodyPool(budgetChunks * bodyChunk)
	mac := hmac.New(sha256.New, []byte(testSecret))
	b, err := p.read(&stepReader{r: bytes.NewReader(body), step: step}, limit, mac)
	n := int64(len(body))
	// Chunks a body of n bytes takes: one more when n is a whole number
	// of chunks (the read that finds the end needs room to read into).
	fits, within := n/bodyChunk+1 <= budgetChunks, n <= limit
	switch {
	case err == nil:
		if !fits || !within {
			t.Fatalf("%d bytes, limit %d, %d chunks: read without an error", n, limit, budgetChunks)
		}
		if got := b.bytes(); !bytes.Equal(got, body) || cap(got) != len(body) {
			t.Fatalf("read %d bytes (cap %d), want the %d of the body", len(got), cap(got), n)
		}
		if !hmac.Equal(mac.Sum(nil), rawMAC(body)) {
			t.Fatal("the HMAC computed while reading differs from the body's")
		}
	case errors.Is(err, errBodyTooLarge):
		if within {
			t.Fatalf("%d bytes within a limit of %d refused as too large", n, limit)
		}
	case errors.Is(err, errPoolSpent):
		if fits {
			t.Fatalf("%d bytes within a budget of %d chunks refused as spent", n, budgetChunks)
		}
	default:
		t.Fatalf("unexpected error %v", err)
	}
	if held := p.heldBytes(); held > budgetChunks*bodyChunk {
		t.Fatalf("%d bytes held, over the budget", held)
	}
	b.release()
	b.release()
	if held := p.heldBytes(); held != 0 {
		t.Fatalf("%d bytes held after release", held)
	}
}

// rawMAC is the raw HMAC of body under testSecret.
func rawMAC(body []byte) []byte {
	mac := hmac.New(sha256.New, []byte(testSecret))
	mac.Write(body)
	return mac.Sum(nil)
}

// pattern repeats seed to n bytes.
func pattern(seed []byte, n int) []byte {
	if len(seed) == 0 {
		seed = []byte{0}
	}
	return bytes.Repeat(seed, n/len(seed)+1)[:n]
}

func TestBodyPoolReadAroundChunkBoundaries(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, bodyChunk - 1, bodyChunk, bodyChunk + 1, 3*bodyChunk + 7} {
		for _, step := range []int{1 << 20, 4096, 7} {
			checkPoolRead(t, pattern([]byte("abc"), n), 4*bodyChunk, 5, step)
		}
	}
	checkPoolRead(t, pattern([]byte("x"), 2*bodyChunk), 4*bodyChunk, 2, 4096)   // the end needs a third chunk
	checkPoolRead(t, pattern([]byte("x"), 2*bodyChunk), 2*bodyChunk-1, 5, 4096) // one byte over the limit
	checkPoolRead(t, pattern([]byte("x"), 2*bodyChunk), 2*bodyChunk, 5, 4096)   // at the limit
}

// Idle chunks are reused; once no body is in flight the pool keeps only
// idleChunks of them.
func TestBodyPoolReusesAndTrimsIdleChunks(t *testing.T) {
	t.Parallel()
	p := newBodyPool(64 * bodyChunk)
	var held []*[bodyChunk]byte
	for range 40 {
		c, ok := p.take()
		if !ok {
			t.Fatal("take refused within the budget")
		}
		held = append(held, c)
	}
	first := held[0]
	for _, c := range held[1:] {
		p.give(c)
	}
	if len(p.idle) != 39 {
		t.Fatalf("%d idle chunks while a body is in flight, want 39", len(p.idle))
	}
	if c, _ := p.take(); c != held[len(held)-1] {
		t.Fatal("take allocated while a chunk was idle")
	} else {
		p.give(c)
	}
	p.give(first)
	if len(p.idle) != idleChunks || p.heldBytes() != 0 {
		t.Fatalf("%d idle chunks and %d bytes held once idle, want %d and 0", len(p.idle), p.heldBytes(), idleChunks)
	}
}

func FuzzBodyPoolRead(f *testing.F) {
	f.Add([]byte(`{"action":"opened"}`), uint32(100), uint32(1<<20), uint8(4), uint16(4096))
	f.Add([]byte("x"), uint32(bodyChunk), uint32(bodyChunk), uint8(1), uint16(1))
	f.Add([]byte("ab"), uint32(2*bodyChunk+1), uint32(2*bodyChunk), uint8(3), uint16(999))
	f.Fuzz(func(t *testing.T, seed []byte, size, limit uint32, chunks uint8, step uint16) {
		n := int(size % (4 * bodyChunk))
		checkPoolRead(t, pattern(seed, n), int64(limit%(5*bodyChunk)), int64(chunks%6)+1, int(step)+1)
	})
}
