// The debugger's inspector: swaps in the HTML the server rendered for this step (only when it
// changed), keeps open sections open, and turns clicks on timeline rows into a one-shot
// "travel" trigger. Everything it shows is escaped on the server (debugger/html_view.py).
export default function ({ parentElement, data, setTriggerValue }) {
  const root = parentElement.querySelector(".rdi-root");
  root.__setTrigger = setTriggerValue;
  if (root.__html !== data.html) {
    const state = new Map();
    for (const d of root.querySelectorAll("details[data-id]")) state.set(d.dataset.id, d.open);
    root.innerHTML = data.html;
    root.__html = data.html;
    for (const d of root.querySelectorAll("details[data-id]")) {
      if (state.has(d.dataset.id)) d.open = state.get(d.dataset.id);
    }
    for (const t of root.querySelectorAll(".rdi-unchanged-toggle")) {
      t.checked = root.classList.contains("rdi-show-unchanged");
    }
  }
  if (!root.__wired) {
    root.__wired = true;
    const travel = (el) => root.__setTrigger("travel", Number(el.dataset.travel));
    root.addEventListener("click", (e) => {
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
      if (!e.target.classList.contains("rdi-unchanged-toggle")) return;
      root.classList.toggle("rdi-show-unchanged", e.target.checked);
      for (const t of root.querySelectorAll(".rdi-unchanged-toggle")) t.checked = e.target.checked;
    });
  }
}
