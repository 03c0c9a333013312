package handlers

import "strings"

// Defaults applied by Config.withDefaults.
const (
	DefaultHost          = "github.com"
	DefaultCommandPrefix = "/mq"
	DefaultEnqueueLabel  = "merge-queue"
	// OwnCheckRunPrefix starts the name of the queue's own check run
	// ("Merge Queue (<branch>)"); such runs are not CI results.
	OwnCheckRunPrefix = "Merge Queue ("
)

// Config is what the handlers need to know about the deployment.
type Config struct {
	// Host is the GitHub host of every repository ("github.com" or a GHES
	// host); it becomes queue.Repo.Host.
	Host string
	// BotLogin is the App's bot user (e.g. "merge-queue[bot]"); its own
	// comments and label changes are ignored. Empty: nothing is ignored.
	BotLogin string
	// CommandPrefix starts a command line in a PR comment (default "/mq").
	CommandPrefix string
	// EnqueueLabel is the enqueue label for a branch with no queue, and for
	// queues whose own EnqueueingLabel setting is empty (default
	// "merge-queue"). A queue's setting wins when it has one.
	EnqueueLabel string
}

func (c Config) withDefaults() Config {
	if c.Host == "" {
		c.Host = DefaultHost
	}
	if c.CommandPrefix == "" {
		c.CommandPrefix = DefaultCommandPrefix
	}
	if c.EnqueueLabel == "" {
		c.EnqueueLabel = DefaultEnqueueLabel
	}
	return c
}

// isBot reports whether login is the App's own bot user.
func (c Config) isBot(login string) bool {
	return c.BotLogin != "" && strings.EqualFold(login, c.BotLogin)
}
