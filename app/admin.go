package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
)

// AdminAddress is the address the admin listener binds (see
// ServerConfig.AdminListen): the configured one, on 127.0.0.1 when it
// names no host; "" when none is configured.
func (s ServerConfig) AdminAddress() string {
	if s.AdminListen == "" {
		return ""
	}
	host, port, err := net.SplitHostPort(s.AdminListen)
	if err != nil || host != "" {
		return s.AdminListen
	}
	return net.JoinHostPort("127.0.0.1", port)
}

// validateAdmin checks server.admin_listen: host:port, and a loopback host
// unless server.admin_allow_remote.
func (s ServerConfig) validateAdmin() error {
	if s.AdminListen == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(s.AdminAddress())
	if err != nil {
		return fmt.Errorf("server.admin_listen: %q is not host:port: %w", s.AdminListen, err)
	}
	if s.AdminAllowRemote || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("server.admin_listen: %q is not a loopback address: the admin listener serves profiles of the "+
			"process's memory without authentication; use 127.0.0.1:PORT (or set server.admin_allow_remote)", s.AdminListen)
	}
	return nil
}

// AdminHandler serves Go's runtime profiles under /debug/pprof/ (net/http/pprof:
// the index, cmdline, profile, symbol, trace and every named profile). It
// is meant for the admin listener alone, never for the public routes.
func AdminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// ServeAdmin serves AdminHandler on ln until ctx ends. A CPU profile or a
// trace runs for the seconds its request asks, so there is no write
// timeout; shutdown waits for none of them.
func ServeAdmin(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: AdminHandler(), ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: IdleTimeout}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("admin server stopped: %w", err)
	case <-ctx.Done():
	}
	if err := srv.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("failed to stop the admin server: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("admin server stopped: %w", err)
	}
	return nil
}
