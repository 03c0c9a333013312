package sandbox

import (
	"fmt"
	"net"
	"sync"
	"time"
)

// keptListener is the app's listening socket, kept open across restarts so
// that a restarted app answers at the same address. Closing the socket
// between two apps would let any other socket on the machine (a parallel
// test's listener, an outgoing connection's ephemeral port) take the port.
type keptListener struct {
	*net.TCPListener
	mu     sync.Mutex
	closed bool
}

func listenKept(addr string) (*keptListener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("failed to listen on %s: %w", addr, err)
	}
	return &keptListener{TCPListener: ln.(*net.TCPListener)}, nil
}

// Accept waits for a connection; after Close it fails with net.ErrClosed.
func (l *keptListener) Accept() (net.Conn, error) {
	if l.isClosed() {
		return nil, net.ErrClosed
	}
	c, err := l.TCPListener.Accept()
	if err != nil && l.isClosed() {
		return nil, net.ErrClosed
	}
	return c, err
}

// Close ends Accept for the app serving the listener (what an http.Server
// does at shutdown) but keeps the port bound for the next app.
func (l *keptListener) Close() error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	// A deadline in the past wakes a blocked Accept.
	if err := l.TCPListener.SetDeadline(time.Unix(1, 0)); err != nil {
		return fmt.Errorf("failed to stop accepting on %s: %w", l.Addr(), err)
	}
	return nil
}

// reopen lets the next app accept on the same socket.
func (l *keptListener) reopen() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = false
	if err := l.TCPListener.SetDeadline(time.Time{}); err != nil {
		return fmt.Errorf("failed to accept again on %s: %w", l.Addr(), err)
	}
	return nil
}

// release closes the socket for good.
func (l *keptListener) release() error { return l.TCPListener.Close() }

func (l *keptListener) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}
