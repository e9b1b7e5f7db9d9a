// kerneltrials leaderboard: sortable columns and filters. The pages work without it
// (every run's whole-task-set row is visible, best rank first); nothing is fetched.
"use strict";

function cellValue(row, key) {
  const cell = row.querySelector('td[data-key="' + key + '"]');
  return cell ? cell.getAttribute("data-sort") || "" : "";
}

function compareRows(key, numeric, direction) {
  return function (a, b) {
    const left = cellValue(a, key), right = cellValue(b, key);
    if (left === "" || right === "") return left === right ? 0 : left === "" ? 1 : -1; // empty last
    const order = numeric ? parseFloat(left) - parseFloat(right) : left.localeCompare(right);
    return direction === "ascending" ? order : -order;
  };
}

function sortTable(table, header) {
  const key = header.getAttribute("data-key");
  const numeric = header.getAttribute("data-type") === "number";
  // first click: numbers largest first (rank smallest first), text A-Z
  const first = numeric && key !== "rank" ? "descending" : "ascending";
  const current = header.getAttribute("aria-sort");
  const direction = current ? (current === "ascending" ? "descending" : "ascending") : first;
  table.querySelectorAll("th[aria-sort]").forEach(function (th) { th.removeAttribute("aria-sort"); });
  header.setAttribute("aria-sort", direction);
  const body = table.tBodies[0];
  const rows = Array.prototype.slice.call(body.rows);
  rows.sort(compareRows(key, numeric, direction));
  rows.forEach(function (row) { body.appendChild(row); });
}

function applyFilters(form) {
  const wanted = {};
  form.querySelectorAll("select[data-filter]").forEach(function (select) {
    wanted[select.getAttribute("data-filter")] = select.value;
  });
  const other = document.getElementById("toggle-other");
  const showOther = other !== null && other.checked; // runs outside the main comparable set
  const compile = document.getElementById("toggle-compile");
  const board = document.getElementById("board");
  if (board && compile) board.classList.toggle("show-compile", compile.checked);
  const versions = document.getElementById("toggle-versions");
  if (board && versions) board.classList.toggle("show-versions", versions.checked);
  const visibleRuns = new Set();
  let shown = 0;
  document.querySelectorAll("#board tbody tr").forEach(function (row) {
    const match = (showOther || row.getAttribute("data-main") !== "0") &&
      Object.keys(wanted).every(function (name) {
        return wanted[name] === "" || row.getAttribute("data-" + name) === wanted[name];
      });
    row.hidden = !match;
    if (match) { shown += 1; visibleRuns.add(row.getAttribute("data-run")); }
  });
  document.querySelectorAll("svg.plot g[data-run]").forEach(function (curve) {
    // SVG elements have no .hidden property: toggle the attribute the CSS hides
    if (visibleRuns.has(curve.getAttribute("data-run"))) curve.removeAttribute("hidden");
    else curve.setAttribute("hidden", "");
  });
  const count = document.getElementById("row-count");
  if (count) count.textContent = shown + " run(s) shown";
}

document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th[data-key]").forEach(function (header) {
      header.addEventListener("click", function () { sortTable(table, header); });
    });
  });
  const form = document.getElementById("filters");
  if (form) {
    form.addEventListener("change", function () { applyFilters(form); });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    applyFilters(form);
  }
});
