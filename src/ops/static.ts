/**
 * The console's only script (served from /ops/static/ops.js; the CSP allows scripts from 'self'
 * only). Every element with `data-live` (a fragment's URL) is re-rendered from it every
 * `data-refresh` seconds without a reload: the server renders the fragment exactly as the page,
 * so the console has one renderer. A lost session goes back to the login page.
 */
export const SCRIPT = `"use strict";
(function () {
  var last = document.getElementById("last-refresh");
  function live(element) {
    var url = element.getAttribute("data-live");
    var seconds = Number(element.getAttribute("data-refresh")) || 5;
    // Compared with the last HTML fetched, not innerHTML: the browser re-serialises what it parsed.
    var shown = null;
    function refresh() {
      fetch(url, { credentials: "same-origin", headers: { accept: "text/html" } })
        .then(function (response) {
          if (response.status === 401) { window.location.href = "/ops/login"; return null; }
          return response.ok || response.status === 404 ? response.text() : null;
        })
        .then(function (html) {
          if (html === null) return;
          if (html !== shown) {
            element.innerHTML = html;
            shown = html;
          }
          if (last) last.textContent = new Date().toISOString();
        })
        .catch(function () { /* the next tick tries again */ })
        .finally(function () { setTimeout(refresh, seconds * 1000); });
    }
    setTimeout(refresh, seconds * 1000);
  }
  Array.prototype.forEach.call(document.querySelectorAll("[data-live]"), live);
})();
`;
