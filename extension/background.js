// background.js: the only part of the extension that talks to the merge
// queue. It runs as Chromium's service worker (importing lib/mq.js) or as
// Firefox's background script (lib/mq.js listed before it), so its fetches
// carry the host permission granted for the API URL and no CORS applies.
//
// Guarantees: the token leaves the extension only in the x-api-token header
// of requests to the configured API URL, and only over https:// or to this
// machine (MQ.normalizeApiURL); content scripts never see it; messages from
// anything but this extension's own scripts are ignored.
"use strict";

if (typeof MQ === "undefined" && typeof importScripts === "function") {
  importScripts("lib/mq.js");
}

const ext = globalThis.browser ?? globalThis.chrome;

/** settings reads the API URL and token the options page stored. */
async function settings() {
  const s = await ext.storage.local.get(["apiURL", "token"]);
  return { apiURL: s.apiURL || "", token: s.token || "" };
}

/** ApiError is a failed call, with the message the page shows. */
class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * call POSTs body to /v1/<op> and returns the decoded JSON answer, null for
 * a 404 when allow404 is set, or throws an ApiError.
 */
async function call(s, op, body, allow404) {
  let resp;
  try {
    resp = await fetch(`${s.apiURL}/v1/${op}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "x-api-token": s.token },
      body: JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
    });
  } catch (e) {
    throw new ApiError(0, MQ.describeHTTPError(0, e && e.message, s.apiURL));
  }
  const text = await resp.text();
  if (resp.status === 404 && allow404) return null;
  if (!resp.ok) throw new ApiError(resp.status, MQ.describeHTTPError(resp.status, text, s.apiURL));
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ApiError(resp.status, `The merge queue at ${s.apiURL} answered something that is not JSON.`);
  }
}

/**
 * status answers {configured, queue, entry}: queue is null when the base
 * branch has no queue; queue.extensionEnabled false means "show nothing";
 * entry is null when the PR was never submitted.
 */
async function status(s, pr) {
  const q = await call(s, "getQueue", MQ.requestBody({ ...pr, number: undefined }), true);
  if (!q) return { configured: true, queue: null, entry: null };
  const queue = {
    state: q.state,
    extensionEnabled: q.extensionEnabled !== false,
    size: Array.isArray(q.enqueuedPullRequests) ? q.enqueuedPullRequests.length : 0,
  };
  if (!queue.extensionEnabled) return { configured: true, queue, entry: null };
  const entry = await call(s, "getSubmittedPullRequest", MQ.requestBody(pr), true);
  return { configured: true, queue, entry };
}

/** handle answers one message from a content script. */
async function handle(msg) {
  if (msg && msg.op === "openOptions") {
    await ext.runtime.openOptionsPage();
    return {};
  }
  const s = await settings();
  if (!s.apiURL || !s.token) return { configured: false };
  try {
    // An address saved by an older version may be plain http:// to another
    // host: the token is not sent there.
    s.apiURL = MQ.normalizeApiURL(s.apiURL);
  } catch (e) {
    return { error: `${e.message} Change the merge queue URL in the extension's options.` };
  }
  const pr = msg && msg.pr;
  if (!pr || !pr.host || !pr.owner || !pr.repo || !pr.number || !pr.base) {
    return { error: "The page did not name a pull request and its base branch." };
  }
  switch (msg.op) {
    case "status":
      return status(s, pr);
    case "submit":
      await call(s, "submitPullRequest", MQ.submitBody(pr, msg.priority || "", msg.noBatch));
      return status(s, pr);
    case "cancel":
      await call(s, "cancelPullRequest", MQ.requestBody(pr));
      return status(s, pr);
    default:
      return { error: `Unknown request ${JSON.stringify(msg.op)}.` };
  }
}

ext.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  if (sender.id !== ext.runtime.id) return false;
  handle(msg).then(sendResponse, (e) => sendResponse({ error: e && e.message ? e.message : String(e) }));
  return true; // the answer is sent asynchronously
});
