// The debugger's inspector: puts the HTML the server rendered for each section in place, only for
// the sections that changed, keeps open <details> open, turns the Run / Step / Continue / Restart
// buttons into a one-shot "action" trigger and clicks on timeline rows into a "travel" trigger.
// Everything it shows is escaped on the server (debugger/html_view.py).

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
