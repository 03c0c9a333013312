// Command bot is the merge queue: `serve` runs it against GitHub, `setup`
// registers its GitHub App and writes a config, `sandbox` runs it against
// a local fake GitHub with simulated CI, `token` manages REST API tokens,
// `healthcheck` asks a running server whether it is up and `version`
// prints the version.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `usage: bot <command> [flags]

commands:
  serve    --config FILE             run the merge queue (GitHub App)
  setup    --public-url URL          register the GitHub App from app.yml and write a config
  sandbox  [--addr 127.0.0.1:8080]   run the whole product locally on a fake GitHub
  token    create|list|revoke ...    manage REST API tokens
  healthcheck [--config FILE]        exit 0 when the running server answers /healthz
  version                            print the version

"bot <command> --help" describes a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command and returns the process exit code: 0 on
// success and for --help, 2 for a usage error (unknown command or flag),
// 1 when the command fails.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = serve(ctx, args[1:], stdout, stderr)
	case "setup":
		err = runSetup(ctx, args[1:], stdout, stderr)
	case "sandbox":
		err = runSandbox(ctx, args[1:], stdout, stderr)
	case "token":
		err = token(ctx, args[1:], stdout, stderr)
	case "healthcheck":
		err = healthcheck(ctx, args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "bot", buildVersion())
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "bot: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	var uerr usageError
	switch {
	case err == nil, errors.Is(err, errHelpShown):
		return 0
	case errors.As(err, &uerr):
		return 2
	}
	fmt.Fprintf(stderr, "bot %s: %v\n", args[0], err)
	return 1
}

// errHelpShown reports that a command printed its usage for -h or --help:
// the process exits 0.
var errHelpShown = errors.New("help shown")

// usageError is a command line the command cannot run, already explained
// on stderr: the process exits 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// newFlagSet returns a flag set whose usage reads "usage: bot <synopsis>",
// then about, then the flags.
func newFlagSet(name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: bot %s\n\n%s\n", synopsis, about)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(fs.Output(), "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses args. For -h or --help it prints the usage on stdout
// and returns errHelpShown; for a bad flag it prints the error and the
// usage on stderr and returns a usageError.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) error {
	var out bytes.Buffer
	fs.SetOutput(&out)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		_, _ = stdout.Write(out.Bytes())
		return errHelpShown
	case err != nil:
		_, _ = stderr.Write(out.Bytes())
		return usageError{err}
	}
	return nil
}
