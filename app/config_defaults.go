package app

import (
	"net/url"
	"strings"
	"time"

	"github.com/mergequeue/mq/githubx"
	"github.com/mergequeue/mq/handlers"
	"github.com/mergequeue/mq/queue"
	"github.com/mergequeue/mq/queue/service"
)

// Defaults applied by applyDefaults to every key left empty (or zero).
// The others come from the package that owns them: GitHub's URLs from
// githubx (DefaultWebURL, DefaultV3APIURL, DefaultV4APIURL), the command
// prefix from handlers (DefaultCommandPrefix).
const (
	DefaultServerAddress     = ":8080"
	DefaultPublicURL         = "http://localhost:8080"
	DefaultDatabaseDriver    = DriverSQLite
	DefaultDatabasePath      = "mq.db"
	DefaultLogLevel          = "info"
	DefaultLogFormat         = "json"
	DefaultReconcileInterval = 30 * time.Second
	DefaultNotificationKind  = NotifyWebhook
	DefaultDashboardAccess   = DashboardToken
)

// applyDefaults fills every empty key with its Default… value. It is the
// only place defaults are applied.
func (c *Config) applyDefaults() {
	def := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	def(&c.Server.Address, DefaultServerAddress)
	def(&c.Server.PublicURL, DefaultPublicURL)
	def(&c.GitHub.WebURL, githubx.DefaultWebURL)
	def(&c.GitHub.V3APIURL, githubx.DefaultV3APIURL)
	def(&c.GitHub.V4APIURL, githubx.DefaultV4APIURL)
	if c.GitHub.Host == "" {
		if u, err := url.Parse(c.GitHub.WebURL); err == nil {
			c.GitHub.Host = strings.ToLower(u.Hostname())
		}
	}
	c.GitHub.Budget.applyDefaults()
	def(&c.Database.Driver, DefaultDatabaseDriver)
	def(&c.Database.Path, DefaultDatabasePath)
	c.applyTestBranchDefaults() // after database.path
	def(&c.Commands.Prefix, handlers.DefaultCommandPrefix)
	def(&c.TestPRs.TitleTemplate, service.DefaultTestPRTitle)
	def(&c.Logging.Level, DefaultLogLevel)
	def(&c.Logging.Format, DefaultLogFormat)
	if c.Engine.ReconcileInterval == 0 {
		c.Engine.ReconcileInterval = DefaultReconcileInterval
	}
	if c.Dashboard.Access == "" {
		c.Dashboard.Access = DefaultDashboardAccess
	}
	qd := queue.DefaultSettings()
	for i := range c.Queues {
		q := &c.Queues[i]
		def(&q.Mode, string(qd.Mode))
		def(&q.MergeMethod, string(qd.MergeMethod))
		if q.Concurrency == 0 {
			q.Concurrency = qd.Concurrency
		}
	}
	for i := range c.Notifications {
		if c.Notifications[i].Kind == "" {
			c.Notifications[i].Kind = DefaultNotificationKind
		}
	}
}
