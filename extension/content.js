// content.js: the panel on a pull request page. It reads the PR from the
// URL and its base branch from the page (lib/mq.js), asks the background
// script for the PR's queue state, and offers Submit (priority, no-batch)
// or Cancel. It never holds the API token.
//
// The root element's data-mq-extension attribute says what the panel shows
// (loading, unconfigured, no-base, no-queue, disabled, not-submitted,
// submitted, error), for people inspecting the page and for tests.
"use strict";

(() => {
  const ext = globalThis.browser ?? globalThis.chrome;
  const REFRESH_MS = 15000; // how often a visible panel re-reads the state
  let panel = null;
  let timer = null;
  let busy = false;

  function mark(what) {
    document.documentElement.dataset.mqExtension = what;
  }

  function el(tag, attrs, ...children) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") n.className = v;
      else if (k.startsWith("on")) n.addEventListener(k.slice(2), v);
      else n.setAttribute(k, v);
    }
    for (const c of children) n.append(c);
    return n;
  }

  function currentPR() {
    const p = MQ.parsePullURL(location.href);
    if (!p) return null;
    return { ...p, base: MQ.readBaseBranch(document) };
  }

  async function send(msg) {
    try {
      const answer = await ext.runtime.sendMessage(msg);
      return answer || { error: "The extension's background script did not answer." };
    } catch (e) {
      return { error: `The extension's background script failed: ${e.message}` };
    }
  }

  function remove() {
    if (panel) panel.remove();
    panel = null;
  }

  /** show replaces the panel's body with children. */
  function show(what, title, ...children) {
    mark(what);
    if (!panel) {
      panel = el("section", { id: "mq-ext-panel", class: "mq-ext", "aria-live": "polite" });
      document.body.append(panel);
    }
    panel.replaceChildren(el("h2", { class: "mq-ext-title" }, title), ...children);
  }

  function render(pr, answer) {
    const title = pr.base ? `Merge queue · ${pr.base}` : "Merge queue";
    if (answer.error) {
      show("error", title, el("p", { class: "mq-ext-error", role: "alert" }, answer.error), refreshButton());
      return;
    }
    if (answer.configured === false) {
      show(
        "unconfigured",
        title,
        el("p", {}, "Set the merge queue's URL and an API token in the extension's options."),
        el("button", { type: "button", onclick: () => send({ op: "openOptions" }) }, "Open options")
      );
      return;
    }
    if (!answer.queue) {
      show("no-queue", title, el("p", { class: "mq-ext-quiet" }, `No merge queue for ${pr.base}.`));
      return;
    }
    if (!answer.queue.extensionEnabled) {
      mark("disabled"); // the queue turned the extension off: show nothing
      remove();
      return;
    }
    const d = MQ.describeEntry(answer.entry, answer.queue.size, new Date());
    const body = [el("p", { class: "mq-ext-state" }, d.headline)];
    for (const line of d.lines) body.push(el("p", { class: "mq-ext-detail" }, line));
    if (answer.queue.state && answer.queue.state !== "running") {
      body.push(el("p", { class: "mq-ext-quiet" }, `The queue is ${answer.queue.state}.`));
    }
    if (d.active) {
      body.push(el("div", { class: "mq-ext-actions" }, actionButton("mq-ext-cancel", "Cancel", () => ({ op: "cancel", pr }))));
      show("submitted", title, ...body);
      return;
    }
    const priority = el("select", { id: "mq-ext-priority", "aria-label": "Priority" },
      el("option", { value: "" }, "default priority"),
      ...MQ.PRIORITIES.map((p) => el("option", { value: p }, p)));
    const noBatch = el("input", { type: "checkbox", id: "mq-ext-nobatch" });
    body.push(
      el("div", { class: "mq-ext-actions" },
        priority,
        el("label", { for: "mq-ext-nobatch" }, noBatch, " test alone"),
        actionButton("mq-ext-submit", "Submit", () => ({ op: "submit", pr, priority: priority.value, noBatch: noBatch.checked })))
    );
    show("not-submitted", title, ...body);
  }

  function refreshButton() {
    return el("button", { type: "button", onclick: () => refresh() }, "Retry");
  }

  function actionButton(id, label, message) {
    return el("button", {
      type: "button",
      id,
      onclick: async (ev) => {
        if (busy) return;
        busy = true;
        ev.target.disabled = true;
        try {
          const msg = message();
          render(msg.pr, await send(msg));
        } finally {
          busy = false;
        }
      },
    }, label);
  }

  async function refresh() {
    clearTimeout(timer);
    const pr = currentPR();
    if (!pr) {
      remove();
      mark("none");
      return;
    }
    if (!pr.base) {
      show("no-base", "Merge queue", el("p", { class: "mq-ext-error" }, "Could not find this pull request's base branch on the page."));
      return;
    }
    if (!panel) mark("loading");
    if (!busy) render(pr, await send({ op: "status", pr }));
    if (document.visibilityState === "visible") timer = setTimeout(refresh, REFRESH_MS);
  }

  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") refresh();
  });
  // GitHub navigates between pages without reloading them (Turbo).
  document.addEventListener("turbo:load", () => refresh());
  refresh();
})();
