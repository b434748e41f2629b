// A run report opened from disk: every position's sections were rendered (and escaped) by the app
// when the file was written (ui/run_report.py); this script only puts them in place. Clicking a
// timeline row or pressing the left / right arrow keys travels; the language buttons switch words.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("rdr-data").textContent);
  var root = document.querySelector(".rdi-root");
  var latest = data.positions - 1;
  var lang = data.lang in data.langs ? data.lang : Object.keys(data.langs)[0];
  var pos = Math.min(Math.max(data.start, 0), latest);
  var shown = {};

  function show() {
    var L = data.langs[lang];
    var ids = L.pos[pos];
    data.sections.forEach(function (name, i) {
      var el = root.querySelector('[data-sec="' + name + '"]');
      var key = lang + ":" + ids[i];
      if (!el || shown[name] === key) return;
      var open = {};
      el.querySelectorAll("details[data-id]").forEach(function (d) { open[d.dataset.id] = d.open; });
      el.innerHTML = data.parts[ids[i]];
      el.querySelectorAll("details[data-id]").forEach(function (d) {
        if (d.dataset.id in open) d.open = open[d.dataset.id];
      });
      shown[name] = key;
    });
    root.querySelectorAll(".rdi-unchanged-toggle").forEach(function (t) {
      t.checked = root.classList.contains("rdi-show-unchanged");
    });
    root.querySelectorAll("[data-travel]").forEach(function (row) {
      if (row.tagName === "TR") row.classList.toggle("rdi-selected", Number(row.dataset.travel) === pos);
    });
    document.querySelectorAll("[data-rdr-lang]").forEach(function (el) {
      el.hidden = el.dataset.rdrLang !== lang;
    });
    document.querySelectorAll("button[data-lang]").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.dataset.lang === lang));
    });
    document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
    document.body.dataset.position = String(pos);
  }

  function travel(to) {
    pos = to < 0 ? latest : Math.min(Math.max(to, 0), latest);
    show();
  }

  document.addEventListener("click", function (event) {
    var langButton = event.target.closest("button[data-lang]");
    if (langButton) { lang = langButton.dataset.lang; shown = {}; show(); return; }
    var row = event.target.closest("[data-travel]");
    if (row) { travel(Number(row.dataset.travel)); }
  });
  document.addEventListener("change", function (event) {
    if (!event.target.classList.contains("rdi-unchanged-toggle")) return;
    root.classList.toggle("rdi-show-unchanged", event.target.checked);
    root.querySelectorAll(".rdi-unchanged-toggle").forEach(function (t) { t.checked = event.target.checked; });
  });
  document.addEventListener("keydown", function (event) {
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "ArrowLeft") { travel(pos - 1); event.preventDefault(); }
    if (event.key === "ArrowRight") { travel(pos + 1); event.preventDefault(); }
    if ((event.key === "Enter" || event.key === " ") && event.target.dataset && "travel" in event.target.dataset) {
      travel(Number(event.target.dataset.travel)); event.preventDefault();
    }
  });
  show();
})();
