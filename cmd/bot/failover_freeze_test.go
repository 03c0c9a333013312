//go:build unix

package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Three replicas on one database: the replica holding the queue's lease
// is frozen (SIGSTOP) while PRs test, past its lease, until another
// replica took the queue; then it is resumed (SIGCONT) and goes on running
// beside the new holder. From the moment its lease expired it writes
// nothing as the queue's decision-maker: no merge, branch or ref write
// reaches GitHub from it (its own proxy's request log) and no test run or
// merge record is written by its database sessions (an audit trigger
// records each writer's application_name), until it rightly takes a
// queue's lease or a role again; every PR merges once, in order, with the
// crash tests' invariants.
func TestFailoverFreezeTheLeaseHolder(t *testing.T) {
	t.Parallel()
	s := newReplicaSet(t, 3)
	h := s.crashHarness
	s.auditDecisionWrites()
	o, victim, before := s.sixPRsTestingUnderAHolder(t)
	victim.frozen.Store(true)
	if err := victim.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = victim.cmd.Process.Signal(syscall.SIGCONT)
			victim.frozen.Store(false)
		}
	}
	t.Cleanup(resume) // a failed test still stops its replicas
	frozenAt := time.Now()
	// The lease as the frozen holder left it: a renewal it sent just
	// before it stopped may still land, so read until it stays put.
	var expiry time.Time
	h.waitFor("the frozen holder's lease to stay put", crashWait, func() bool {
		l1, err1 := s.leaseOf()
		time.Sleep(300 * time.Millisecond) // two reads apart, not a wait for an outcome
		l2, err2 := s.leaseOf()
		if err1 != nil || err2 != nil || l1 != l2 {
			return false
		}
		if l2.Holder != before.Holder {
			t.Fatalf("the lease changed hands at once: %+v, frozen holder %s", l2, before.Holder)
		}
		expiry = l2.Expires
		return true
	}, nil)
	t.Logf("froze replica %d, the lease holder (%s, token %d, lease until %s)", victim.n, before.Holder, before.Token, expiry.Format("15:04:05.000"))
	var after lease
	h.waitFor("another replica to take the queue", failoverTakeover, func() bool {
		var r *replica
		r, after = s.holder()
		return r != nil && r != victim && after.Token > before.Token
	}, func() string { return fmt.Sprintf("lease: %+v", after) })
	t.Logf("%s took the queue (token %d) %v after the freeze", after.Holder, after.Token, time.Since(frozenAt).Round(time.Millisecond))
	if !time.Now().After(expiry) {
		t.Fatalf("the queue was taken before the frozen holder's lease expired (%s)", expiry)
	}
	stopCI := h.paceCI(rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2)), 100*time.Millisecond, 600*time.Millisecond)
	defer stopCI()
	h.waitFor("the new holder to move the queue on", crashWait, func() bool {
		n, err := h.mergeLog()
		return err == nil && len(n) > 0
	}, nil)
	resume()
	t.Logf("resumed replica %d %v after the freeze", victim.n, time.Since(frozenAt).Round(time.Millisecond))
	h.finish(o)

	// Once resumed, the frozen replica may rightly take a queue or a role
	// again (the queue hashes to it among the live replicas): what it
	// must not do is write between its lease's expiry and then.
	regained, err := s.regainedAt(victim.dbApp, expiry)
	if err != nil {
		t.Fatal(err)
	}
	if !regained.IsZero() {
		t.Logf("replica %d took a queue or a role again at %s", victim.n, regained.Format("15:04:05.000"))
	}
	var sent int
	for _, r := range s.githubRequests() {
		if r.Replica != victim.n || !r.At.After(expiry) || !regained.IsZero() && !r.At.Before(regained) {
			continue
		}
		sent++
		if r.Decision {
			t.Errorf("replica %d, whose lease expired at %s, sent %s %s to GitHub at %s", victim.n,
				expiry.Format("15:04:05.000"), r.Method, r.Path, r.At.Format("15:04:05.000"))
		}
	}
	t.Logf("replica %d sent %d GitHub requests between its lease's expiry and taking one again (reads and notifications)", victim.n, sent)
	writes, err := s.decisionWrites(victim.dbApp, expiry, regained)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range writes {
		t.Errorf("replica %d, whose lease expired at %s, wrote to the database as the decision-maker: %s", victim.n, expiry.Format("15:04:05.000"), w)
	}
}

// auditDecisionWrites installs, in the replicas' schema, a trigger that
// records each write to the tables only a queue's decision-maker writes
// (test runs, the merge log) with its session's application_name (each
// replica's own) and the time; and one that records each take of a
// queue's lease or of a role (op TAKE: the holder changes, or the lease
// or role had expired).
func (s *replicaSet) auditDecisionWrites() {
	s.t.Helper()
	db, err := s.openDB()
	if err != nil {
		s.t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range []string{
		`CREATE TABLE decision_audit (app TEXT NOT NULL, tbl TEXT NOT NULL, op TEXT NOT NULL, at TIMESTAMPTZ NOT NULL)`,
		`CREATE FUNCTION decision_audit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			INSERT INTO decision_audit VALUES (current_setting('application_name'), TG_TABLE_NAME, TG_OP, clock_timestamp());
			RETURN NULL;
		END $$`,
		`CREATE TRIGGER runs_audit AFTER INSERT OR UPDATE OR DELETE ON runs FOR EACH ROW EXECUTE FUNCTION decision_audit()`,
		`CREATE TRIGGER merges_audit AFTER INSERT OR UPDATE OR DELETE ON merges FOR EACH ROW EXECUTE FUNCTION decision_audit()`,
		// A take: the holder changes, the token moves, or the lease or
		// role had expired (its end is the function's argument).
		`CREATE FUNCTION take_audit() RETURNS trigger LANGUAGE plpgsql AS $$
		DECLARE
			old_end BIGINT := CASE WHEN TG_OP = 'INSERT' THEN 0 ELSE (to_jsonb(OLD) ->> TG_ARGV[0])::BIGINT END;
		BEGIN
			IF TG_OP = 'INSERT' OR NEW.holder IS DISTINCT FROM OLD.holder
				OR to_jsonb(NEW) ->> 'token' IS DISTINCT FROM to_jsonb(OLD) ->> 'token'
				OR old_end < extract(epoch FROM clock_timestamp()) * 1e9 THEN
				INSERT INTO decision_audit VALUES (current_setting('application_name'), TG_TABLE_NAME, 'TAKE', clock_timestamp());
			END IF;
			RETURN NULL;
		END $$`,
		`CREATE TRIGGER queue_leases_audit AFTER INSERT OR UPDATE ON queue_leases FOR EACH ROW EXECUTE FUNCTION take_audit('expires_at')`,
		`CREATE TRIGGER roles_audit AFTER INSERT OR UPDATE ON roles FOR EACH ROW EXECUTE FUNCTION take_audit('held_until')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			s.t.Fatalf("failed to install the write audit: %v", err)
		}
	}
}

// regainedAt returns when the sessions named app first took a queue's
// lease or a role after since (zero: never).
func (s *replicaSet) regainedAt(app string, since time.Time) (time.Time, error) {
	db, err := s.openDB()
	if err != nil {
		return time.Time{}, err
	}
	defer db.Close()
	var at sql.NullTime
	if err := db.QueryRow(`SELECT min(at) FROM decision_audit WHERE app = $1 AND op = 'TAKE' AND at > $2`, app, since).Scan(&at); err != nil {
		return time.Time{}, fmt.Errorf("failed to read the lease audit: %w", err)
	}
	return at.Time, nil
}

// decisionWrites lists the audited writes (not the takes) of the sessions
// named app after since and, unless until is zero, before until.
func (s *replicaSet) decisionWrites(app string, since, until time.Time) ([]string, error) {
	db, err := s.openDB()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if until.IsZero() {
		until = time.Now().Add(time.Hour)
	}
	rows, err := db.Query(`SELECT tbl, op, at FROM decision_audit WHERE app = $1 AND op <> 'TAKE' AND at > $2 AND at < $3 ORDER BY at`, app, since, until)
	if err != nil {
		return nil, fmt.Errorf("failed to read the write audit: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var tbl, op string
		var at time.Time
		if err := rows.Scan(&tbl, &op, &at); err != nil {
			return nil, fmt.Errorf("failed to read the write audit: %w", err)
		}
		out = append(out, fmt.Sprintf("%s on %s at %s", op, tbl, at.Format("15:04:05.000")))
	}
	return out, rows.Err()
}

// notificationPath matches the GitHub writes any replica makes for the
// shared outbox (comments, labels, check runs, statuses) and for its own
// credentials, as opposed to a decision-maker's (merges, branches, refs).
var notificationPath = regexp.MustCompile(`/issues/|/check-runs|/statuses/|^/app/installations/`)

// isDecisionWrite reports whether a request is a write only a queue's
// decision-maker (or the reconciler) makes: any write but a notification's,
// and GraphQL mutations (its queries are reads).
func isDecisionWrite(req *http.Request) bool {
	if req.Method == http.MethodGet || req.Method == http.MethodHead || notificationPath.MatchString(req.URL.Path) {
		return false
	}
	if !strings.HasSuffix(req.URL.Path, "/graphql") {
		return true
	}
	body, err := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	return err != nil || bytes.Contains(body, []byte("mutation"))
}
