package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/mergequeue/mq/app"
)

// serve runs the merge queue as a GitHub App until ctx ends.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("serve", "serve --config FILE",
		"Runs the merge queue as a GitHub App: webhooks at /api/github/hook, the REST API\n"+
			"at /v1/, the dashboard at /, /metrics, /healthz and /readyz (and Go's profiles\n"+
			"at /debug/pprof/ on server.admin_listen, when set). It refuses to\n"+
			"start without a webhook secret or with a key GitHub does not accept.\n"+
			"`bot setup` writes a config; config.example.yml documents every key.")
	configPath := fs.String("config", "", "configuration file (YAML); secrets may come from MQ_* environment variables")
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	if *configPath == "" && os.Getenv(app.EnvWebhookSecret) == "" {
		return errors.New("--config is required (see config.example.yml)")
	}
	cfg, err := app.LoadConfig(*configPath, os.Getenv)
	if err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("refusing to start: %w", err)
	}
	log := cfg.Logger()
	if stderr != os.Stderr {
		log = log.Output(stderr) // a caller capturing the output gets the logs too (JSON)
	}
	v := buildVersion()
	log.Info().Str("version", v).Str("address", cfg.Server.Address).Msg("starting the merge queue")
	a, err := app.New(ctx, cfg, app.Options{Logger: &log, Version: v})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Server.Address)
	if err != nil {
		_ = a.Close()
		return fmt.Errorf("failed to listen on %s: %w", cfg.Server.Address, err)
	}
	log.Info().Str("address", ln.Addr().String()).Str("version", v).Msg("listening")
	adminCtx, stopAdmin := context.WithCancel(ctx)
	defer stopAdmin()
	var admin chan error
	if addr := cfg.Server.AdminAddress(); addr != "" {
		aln, err := net.Listen("tcp", addr)
		if err != nil {
			_ = ln.Close()
			_ = a.Close()
			return fmt.Errorf("failed to listen on %s (server.admin_listen): %w", addr, err)
		}
		log.Info().Str("address", aln.Addr().String()).Msg("admin listener (pprof) on /debug/pprof/")
		admin = make(chan error, 1)
		go func() { admin <- app.ServeAdmin(adminCtx, aln) }()
	}
	if err := a.Start(ctx); err != nil {
		return err
	}
	serveErr := a.Serve(ctx, ln)
	stopAdmin()
	if admin != nil {
		serveErr = errors.Join(serveErr, <-admin)
	}
	return errors.Join(serveErr, a.Close())
}
