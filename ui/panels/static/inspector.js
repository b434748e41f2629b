// The debugger's inspector: puts the HTML the server rendered for each section in place, only for
// the sections that changed, keeps open <details> open, turns the Run / Step / Continue / Restart
// buttons into a one-shot "action" trigger and clicks on timeline rows into a "travel" trigger,
// and moves the graph's marks (about to run, already run, "Send xN") as CSS classes on the
// picture that was laid out once. Everything it shows is escaped on the server
// (debugger/html_view.py).

// Nodes and edges of the graph section by name: a Graphviz SVG names them in <title>, the HTML
// list (no layout program) in data-node / data-edge.
function graphParts(section) {
  const nodes = new Map();
  const edges = new Map();
  for (const g of section.querySelectorAll("g.node")) nodes.set(g.querySelector("title")?.textContent, g);
  for (const g of section.querySelectorAll("g.edge")) edges.set(g.querySelector("title")?.textContent, g);
  for (const el of section.querySelectorAll("[data-node]")) nodes.set(el.dataset.node, el);
  for (const el of section.querySelectorAll("[data-edge]")) edges.set(el.dataset.edge, el);
  return { nodes, edges };
}

function applyMarks(parts, marks) {
  const current = new Set(marks.current || []);
  const done = new Set(marks.done || []);
  for (const [name, el] of parts.nodes) {
    el.classList.toggle("rdi-current", current.has(name));
    el.classList.toggle("rdi-done", done.has(name));
  }
  for (const [name, label] of Object.entries(marks.send || {})) {
    const edge = parts.edges.get(name);
    const text = edge && edge.querySelector("text");
    if (text && text.textContent !== label) text.textContent = label;
    if (edge) edge.classList.add("rdi-send");
  }
}
export default function ({ parentElement, data, setTriggerValue, setStateValue }) {
  const root = parentElement.querySelector(".rdi-root");
  root.__setTrigger = setTriggerValue;
  root.__setState = setStateValue;
  root.__html = root.__html || {};
  for (const section of root.querySelectorAll("[data-sec]")) {
    const name = section.dataset.sec;
    const html = data[name] || "";
    if (root.__html[name] === html) continue;
    const open = new Map();
    for (const d of section.querySelectorAll("details[data-id]")) open.set(d.dataset.id, d.open);
    section.innerHTML = html;
    root.__html[name] = html;
    for (const d of section.querySelectorAll("details[data-id]")) {
      if (open.has(d.dataset.id)) d.open = open.get(d.dataset.id);
    }
    for (const t of section.querySelectorAll(".rdi-unchanged-toggle")) {
      t.checked = root.classList.contains("rdi-show-unchanged");
    }
  }
  const graph = root.querySelector('[data-sec="graph"]');
  const marks = data.graph_marks || {};
  const marksKey = JSON.stringify(marks);
  if (!root.__parts || root.__partsHtml !== root.__html.graph) {
    root.__parts = graphParts(graph);
    root.__partsHtml = root.__html.graph;
    root.__marks = null;
  }
  if (root.__marks !== marksKey) {
    applyMarks(root.__parts, marks);
    root.__marks = marksKey;
  }
  if (root.__travelled) {  // a timeline row was clicked (below the fold): show that step's graph and diff
    root.__travelled = false;
    if (root.getBoundingClientRect().top < 0) root.scrollIntoView({ block: "start" });
  }
  if (!root.__wired) {
    root.__wired = true;
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
