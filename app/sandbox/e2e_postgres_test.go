package sandbox

import (
	"testing"

	"github.com/mergequeue/mq/app"
	"github.com/mergequeue/mq/queue/postgres/pgtest"
)

// The whole app on PostgreSQL (database.driver postgres): the scenario of
// TestRestartMidTest, where webhooks, the API's token and the queue's reads
// all go through the PostgreSQL store (skipped without MQ_TEST_POSTGRES_URL).
func TestEndToEndOnPostgres(t *testing.T) {
	t.Parallel()
	restartMidTest(t, Options{Database: &app.DatabaseConfig{Driver: app.DriverPostgres, URL: pgtest.URL(t)}})
}
