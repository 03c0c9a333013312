package inbox

import (
	"errors"
	"hash"
	"io"
	"slices"
	"sync"
)

// DefaultBodyBudget is the default byte budget of the webhook bodies held
// in memory at once (see bodyPool; WithBodyBudget changes it).
const DefaultBodyBudget = 128 << 20

// bodyChunk is the unit in which body bytes are reserved and buffered: a
// typical delivery (a few KiB) takes one chunk, a 25 MiB one 400.
const bodyChunk = 64 << 10

// Errors of bodyPool.read.
var (
	// errBodyTooLarge: more than the limit arrived (a chunked body; one
	// that declared its length too large is refused before reading).
	errBodyTooLarge = errors.New("body too large")
	// errPoolSpent: the body needed a chunk when the whole budget was held
	// by bodies in flight.
	errPoolSpent = errors.New("webhook body pool spent")
)

// bodyPool bounds the memory that webhook bodies take before their
// signature can be checked (the HMAC covers the whole body, so every body
// is held whole, signed or not). Its guarantees:
//
//   - At most budget bytes of bodies are held at once, whoever sends them:
//     bytes are reserved in chunks of bodyChunk as they arrive, and a body
//     that needs a chunk when the budget is spent is refused (the receiver
//     answers 503 with Retry-After). A declared Content-Length reserves
//     nothing: holding budget costs a sender the bytes it actually sent,
//     and the receiver's body deadline (30 s in all) bounds how long.
//   - A body whose declared length exceeds the budget free when it arrives
//     is refused before any of it is read (see fits).
//   - Chunks are reused: a refused or unsigned body leaves no garbage
//     behind, so a flood of them does not grow the heap beyond the budget
//     (every chunk is either held by a body or idle in the pool, never both,
//     and a chunk is allocated only when none is idle). When no body is in
//     flight the pool keeps idleChunks and lets the garbage collector have
//     the rest, so a past flood does not keep its memory. A signed body is
//     copied once into a slice of its exact size (no repeated growth as
//     with io.ReadAll), which is what gets stored.
//
// Sizing: GitHub's deliveries are mostly a few KiB to a few hundred KiB and
// never over 25 MiB, and GitHub does not redeliver a refused one by itself,
// so the default budget (128 MiB) is far above real traffic: thousands of
// typical deliveries, or five of the largest, in flight at the same moment.
type bodyPool struct {
	chunks int64 // the budget, in chunks

	mu   sync.Mutex
	held int64              // chunks held by bodies in flight
	idle []*[bodyChunk]byte // chunks free for reuse
}

// idleChunks is how many chunks the pool keeps when no body is in flight.
const idleChunks = 16

func newBodyPool(budget int64) *bodyPool {
	return &bodyPool{chunks: max(budget/bodyChunk, 1)}
}

// heldBytes is the budget held by bodies in flight.
func (p *bodyPool) heldBytes() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held * bodyChunk
}

// fits reports whether a body of n declared bytes fits in the budget free
// now (a hint: it reserves nothing). Unknown lengths (n < 0) fit.
func (p *bodyPool) fits(n int64) bool {
	if n < 0 {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return (n+bodyChunk-1)/bodyChunk <= p.chunks-p.held
}

// take reserves and returns one chunk, or false when the budget is spent.
func (p *bodyPool) take() (*[bodyChunk]byte, bool) {
	p.mu.Lock()
	if p.held >= p.chunks {
		p.mu.Unlock()
		return nil, false
	}
	p.held++
	var c *[bodyChunk]byte
	if n := len(p.idle); n > 0 {
		c, p.idle[n-1] = p.idle[n-1], nil
		p.idle = p.idle[:n-1]
	}
	p.mu.Unlock()
	if c == nil {
		c = new([bodyChunk]byte)
	}
	return c, true
}

// give returns a chunk taken with take.
func (p *bodyPool) give(c *[bodyChunk]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.held--
	p.idle = append(p.idle, c)
	if p.held == 0 && len(p.idle) > idleChunks {
		clear(p.idle[idleChunks:])
		p.idle = slices.Clip(p.idle[:idleChunks])
	}
}

// pooledBody is a body read into chunks of a bodyPool. release must be
// called once it is no longer needed (it may be called more than once).
type pooledBody struct {
	pool   *bodyPool
	chunks []*[bodyChunk]byte
	n      int
}

// read reads r to its end into chunks of the pool, writing every byte to
// mac as it comes, and fails with errBodyTooLarge past limit bytes,
// errPoolSpent when the budget is spent, or r's error. Whatever it
// returns holds chunks until released, even with an error.
func (p *bodyPool) read(r io.Reader, limit int64, mac hash.Hash) (*pooledBody, error) {
	b := &pooledBody{pool: p}
	for {
		off := b.n % bodyChunk
		if off == 0 {
			if int64(b.n) > limit {
				return b, errBodyTooLarge
			}
			c, ok := p.take()
			if !ok {
				return b, errPoolSpent
			}
			b.chunks = append(b.chunks, c)
		}
		c := b.chunks[len(b.chunks)-1]
		n, err := r.Read(c[off:])
		mac.Write(c[off : off+n])
		b.n += n
		if errors.Is(err, io.EOF) {
			if int64(b.n) > limit {
				return b, errBodyTooLarge
			}
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// bytes copies the body into one slice of its exact size.
func (b *pooledBody) bytes() []byte {
	out := make([]byte, 0, b.n)
	for i, c := range b.chunks {
		end := bodyChunk
		if i == len(b.chunks)-1 {
			end = b.n - i*bodyChunk
		}
		out = append(out, c[:end]...)
	}
	return out
}

// release gives the body's chunks back to the pool.
func (b *pooledBody) release() {
	for _, c := range b.chunks {
		b.pool.give(c)
	}
	b.chunks = nil
}
