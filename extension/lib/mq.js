// mq.js: the extension's pure logic, with no browser API and no I/O, so it
// can be tested on its own (test/mq_test.html). Loaded before content.js
// and background.js; defines the global MQ (and module.exports under a
// CommonJS loader).
//
// Guarantees: parsePullURL and readBaseBranch return null rather than
// guessing; normalizeApiURL throws an Error whose message a user can act on;
// nothing here sends or logs the API token.
(function (global) {
  "use strict";

  // The PR page's path: /<owner>/<repo>/pull/<number>[/<tab>].
  const PULL_PATH = /^\/([A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:_[A-Za-z0-9]+)?)\/([A-Za-z0-9._-]{1,100})\/pull\/([1-9][0-9]{0,9})(?:\/.*)?$/;

  /**
   * parsePullURL reads host, owner, repo and number from a PR page URL.
   * host is the page's host name, lower case, without a port: what the
   * merge queue calls repo.host (github.com, or a GitHub Enterprise host).
   * Returns null for any other page.
   */
  function parsePullURL(href) {
    let u;
    try {
      u = new URL(href);
    } catch (e) {
      return null;
    }
    if (u.protocol !== "https:" && u.protocol !== "http:") return null;
    const m = PULL_PATH.exec(u.pathname);
    if (!m || m[2] === "." || m[2] === "..") return null;
    return { host: u.hostname.toLowerCase(), owner: m[1], repo: m[2], number: Number(m[3]) };
  }

  /**
   * BASE_BRANCH_SELECTORS are where a PR page names its base branch, tried
   * in order. GitHub's PR header reads "alice wants to merge 1 commit into
   * <base> from <head>", the base being a `.commit-ref.base-ref` element
   * whose text (and title, "owner/repo:branch") holds the branch; the newer
   * React header keeps the `base-ref` class on the same element. Keep this
   * list small: each entry is a guess about markup we do not control.
   */
  const BASE_BRANCH_SELECTORS = [".commit-ref.base-ref", ".base-ref"];

  /**
   * branchFromRef turns the text of a base-ref element ("main",
   * "acme:main", "acme/widgets:release/1.2") into the branch name: what
   * follows the last colon (git forbids colons in branch names). Returns
   * null for an empty result.
   */
  function branchFromRef(text) {
    if (typeof text !== "string") return null;
    const t = text.trim();
    const b = t.slice(t.lastIndexOf(":") + 1).trim();
    return b === "" || /\s/.test(b) ? null : b;
  }

  /** readBaseBranch finds the PR's base branch in doc, or null. */
  function readBaseBranch(doc) {
    for (const sel of BASE_BRANCH_SELECTORS) {
      const el = doc.querySelector(sel);
      if (!el) continue;
      const b = branchFromRef(el.getAttribute("title") || "") || branchFromRef(el.textContent || "");
      if (b) return b;
    }
    return null;
  }

  /**
   * isLoopbackHost reports whether hostname (a URL's, as new URL() puts it:
   * lower case, IPv6 in brackets) names this machine: localhost,
   * 127.0.0.0/8 or [::1].
   */
  function isLoopbackHost(hostname) {
    const h = String(hostname || "").toLowerCase();
    return h === "localhost" || h === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
  }

  /**
   * normalizeApiURL turns what a user typed as the merge queue's address
   * ("https://mq.example.com", "https://mq.example.com/v1/") into the base
   * URL operations are appended to (no trailing slash, no /v1). Throws an
   * Error naming the problem for anything else, including plain http://
   * to any host but this machine (127.0.0.1, [::1], localhost): the API
   * token would travel in clear.
   */
  function normalizeApiURL(input) {
    const raw = String(input || "").trim();
    if (raw === "") throw new Error("The merge queue URL is empty.");
    let u;
    try {
      u = new URL(raw);
    } catch (e) {
      throw new Error(`"${raw}" is not a URL; write it like https://mq.example.com`);
    }
    if (u.protocol !== "https:" && u.protocol !== "http:") {
      throw new Error(`The merge queue URL must start with https://, got ${u.protocol}`);
    }
    if (u.protocol === "http:" && !isLoopbackHost(u.hostname)) {
      throw new Error(`The merge queue URL must start with https://: over http:// the API token would travel ` +
        `in clear to ${u.hostname}. (http:// is accepted only for this machine: 127.0.0.1, [::1] or localhost.)`);
    }
    if (u.search || u.hash || u.username || u.password) {
      throw new Error("The merge queue URL must not carry a query, a fragment or credentials.");
    }
    let path = u.pathname.replace(/\/+$/, "");
    if (path.endsWith("/v1")) path = path.slice(0, -3);
    return u.origin + path;
  }

  /** originPattern is the host permission pattern covering url's origin. */
  function originPattern(url) {
    const u = new URL(url);
    return `${u.protocol}//${u.hostname}/*`;
  }

  /**
   * requestBody is the JSON body of a PR operation (getSubmittedPullRequest,
   * submitPullRequest, cancelPullRequest) for pr = {host, owner, repo,
   * number, base}, merged with extra fields.
   */
  function requestBody(pr, extra) {
    return Object.assign(
      { repo: { host: pr.host, owner: pr.owner, name: pr.repo }, targetBranch: pr.base },
      pr.number === undefined ? {} : { pr: { number: pr.number } },
      extra || {}
    );
  }

  /** PRIORITIES are the names submitPullRequest accepts, first to last. */
  const PRIORITIES = ["urgent", "high", "medium", "low"];

  /**
   * submitBody is submitPullRequest's body: priority is one of PRIORITIES
   * or "" for the queue's default (sent as null); noBatch is a boolean.
   * Throws on an unknown priority.
   */
  function submitBody(pr, priority, noBatch) {
    if (priority !== "" && !PRIORITIES.includes(priority)) {
      throw new Error(`Unknown priority "${priority}".`);
    }
    return requestBody(pr, { priority: priority === "" ? null : priority, noBatch: !!noBatch });
  }

  /**
   * describeHTTPError explains a failed API call to the user: status is the
   * HTTP status (0 when the server could not be reached), text the body
   * (the API answers one line of plain text), apiURL the configured URL.
   */
  function describeHTTPError(status, text, apiURL) {
    const detail = String(text || "").trim().split("\n")[0].slice(0, 300);
    switch (status) {
      case 0:
        return `Cannot reach the merge queue at ${apiURL}${detail ? ": " + detail : ""}.`;
      case 401:
        return "The merge queue refused the API token (401): check it in the extension's options.";
      case 403:
        if (/\bis read-only\b/.test(detail)) {
          return `This API token is read-only: it shows the queue but cannot submit or cancel (403): ${detail}.`;
        }
        return `This API token may not access this repository (403)${detail ? ": " + detail : ""}.`;
      case 500:
        return "The merge queue failed (500 internal error); try again later.";
      default:
        return `The merge queue answered ${status}${detail ? ": " + detail : ""}.`;
    }
  }

  /**
   * formatETA renders estimatedMergeAt (RFC 3339) relative to now (a Date):
   * "14:10 (in 12 min)". Returns "" for a missing or unreadable time.
   */
  function formatETA(iso, now) {
    if (!iso) return "";
    const at = new Date(iso);
    if (isNaN(at.getTime())) return "";
    const hh = String(at.getHours()).padStart(2, "0");
    const mm = String(at.getMinutes()).padStart(2, "0");
    const mins = Math.round((at.getTime() - now.getTime()) / 60000);
    let rel;
    if (mins <= 0) rel = "any moment now";
    else if (mins < 60) rel = `in ${mins} min`;
    else rel = `in ${Math.floor(mins / 60)} h ${String(mins % 60).padStart(2, "0")} min`;
    return `${hh}:${mm} (${rel})`;
  }

  /** STATE_NAMES are user-facing names of the entry states. */
  const STATE_NAMES = {
    not_ready: "waiting to be ready",
    pending: "queued",
    testing: "testing",
    tests_passed: "tests passed",
    pending_failure: "failed, waiting for the PRs ahead",
    merged: "merged",
    failed: "failed",
    cancelled: "cancelled",
  };

  /**
   * describeEntry summarises getSubmittedPullRequest's answer (null when the
   * PR was never submitted) with queueSize, the queue's number of enqueued
   * PRs: {active, headline, lines}. active is true while the PR is in the
   * queue (Cancel applies), false when it may be submitted.
   */
  function describeEntry(entry, queueSize, now) {
    if (!entry) return { active: false, headline: "Not in the merge queue.", lines: [] };
    const state = String(entry.state || "").toLowerCase();
    const name = STATE_NAMES[state] || state;
    const active = entry.isCurrentlySubmittedToQueue === true;
    const lines = [];
    if (!active) {
      lines.push(`Last time: ${name}${entry.stateReason ? " (" + entry.stateReason + ")" : ""}.`);
      if (entry.stateReasonDetail) lines.push(entry.stateReasonDetail);
      return { active: false, headline: "Not in the merge queue.", lines };
    }
    let headline = `State: ${name}`;
    if (entry.queuePosition) {
      headline += `, position ${entry.queuePosition}` + (queueSize ? ` of ${queueSize}` : "");
    }
    headline += ".";
    const eta = formatETA(entry.estimatedMergeAt, now);
    if (eta) lines.push(`Expected merge: ${eta}.`);
    if (entry.priorityName) lines.push(`Priority: ${entry.priorityName}${entry.noBatch ? ", tested alone" : ""}.`);
    if (entry.stateReasonDetail) lines.push(entry.stateReasonDetail);
    return { active: true, headline, lines };
  }

  const MQ = {
    parsePullURL,
    BASE_BRANCH_SELECTORS,
    branchFromRef,
    readBaseBranch,
    isLoopbackHost,
    normalizeApiURL,
    originPattern,
    requestBody,
    PRIORITIES,
    submitBody,
    describeHTTPError,
    formatETA,
    describeEntry,
  };
  global.MQ = MQ;
  if (typeof module === "object" && module.exports) module.exports = MQ;
})(globalThis);
