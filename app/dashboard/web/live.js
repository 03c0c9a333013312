// Live updates without a full reload: every element with data-fragment is
// replaced by a fresh rendering of that URL every few seconds. The server
// answers 304 when nothing changed (ETag), so an idle dashboard costs little.
(function () {
  "use strict";
  var every = 3000;
  function refresh(el) {
    var etag = el.getAttribute("data-etag");
    var headers = { "Accept": "text/html" };
    if (etag) headers["If-None-Match"] = etag;
    fetch(el.getAttribute("data-fragment"), { headers: headers, credentials: "same-origin" })
      .then(function (res) {
        if (res.status === 401 || res.redirected) { window.location.reload(); return null; }
        if (res.status !== 200) return null;
        el.setAttribute("data-etag", res.headers.get("ETag") || "");
        return res.text();
      })
      .then(function (html) { if (html !== null && html !== undefined) el.innerHTML = html; })
      .catch(function () { /* offline: try again at the next tick */ })
      .finally(function () { setTimeout(function () { refresh(el); }, every); });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-fragment]").forEach(function (el) {
      setTimeout(function () { refresh(el); }, every);
    });
  });
})();
