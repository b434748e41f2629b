// The debugger's inspector: puts the HTML the server rendered for each section in place, only for
// the sections that changed, keeps open <details> open, turns the Run / Step / Continue / Restart
// buttons into a one-shot "action" trigger and clicks on timeline rows into a "travel" trigger.
// Everything it shows is escaped on the server (rag_debugger/views/html_view.py).

export default function ({ parentElement, data, setTriggerValue, setStateValue }) {
  const root = parentElement.querySelector(".rdi-root");
  // Sent one browser task after the click's other widget updates. Streamlit sends the updates of one task as
  // one batch that reruns one fragment; the click that presses Step here (in the debugger's fragment) also
  // blurs the question box or closes an open popover (outside it), and the two in one batch made Streamlit
  // warn "Multiple different fragmentIds detected in a single batch" and drop the fragment of one of them.
  root.__sendTrigger = setTriggerValue;
  root.__sendState = setStateValue;
  root.__setTrigger = (name, value) => afterPendingUpdates(() => root.__sendTrigger(name, value));
  root.__setState = (name, value) => afterPendingUpdates(() => root.__sendState(name, value));
  // The server sends a section's HTML only when this page has not got it (rag_debugger/views/section_delivery.py):
  // `kept` names the digest to keep showing; `hashes` is every section's digest.
  root.__shown = root.__shown || {};
  root.__texts = data.texts || root.__texts || {};
  const hashes = data.hashes || {}, kept = data.kept || {};
  let missing = false;
  for (const section of root.querySelectorAll("[data-sec]")) {
    const name = section.dataset.sec;
    const isKept = name in kept;
    const hash = isKept ? kept[name] : (hashes[name] || data[name] || "");
    if (root.__shown[name] === hash) continue;
    const graphs = root.__graphs || new Map();
    if (isKept && !(name === "graph" && graphs.has(hash))) {
      missing = true;  // mounted afresh: the server thought this page had it
      continue;
    }
    const open = new Map();
    for (const d of section.querySelectorAll("details[data-id]")) open.set(d.dataset.id, d.open);
    if (name === "graph") swapGraph(root, section, hash, data[name] || "");
    else section.innerHTML = data[name] || "";
    root.__shown[name] = hash;
    for (const d of section.querySelectorAll("details[data-id]")) {
      if (open.has(d.dataset.id)) d.open = open.get(d.dataset.id);
    }
    for (const t of section.querySelectorAll(".rdi-unchanged-toggle")) {
      t.checked = root.classList.contains("rdi-show-unchanged");
    }
  }
  if (missing) {  // once per update: the answer carries every section
    window.__rdiResends = (window.__rdiResends || 0) + 1;
    root.__setTrigger("resend", window.__rdiResends);
  }
  followQuestionBox(root);
  fitGraph(root);
  // A new run of the session (a HITL answer sent from below the graph, a fork): back to the first screen,
  // where its graph and step are.
  const position = root.querySelector(".rdi-position");
  const runs = position ? position.textContent.split("\u2192").length : 0;
  if (root.__runs !== undefined && runs > root.__runs && root.getBoundingClientRect().top < 0) {
    root.scrollIntoView({ block: "start" });
    const scroller = document.querySelector('[data-testid="stMain"]');
    if (scroller && root.getBoundingClientRect().top < 0) scroller.scrollTop = 0;
  }
  root.__runs = runs;
  // The URL names the run and the step shown (rag_debugger/views/run_link.py, rag_debugger/ui/link_opening.py), so a reload or a shared link opens
  // them; replaceState, so the browser history gets no entry per Step and Streamlit re-renders nothing.
  // After the update is painted: a same-document navigation costs Chromium 4-7 ms, which the Step
  // would otherwise wait for.
  if (typeof data.link === "string") {
    root.__link = data.link;
    if (!root.__linkQueued) {
      root.__linkQueued = true;
      requestAnimationFrame(() => setTimeout(() => {
        root.__linkQueued = false;
        if (window.location.search === root.__link) return;
        const url = window.location.pathname + root.__link + window.location.hash;
        window.history.replaceState(window.history.state, "", url);
      }, 0));
    }
  }
  if (root.__travelled) {  // a timeline row was clicked (below the fold): show that step's graph and diff
    root.__travelled = false;
    if (root.getBoundingClientRect().top < 0) root.scrollIntoView({ block: "start" });
  }
  if (!root.__wired) {
    root.__wired = true;
    window.addEventListener("resize", () => fitGraph(root));
    // what is above the graph settles after this update (Streamlit replaces the elements of the last run
    // one by one): fit again whenever the page's body changes size
    const body = document.querySelector('[data-testid="stMainBlockContainer"]');
    if (body && window.ResizeObserver) new ResizeObserver(() => fitGraph(root)).observe(body);
    const travel = (el) => {
      root.__travelled = true;
      root.__setTrigger("travel", Number(el.dataset.travel));
    };
    root.addEventListener("click", (e) => {
      const button = e.target.closest("button[data-action]");
      if (button) {
        if (!button.disabled) root.__setTrigger("action", button.dataset.action);
        return;
      }
      const el = e.target.closest("[data-travel]");
      if (el) travel(el);
    });
    root.addEventListener("keydown", (e) => {
      if (e.key !== "Enter" && e.key !== " ") return;
      const el = e.target.closest("[data-travel]");
      if (el) {
        e.preventDefault();
        travel(el);
      }
    });
    // A folded part built only while open (rag_debugger/views/inspector_html.py lazy_details): report which are
    // open, so the server sends its body (toggle does not bubble: listen while capturing). Restoring
    // the open state after an update fires toggle too; an unchanged set is not sent again.
    root.addEventListener("toggle", (e) => {
      if (!e.target.matches || !e.target.matches("details[data-lazy]")) return;
      const ids = [...root.querySelectorAll("details[data-lazy][open]")].map((d) => d.dataset.id).sort();
      if (ids.join("\n") === (root.__opened || []).join("\n")) return;
      root.__opened = ids;
      root.__setState("opened", ids);
    }, true);
    root.addEventListener("change", (e) => {
      if (e.target.classList.contains("rdi-full-state-toggle")) {
        root.__setState("full_state", e.target.checked);
        return;
      }
      if (!e.target.classList.contains("rdi-unchanged-toggle")) return;
      root.classList.toggle("rdi-show-unchanged", e.target.checked);
      for (const t of root.querySelectorAll(".rdi-unchanged-toggle")) t.checked = e.target.checked;
    });
  }
}

// The whole graph on the first screen: the picture may be as tall as the room left between its top (on the
// unscrolled page) and the bottom of the window, never less than MIN_GRAPH_SHARE of the window (below
// that its names would be too small to read; the page then scrolls instead). The stylesheet's max-height
// is the first guess; this follows what the page really holds above the graph.
const MIN_GRAPH_SHARE = 0.45;
function fitGraph(root) {
  requestAnimationFrame(() => {
    const img = root.querySelector(".rdi-graph img");
    if (!img) return;
    const scroller = document.querySelector('[data-testid="stMain"]');
    const top = img.getBoundingClientRect().top + window.scrollY + (scroller ? scroller.scrollTop : 0);
    const room = window.innerHeight - top - 8;
    const fit = Math.round(Math.max(room, window.innerHeight * MIN_GRAPH_SHARE)) + "px";
    if (img.style.maxHeight !== fit) img.style.maxHeight = fit;
  });
}

// The graph picture has one version per position (a dozen or so per graph): each one is sent, parsed
// and decoded once, then moved back in when Step, Restart or time travel returns to that position
// (by its digest; the server keeps the same list: rag_debugger/views/section_delivery.py GRAPH_CACHE_SIZE).
const GRAPH_CACHE_SIZE = 48;
function swapGraph(root, section, hash, html) {
  const cache = (root.__graphs = root.__graphs || new Map());
  let box = cache.get(hash);
  if (box) cache.delete(hash);  // re-inserted below: most recently used last
  else {
    box = document.createElement("div");
    box.innerHTML = html;
  }
  cache.set(hash, box);
  if (cache.size > GRAPH_CACHE_SIZE) cache.delete(cache.keys().next().value);
  section.replaceChildren(box);
}

// The controls act on what the question box shows (rag_debugger/ui/panels/controls.py). Streamlit sends the box
// to the server only when it loses focus, so while the user types a new question this turns Step,
// Continue and Restart on and names the question, as the server will once it has the box (a click
// sends the box first: the click blurs it). Its words come from the server in data.texts, in the
// page's language (rag_debugger/ui/panels/controls.py target_texts).
const QUOTE_CHARS = 60;
function quote(text) {
  const t = text.split(/\s+/).filter(Boolean).join(" ");
  return "\u201c" + (t.length <= QUOTE_CHARS ? t : t.slice(0, QUOTE_CHARS - 1) + "\u2026") + "\u201d";
}
function syncControls(root) {
  const bar = root.querySelector(".rdi-controls");
  const box = document.querySelector(".st-key-question textarea");
  const target = root.querySelector(".rdi-target");
  // a running step (data-running): only Stop works until it ends, whatever the box says
  if (!bar || !box || !target || bar.dataset.replay === "1" || bar.dataset.running === "1") return;
  const loaded = (bar.dataset.loaded || "").trim();
  const text = box.value.trim();
  const fresh = text !== "" && text !== loaded;
  const done = bar.dataset.done === "1", hasRun = bar.dataset.hasRun === "1";
  const on = { step: !done || fresh, continue: !done || fresh, restart: hasRun || fresh };
  for (const b of bar.querySelectorAll("button[data-action]")) {
    if (b.dataset.action in on) b.disabled = !on[b.dataset.action];
  }
  const texts = root.__texts || {};
  const say = (name, question) => (texts[name] || "").replace("{question}", question);
  target.textContent = "";
  if (fresh) {
    const strong = document.createElement("b");
    strong.textContent = texts.new || "";
    target.append(strong, " " + quote(text) + (hasRun && loaded ? say("was", quote(loaded)) : ""));
  } else if (hasRun) {
    target.append(say("loaded", quote(loaded)));
  } else {
    target.append(texts.idle || "");
  }
}
function followQuestionBox(root) {
  syncControls(root);
  if (window.__rdiFollowsQuestion) return;
  window.__rdiFollowsQuestion = true;
  document.addEventListener("input", (e) => {
    if (!e.target.closest || !e.target.closest(".st-key-question")) return;
    const current = document.querySelector(".rdi-root");
    if (current) syncControls(current);
  });
}

// Keyboard: s = Step, c = Continue, ← / → (or [ / ]) = back / forward through the timeline. Not
// while typing in a field; a disabled button stays disabled. One listener for the page.
function rdiKeys(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
  const root = document.querySelector(".rdi-root");
  if (!root || !root.__setTrigger) return;
  const key = e.key;
  const action = { s: "step", c: "continue" }[key];
  if (action) {
    const b = root.querySelector(`button[data-action="${action}"]`);
    if (b && !b.disabled) {
      e.preventDefault();
      root.__setTrigger("action", action);
    }
    return;
  }
  const back = key === "ArrowLeft" || key === "[", fwd = key === "ArrowRight" || key === "]";
  if (!back && !fwd) return;
  const rows = root.querySelectorAll("#timeline tbody tr[data-travel]");
  if (!rows.length) return;
  const last = rows.length - 1;
  const sel = root.querySelector("#timeline tr.rdi-selected");
  const at = sel ? Number(sel.dataset.travel) : last;
  const to = Math.max(0, Math.min(last, at + (fwd ? 1 : -1)));
  if (to === at) return;
  e.preventDefault();
  root.__setTrigger("travel", to === last ? -1 : to);
}
if (!window.__rdiKeys) {
  window.__rdiKeys = true;
  document.addEventListener("keydown", rdiKeys);
}

// Streamlit flushes a batch of widget updates with a zero-delay timer queued by the first update of a task;
// a timer queued from inside a zero-delay timer of ours runs after every timer the click's task queued.
function afterPendingUpdates(send) {
  setTimeout(() => setTimeout(send, 0), 0);
}
