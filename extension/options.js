// options.js: stores the merge queue's URL and API token in
// chrome.storage.local, asks for the host permission the background script
// needs to call that URL, and registers the PR-page script on GitHub
// Enterprise hosts the user lists (with their host permission).
//
// Guarantees: nothing is stored unless every field is valid and every
// permission asked for was granted; the status line says what happened.
"use strict";

(() => {
  const ext = globalThis.browser ?? globalThis.chrome;
  const $ = (id) => document.getElementById(id);
  const GHE_PREFIX = "ghe:"; // ids of the content scripts registered here

  function say(text, isError) {
    $("status").textContent = text;
    $("status").className = isError ? "error" : "";
  }

  /** parseHosts reads the GHE host list: host names, lower case. */
  function parseHosts(text) {
    const hosts = [];
    for (const part of text.split(",")) {
      const h = part.trim().toLowerCase();
      if (h === "") continue;
      if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(h)) {
        throw new Error(`"${h}" is not a host name (write ghe.example.com, no https:// and no path).`);
      }
      if (h !== "github.com" && !hosts.includes(h)) hosts.push(h);
    }
    return hosts;
  }

  /** syncGHEScripts makes the registered PR-page scripts match hosts. */
  async function syncGHEScripts(hosts) {
    const existing = await ext.scripting.getRegisteredContentScripts();
    const ids = existing.map((s) => s.id).filter((id) => id.startsWith(GHE_PREFIX));
    if (ids.length) await ext.scripting.unregisterContentScripts({ ids });
    if (!hosts.length) return;
    await ext.scripting.registerContentScripts(hosts.map((h) => ({
      id: GHE_PREFIX + h,
      matches: [`https://${h}/*/*/pull/*`],
      js: ["lib/mq.js", "content.js"],
      css: ["content.css"],
      runAt: "document_idle",
    })));
  }

  async function save(ev) {
    ev.preventDefault();
    let apiURL, hosts;
    const token = $("token").value.trim();
    try {
      apiURL = MQ.normalizeApiURL($("apiURL").value);
      hosts = parseHosts($("gheHosts").value);
      if (token === "") throw new Error("The API token is empty.");
    } catch (e) {
      say(e.message, true);
      return;
    }
    const origins = [MQ.originPattern(apiURL), ...hosts.map((h) => `https://${h}/*`)];
    let granted;
    try {
      // Asked first, while the click still counts as a user gesture;
      // answers at once when the permissions are already granted.
      granted = await ext.permissions.request({ origins });
    } catch (e) {
      say(`Could not ask for access to ${origins.join(", ")}: ${e.message}`, true);
      return;
    }
    if (!granted) {
      say(`Not saved: the extension needs access to ${origins.join(", ")} to work.`, true);
      return;
    }
    try {
      await syncGHEScripts(hosts);
      await ext.storage.local.set({ apiURL, token, gheHosts: hosts });
    } catch (e) {
      say(`Not saved: ${e.message}`, true);
      return;
    }
    $("apiURL").value = apiURL;
    say(`Saved. Pull request pages now show their queue from ${apiURL}.`, false);
  }

  async function load() {
    const s = await ext.storage.local.get(["apiURL", "token", "gheHosts"]);
    $("apiURL").value = s.apiURL || "";
    $("token").value = s.token || "";
    $("gheHosts").value = (s.gheHosts || []).join(", ");
  }

  $("options").addEventListener("submit", save);
  // data-options-loaded tells a test (or a user script) that the saved
  // options are in the fields: typing before that could be overwritten.
  load()
    .catch((e) => say(`Could not read the saved options: ${e.message}`, true))
    .finally(() => { document.documentElement.dataset.optionsLoaded = "true"; });
})();
