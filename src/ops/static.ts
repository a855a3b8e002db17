/**
 * The console's only script (served from /ops/static/ops.js; the CSP allows scripts from 'self'
 * only): refreshes table#jobs from /ops/api/jobs every data-refresh seconds, without a reload.
 */
export const SCRIPT = `"use strict";
(function () {
  var table = document.getElementById("jobs");
  if (!table) return;
  var seconds = Number(table.getAttribute("data-refresh")) || 5;
  var last = document.getElementById("last-refresh");
  function cell(row, cls, text) {
    var td = document.createElement("td");
    if (cls) td.className = cls;
    td.textContent = text == null ? "" : String(text);
    row.appendChild(td);
    return td;
  }
  function render(jobs) {
    var body = table.tBodies[0];
    var rows = document.createDocumentFragment();
    jobs.forEach(function (job) {
      var tr = document.createElement("tr");
      tr.setAttribute("data-job-id", job.id);
      tr.setAttribute("data-source", job.source);
      var idCell = cell(tr, "id", "");
      var a = document.createElement("a");
      a.href = "/ops/jobs/" + encodeURIComponent(job.source) + "/" + encodeURIComponent(job.id);
      a.textContent = job.id;
      idCell.appendChild(a);
      cell(tr, "source", job.source);
      cell(tr, "task", job.task);
      cell(tr, "status", job.status);
      cell(tr, "shop", job.shop_id ? (job.shop_name ? job.shop_name + " " : "") + job.shop_id : "-");
      cell(tr, "attempts", job.attempts + "/" + job.max_attempts);
      cell(tr, "created", job.created_at);
      cell(tr, "error", job.last_error || "");
      rows.appendChild(tr);
    });
    body.replaceChildren(rows);
  }
  function refresh() {
    fetch("/ops/api/jobs" + window.location.search, { credentials: "same-origin", headers: { accept: "application/json" } })
      .then(function (response) {
        if (response.status === 401) { window.location.href = "/ops/login"; return null; }
        return response.ok ? response.json() : null;
      })
      .then(function (data) {
        if (!data) return;
        render(data.jobs);
        if (last) last.textContent = new Date().toISOString();
      })
      .catch(function () { /* the next tick tries again */ })
      .finally(function () { setTimeout(refresh, seconds * 1000); });
  }
  setTimeout(refresh, seconds * 1000);
})();
`;
