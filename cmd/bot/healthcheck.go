package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mergequeue/mq/app"
)

// defaultHealthTimeout bounds one health check, connection included.
const defaultHealthTimeout = 5 * time.Second

// healthcheck GETs /healthz (or /readyz) of the server on its listen
// address, for a container's HEALTHCHECK: nil (exit 0) on a 200, an error
// (exit 1) on anything else, nothing listening or no answer in time. The
// address is --addr, else the configuration's server.address (with its
// MQ_SERVER_ADDRESS override); a wildcard host is checked on loopback.
func healthcheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("healthcheck", "healthcheck [--config FILE] [--addr HOST:PORT] [--ready] [--timeout 5s]",
		"Checks that a running `bot serve` answers: GET /healthz (with --ready, /readyz,\n"+
			"which also asks the database) on the listen address. Exits 0 when it answers\n"+
			"200, 1 otherwise. For a container's HEALTHCHECK; it needs no secret.")
	configPath := fs.String("config", "", "configuration file whose server.address is checked (default address "+app.DefaultServerAddress+")")
	addr := fs.String("addr", "", "address to check (host:port), instead of the configuration's")
	ready := fs.Bool("ready", false, "check /readyz instead of /healthz")
	timeout := fs.Duration("timeout", defaultHealthTimeout, "give up after this long")
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bot healthcheck: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return usageError{errors.New("unexpected argument")}
	}
	if *timeout <= 0 {
		return errors.New("--timeout must be positive")
	}
	target := *addr
	if target == "" {
		cfg, err := app.LoadConfig(*configPath, os.Getenv)
		if err != nil {
			return err
		}
		target = cfg.Server.Address
	}
	url, err := healthURL(target, *ready)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("failed to build the health check request: %w", err)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: nil}, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("failed to reach %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %d: %s", url, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	fmt.Fprintf(stdout, "%s: %s\n", url, strings.TrimSpace(string(body)))
	return nil
}

// healthURL is the health endpoint of a server listening on addr: a
// wildcard or empty host is reached on loopback.
func healthURL(addr string, ready bool) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("invalid listen address %q: %w", addr, err)
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	path := app.HealthPath
	if ready {
		path = app.ReadyPath
	}
	return "http://" + net.JoinHostPort(host, port) + path, nil
}
