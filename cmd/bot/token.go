package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/handlers/api/apitoken"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

const tokenUsage = `usage: bot token create|list|revoke [flags]

Manages the REST API's tokens (header x-api-token) in the database the
configuration names (or --db): create prints a new token once (with full
access, or --read-only: it may read the API, the dashboard and the browser
extension's status but change nothing), list shows them without their
secrets, revoke ID-OR-NAME ends one.
"bot token <command> --help" describes the flags.
`

// tokenSynopses are the usage lines of the token commands.
var tokenSynopses = map[string]string{
	"create": "token create [--config FILE | --db FILE] --name NAME [--repo OWNER/NAME]... [--owner OWNER]... [--expires 720h] [--read-only]",
	"list":   "token list [--config FILE | --db FILE]",
	"revoke": "token revoke [--config FILE | --db FILE] ID-OR-NAME",
}

// token manages REST API tokens in the database named by the configuration.
func token(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, tokenUsage)
		return usageError{errors.New("no token command")}
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, tokenUsage)
		return errHelpShown
	}
	synopsis, ok := tokenSynopses[sub]
	if !ok {
		fmt.Fprintf(stderr, "bot token: unknown command %q\n\n%s", sub, tokenUsage)
		return usageError{fmt.Errorf("unknown token command %q", sub)}
	}
	fs := newFlagSet("token "+sub, synopsis, "Flags that do not apply to this command are ignored.")
	configPath := fs.String("config", "", "configuration file (for the database path)")
	dbPath := fs.String("db", "", "database file (overrides the configuration)")
	name := fs.String("name", "", "token name (create)")
	expires := fs.Duration("expires", 0, "lifetime, e.g. 720h (create; 0 = never)")
	readOnly := fs.Bool("read-only", false, "may read but not change anything: the API's write operations refuse it (create)")
	var repos, owners listFlag
	fs.Var(&repos, "repo", "allow only this repository owner/name (create; repeatable)")
	fs.Var(&owners, "owner", "allow only this owner's repositories (create; repeatable)")
	if err := parseFlags(fs, args, stdout, stderr); err != nil {
		return err
	}
	dbCfg, err := databaseConfig(*configPath, *dbPath)
	if err != nil {
		return err
	}
	store, err := app.OpenDatabaseBeside(ctx, dbCfg)
	if err != nil {
		return err
	}
	defer store.Close()
	var tokens apitoken.Store = store
	switch sub {
	case "create":
		var opts []apitoken.IssueOption
		if *readOnly {
			opts = append(opts, apitoken.ReadOnly())
		}
		secret, tok, err := apitoken.Issue(ctx, tokens, *name, repos, owners, *expires, time.Now(), opts...)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "created %s token %q (id %s); it is shown only once:\n%s\n", tok.Access(), tok.Name, tok.ID, secret)
	case "list":
		toks, err := tokens.ListTokens(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tACCESS\tSCOPE\tCREATED\tEXPIRES\tREVOKED")
		for _, t := range toks {
			scope := strings.Join(append(append([]string{}, t.Repos...), t.Owners...), ",")
			if scope == "" {
				scope = "all repositories"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, t.Access(), scope, when(t.CreatedAt), when(t.ExpiresAt),
				when(t.RevokedAt))
		}
		return tw.Flush()
	case "revoke":
		if fs.NArg() != 1 {
			return errors.New("usage: bot token revoke [--config FILE] ID-OR-NAME")
		}
		if err := tokens.RevokeToken(ctx, fs.Arg(0), time.Now()); err != nil {
			return fmt.Errorf("failed to revoke %q: %w", fs.Arg(0), err)
		}
		fmt.Fprintf(stdout, "revoked %s\n", fs.Arg(0))
	default:
		return fmt.Errorf("unknown token command %q (create, list, revoke)", sub)
	}
	return nil
}

// databaseConfig finds the database from --db (a SQLite file), the
// configuration or the environment, without requiring the GitHub App
// settings.
func databaseConfig(configPath, dbPath string) (app.DatabaseConfig, error) {
	if dbPath != "" {
		return app.DatabaseConfig{Driver: app.DriverSQLite, Path: dbPath}, nil
	}
	cfg, err := app.LoadConfig(configPath, os.Getenv)
	if err != nil {
		return app.DatabaseConfig{}, err
	}
	return cfg.Database, nil
}

func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
