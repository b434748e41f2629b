// A run report opened from disk (rag_debugger/exports/run_file.py). Either every position's sections were drawn (and
// escaped) by the app when the file was written and this script only puts them in place, or (a graph of
// your own, rag_debugger/exports/run_file_data.py) the plain parts of each step travel as data and are drawn here with the
// app's markup and words, the rest drawn by the app. Clicking a timeline row or pressing the left / right
// arrow keys travels; the language buttons switch words.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("rdr-data").textContent);
  var root = document.querySelector(".rdi-root");
  var latest = data.positions - 1;
  var lang = data.lang in data.langs ? data.lang : Object.keys(data.langs)[0];
  var pos = Math.min(Math.max(data.start, 0), latest);
  var shown = {};
  var timelines = {};

  function esc(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
  }
  function fmt(template, args) {  // Python's str.format for {name} fields
    return template.replace(/\{\{|\}\}|\{(\w+)\}/g, function (m, name) {
      return m === "{{" ? "{" : m === "}}" ? "}" : args[name];
    });
  }
  function code(text) { return "<code>" + esc(text) + "</code>"; }
  function unesc(text) {  // Python's html.unescape for what Graphviz writes in a <title>
    return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, function (m, e) {
      if (e[0] === "#") return String.fromCodePoint(e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
      return {amp: "&", lt: "<", gt: ">", quot: '"', apos: "'"}[e];
    });
  }
  // ---- the graph's picture: views/svg.py mark_svg and views/html_view.py graph_html, here ----
  function markSvg(svg, m, names) {
    var current = {}, done = {}, send = m.s || {}, out = [], at = 0, match;
    m.c.forEach(function (i) { current[names[i]] = true; });
    m.d.forEach(function (i) { done[names[i]] = true; });
    var group = /<g id="([^"]*)" class="(node|edge)">(\s*<title>)([\s\S]*?)(<\/title>)/g;
    while ((match = group.exec(svg)) !== null) {
      var name = unesc(match[4]);
      if (match[2] === "node") {
        var mark = current[name] ? "rdi-current" : done[name] ? "rdi-done" : "";
        if (mark) {
          out.push(svg.slice(at, match.index), '<g id="' + match[1] + '" class="node ' + mark + '">', match[3], match[4], match[5]);
          at = group.lastIndex;
        }
      } else if (Object.prototype.hasOwnProperty.call(send, name)) {
        var end = svg.indexOf("</g>", group.lastIndex);
        var text = /(<text\b[^>]*>)([^<]*)(<\/text>)/g;
        text.lastIndex = group.lastIndex;
        var label = text.exec(svg);
        if (label && (end < 0 || label.index + label[0].length <= end)) {
          out.push(svg.slice(at, label.index), label[1],
            String(send[name]).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"), label[3]);
          at = label.index + label[0].length;
        }
      }
    }
    out.push(svg.slice(at));
    var marked = out.join(""), head = marked.indexOf(">") + 1;
    return head > 0 ? marked.slice(0, head) + data.svgs.style + marked.slice(head) : marked;
  }
  function base64(text) {
    var bytes = new TextEncoder().encode(text), binary = "";
    for (var i = 0; i < bytes.length; i += 8192) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
    return btoa(binary);
  }
  function pictureHtml(layout, m, L) {
    return '<div class="rdi-graph"><img alt="' + esc(L.words.alt) + '" src="data:image/svg+xml;base64,'
      + base64(markSvg(data.parts[layout], m, data.svgs.names)) + '"></div>' + data.parts[L.legend];
  }
  function absent(v) { return v !== null && typeof v === "object"; }

  // ---- data mode: the markup of rag_debugger/views/html_view.py (step_html, diff_html, timeline_html) ----
  function leaf(v, W) {
    return absent(v) ? '<span class="rdi-absent">' + esc(W.absent) + "</span>" : code(JSON.stringify(v));
  }
  function row(r, li, W) {
    if (!Array.isArray(r) || typeof r[0] !== "string") return data.parts[r[li]];
    var path = r[0], kind = r[1], label = esc(W.kinds[kind] || kind);
    var tr = '<tr class="rdi-kind-' + esc(kind) + '" data-field="' + esc(path) + '"><td>' + esc(path) + "</td>";
    if (kind === "unchanged") {
      return tr + [r[2], r[3]].map(function (v) {
        return "<td>" + esc(absent(v) ? W.absent : JSON.stringify(v)) + "</td>";
      }).join("") + "<td>" + label + "</td></tr>";
    }
    return tr + "<td>" + leaf(r[2], W) + "</td><td>" + leaf(r[3], W) + "</td><td>" + label + "</td></tr>";
  }
  function stepHtml(s, li, W) {
    var out = '<h4 class="rdi-step-title">' + fmt(W.title, {n: String(s.n), nodes: code(s.nodes), ms: s.ms}) + "</h4>";
    if (s.err) out += '<div class="rdi-error">' + esc(fmt(W.failed, {error: s.err})) + "</div>";
    (s.int || []).forEach(function (p) {
      out += '<div class="rdi-note">' + fmt(W.paused, {node: code(p[0]), value: esc(p[1])}) + "</div>";
    });
    if (s.lanes) out += data.parts[s.lanes[li]];
    out += '<label class="rdi-switch"><input type="checkbox" class="rdi-unchanged-toggle"> ' + esc(W.switch) + "</label>";
    if (s.none) out += '<p class="rdi-caption">' + esc(W.none) + "</p>";
    out += '<div class="rdi-scroll"><table id="diff" class="rdi-diff rdi-typed"><thead><tr>'
      + W.cols.map(function (c) { return "<th>" + esc(c) + "</th>"; }).join("") + "</tr></thead><tbody>"
      + s.rows.map(function (r) { return row(r, li, W); }).join("") + "</tbody></table></div>";
    out += '<p class="rdi-caption">' + esc(W.caption) + "</p>";
    if (s.prog) out += data.parts[s.prog[li]];
    return out;
  }
  function timelineHtml(li, W) {
    var T = data.timeline;
    if (!T.rows.length) return "";
    var tip = esc(W.tip);
    var body = T.rows.map(function (cells, i) {
      var notes = T.notes[i] ? " \u2014 " + data.parts[T.notes[i][li]] : "";
      return '<tr data-travel="' + i + '" tabindex="0" role="button" title="' + tip + esc(notes) + '">'
        + cells.map(function (c) { return "<td>" + esc(c) + "</td>"; }).join("") + "</tr>";
    }).join("");
    return "<h4>" + esc(W.timeline) + '</h4><div class="rdi-scroll"><table id="timeline" class="rdi-timeline"><thead><tr>'
      + T.cols.map(function (c) { return "<th>" + esc(W.tcols[c]) + "</th>"; }).join("")
      + "</tr></thead><tbody>" + body + "</tbody></table></div>";
  }
  // (key, HTML) of a section at the current position and language; the key says when it is unchanged
  function section(name, i) {
    var L = data.langs[lang];
    if (data.mode !== "data") return ["r" + L.pos[pos][i], function () { return data.parts[L.pos[pos][i]]; }];
    var li = data.order.indexOf(lang), W = L.words;
    if (name === "timeline") {
      return ["t", function () { return timelines[lang] || (timelines[lang] = timelineHtml(li, W)); }];
    }
    if (pos === latest || name === "docs" || name === "progress" || name === "evidence") {
      var id = name === "evidence" && pos !== latest ? null : L.end[name];
      return ["r" + id, function () { return id === null || id === undefined ? "" : data.parts[id]; }];
    }
    var s = data.steps[pos];
    if (name === "graph" && data.svgs) {
      var S = data.svgs, layout = S.layouts[S.layout[pos]][li], mk = S.mark[pos];
      return ["g" + layout + ":" + mk, function () { return pictureHtml(layout, S.marks[mk], L); }];
    }
    if (name === "graph") {
      var pic = data.pics[data.pic[pos]][li];
      return ["r" + pic, function () { return data.parts[pic]; }];
    }
    if (name === "head") {
      return ["h" + pos, function () {
        var banner = data.banners[pos];
        return data.parts[L.line] + '<div class="rdi-travel">' + esc(fmt(W.viewing, {n: String(pos + 1), nodes: s.nodes}))
          + '<button class="rdi-latest" data-travel="-1">' + esc(W.back) + "</button></div>"
          + (banner ? data.parts[banner[li]] : "");
      }];
    }
    return ["s" + pos, function () { return stepHtml(s, li, W); }];
  }

  function show() {
    data.sections.forEach(function (name, i) {
      var el = root.querySelector('[data-sec="' + name + '"]');
      var drawn = section(name, i);
      var key = lang + ":" + drawn[0];
      if (!el || shown[name] === key) return;
      var open = {};
      el.querySelectorAll("details[data-id]").forEach(function (d) { open[d.dataset.id] = d.open; });
      el.innerHTML = drawn[1]();
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
