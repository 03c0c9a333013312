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
			"at /v1/, the dashboard at /, /metrics, /healthz and /readyz. It refuses to\n"+
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
	if err := a.Start(ctx); err != nil {
		return err
	}
	serveErr := a.Serve(ctx, ln)
	return errors.Join(serveErr, a.Close())
}
