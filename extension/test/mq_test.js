// Unit tests of lib/mq.js. Results go to #report and to
// window.mqTestReport = {passed, failures: [..]}; #report gets data-done.
"use strict";

(() => {
  const failures = [];
  let passed = 0;

  function eq(name, got, want) {
    const g = JSON.stringify(got), w = JSON.stringify(want);
    if (g === w) passed++;
    else failures.push(`${name}: got ${g}, want ${w}`);
  }

  function throwsMsg(name, fn, substring) {
    try {
      fn();
      failures.push(`${name}: did not throw`);
    } catch (e) {
      if (String(e.message).includes(substring)) passed++;
      else failures.push(`${name}: threw ${JSON.stringify(e.message)}, want it to mention ${JSON.stringify(substring)}`);
    }
  }

  // parsePullURL
  eq("pull URL", MQ.parsePullURL("https://github.com/acme/widgets/pull/12"),
    { host: "github.com", owner: "acme", repo: "widgets", number: 12 });
  eq("pull URL with tab and query", MQ.parsePullURL("https://GitHub.com/acme/widgets.js/pull/7/files?w=1#diff"),
    { host: "github.com", owner: "acme", repo: "widgets.js", number: 7 });
  eq("GHE host, port dropped", MQ.parsePullURL("https://ghe.example.com:8443/octocat_acme/w/pull/3"),
    { host: "ghe.example.com", owner: "octocat_acme", repo: "w", number: 3 });
  eq("issue page", MQ.parsePullURL("https://github.com/acme/widgets/issues/12"), null);
  eq("pull list", MQ.parsePullURL("https://github.com/acme/widgets/pulls"), null);
  eq("number zero", MQ.parsePullURL("https://github.com/acme/widgets/pull/0"), null);
  eq("dot repo", MQ.parsePullURL("https://github.com/acme/../pull/1"), null);
  eq("not a URL", MQ.parsePullURL("pull/12"), null);
  eq("other scheme", MQ.parsePullURL("ftp://github.com/acme/widgets/pull/1"), null);

  // branchFromRef and readBaseBranch
  eq("plain ref", MQ.branchFromRef("  main \n"), "main");
  eq("owner ref", MQ.branchFromRef("acme:release/1.2"), "release/1.2");
  eq("title ref", MQ.branchFromRef("acme/widgets:main"), "main");
  eq("empty ref", MQ.branchFromRef(" "), null);
  const fx = document.getElementById("fixture");
  fx.innerHTML = '<span class="commit-ref head-ref" title="alice/widgets:feature">alice:feature</span>' +
    '<span class="commit-ref base-ref" title="acme/widgets:develop"><a><span>develop</span></a></span>';
  eq("base from title", MQ.readBaseBranch(document), "develop");
  fx.innerHTML = '<span class="base-ref"> <span>main</span> </span>';
  eq("base from text", MQ.readBaseBranch(document), "main");
  fx.innerHTML = '<span class="head-ref">feature</span>';
  eq("no base on page", MQ.readBaseBranch(document), null);
  fx.innerHTML = "";

  // normalizeApiURL and originPattern
  eq("api URL", MQ.normalizeApiURL(" https://mq.example.com/ "), "https://mq.example.com");
  eq("api URL with /v1/", MQ.normalizeApiURL("https://mq.example.com/v1/"), "https://mq.example.com");
  eq("api URL under a path", MQ.normalizeApiURL("http://127.0.0.1:8080/mq/v1"), "http://127.0.0.1:8080/mq");
  throwsMsg("empty api URL", () => MQ.normalizeApiURL(""), "empty");
  throwsMsg("api URL without scheme", () => MQ.normalizeApiURL("mq.example.com"), "not a URL");
  throwsMsg("api URL other scheme", () => MQ.normalizeApiURL("ftp://mq.example.com"), "https://");
  throwsMsg("api URL with credentials", () => MQ.normalizeApiURL("https://u:p@mq.example.com"), "credentials");
  // Plain http:// only to this machine: elsewhere the token would travel in clear.
  throwsMsg("api URL over http to a remote host", () => MQ.normalizeApiURL("http://mq.example.com"), "in clear");
  throwsMsg("api URL over http to a private address", () => MQ.normalizeApiURL("http://10.0.0.7:8080/v1"), "https://");
  throwsMsg("api URL over http, loopback as a subdomain", () => MQ.normalizeApiURL("http://127.0.0.1.evil.example/"), "in clear");
  throwsMsg("api URL over http, localhost as a subdomain", () => MQ.normalizeApiURL("http://localhost.evil.example:8080"), "in clear");
  throwsMsg("api URL over http, mapped IPv4", () => MQ.normalizeApiURL("http://[::ffff:127.0.0.1]:8080"), "in clear");
  eq("api URL over http to localhost", MQ.normalizeApiURL("http://localhost:8080/v1"), "http://localhost:8080");
  eq("api URL over http to [::1]", MQ.normalizeApiURL("http://[::1]:8080/"), "http://[::1]:8080");
  eq("api URL over http to 127.0.0.2", MQ.normalizeApiURL("HTTP://127.0.0.2:9"), "http://127.0.0.2:9");
  eq("api URL over https to any host", MQ.normalizeApiURL("https://10.0.0.7:8443"), "https://10.0.0.7:8443");
  eq("loopback hosts", ["localhost", "[::1]", "127.0.0.1", "127.255.0.1"].map(MQ.isLoopbackHost), [true, true, true, true]);
  eq("remote hosts", ["mq.example.com", "10.0.0.1", "[::2]", "localhost.evil.example", "128.0.0.1", ""].map(MQ.isLoopbackHost),
    [false, false, false, false, false, false]);
  eq("origin pattern drops the port", MQ.originPattern("http://127.0.0.1:8080/mq"), "http://127.0.0.1/*");

  // requestBody and submitBody
  const pr = { host: "github.com", owner: "acme", repo: "widgets", number: 12, base: "main" };
  eq("PR body", MQ.requestBody(pr),
    { repo: { host: "github.com", owner: "acme", name: "widgets" }, targetBranch: "main", pr: { number: 12 } });
  eq("queue body", MQ.requestBody({ ...pr, number: undefined }),
    { repo: { host: "github.com", owner: "acme", name: "widgets" }, targetBranch: "main" });
  eq("submit default priority", MQ.submitBody(pr, "", false).priority, null);
  eq("submit high, alone", [MQ.submitBody(pr, "high", true).priority, MQ.submitBody(pr, "high", true).noBatch], ["high", true]);
  throwsMsg("submit unknown priority", () => MQ.submitBody(pr, "asap", false), "asap");

  // describeHTTPError
  eq("unreachable", MQ.describeHTTPError(0, "Failed to fetch", "https://mq.example.com"),
    "Cannot reach the merge queue at https://mq.example.com: Failed to fetch.");
  eq("401", MQ.describeHTTPError(401, "invalid token", "x").includes("refused the API token"), true);
  eq("403", MQ.describeHTTPError(403, "token not allowed for acme/widgets\n", "x"),
    "This API token may not access this repository (403): token not allowed for acme/widgets.");
  eq("403 read-only", MQ.describeHTTPError(403, 'API token "viewer" is read-only: submitPullRequest changes the queue and needs a token with full access\n', "x"),
    'This API token is read-only: it shows the queue but cannot submit or cancel (403): API token "viewer" is read-only: submitPullRequest changes the queue and needs a token with full access.');
  eq("400 keeps the API's line", MQ.describeHTTPError(400, "priority \"x\" is not urgent", "x"),
    "The merge queue answered 400: priority \"x\" is not urgent.");

  // formatETA (local time)
  const now = new Date(2026, 6, 23, 14, 0, 0);
  eq("eta in minutes", MQ.formatETA(new Date(2026, 6, 23, 14, 12, 20).toISOString(), now), "14:12 (in 12 min)");
  eq("eta in hours", MQ.formatETA(new Date(2026, 6, 23, 16, 5, 0).toISOString(), now), "16:05 (in 2 h 05 min)");
  eq("eta passed", MQ.formatETA(new Date(2026, 6, 23, 13, 59, 0).toISOString(), now), "13:59 (any moment now)");
  eq("eta missing", MQ.formatETA(undefined, now), "");
  eq("eta unreadable", MQ.formatETA("soon", now), "");

  // describeEntry
  eq("never submitted", MQ.describeEntry(null, 3, now), { active: false, headline: "Not in the merge queue.", lines: [] });
  eq("testing with position and ETA", MQ.describeEntry({
    state: "testing", isCurrentlySubmittedToQueue: true, queuePosition: 2, priorityName: "high", noBatch: true,
    estimatedMergeAt: new Date(2026, 6, 23, 14, 30, 0).toISOString(), stateReasonDetail: "testing on main with #11 ahead",
  }, 3, now), {
    active: true, headline: "State: testing, position 2 of 3.",
    lines: ["Expected merge: 14:30 (in 30 min).", "Priority: high, tested alone.", "testing on main with #11 ahead"],
  });
  eq("upper-case state, no position", MQ.describeEntry({ state: "NOT_READY", isCurrentlySubmittedToQueue: true }, 0, now).headline,
    "State: waiting to be ready.");
  eq("ended entry may be submitted again", MQ.describeEntry({
    state: "failed", stateReason: "tests_failed", stateReasonDetail: "ci/test failed", isCurrentlySubmittedToQueue: false,
  }, 1, now), { active: false, headline: "Not in the merge queue.", lines: ["Last time: failed (tests_failed).", "ci/test failed"] });

  window.mqTestReport = { passed, failures };
  const report = document.getElementById("report");
  report.textContent = failures.length ? `FAIL (${passed} passed)\n` + failures.join("\n") : `ok: ${passed} passed`;
  report.dataset.done = failures.length ? "fail" : "ok";
})();
