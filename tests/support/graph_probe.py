"""Read the debugger's graph in a real browser the way a person sees it: a node's fill colour.

Works whatever draws the graph: a Graphviz picture (an `<img>` holding an SVG), an inline SVG
(e.g. `st.graphviz_chart`, or a drawing whose highlight is moved by CSS classes). The colour is the
computed one, so a class-based highlight reads the same as a `fill` attribute."""
from __future__ import annotations

_PROBE = """
async (node) => {
  const fillIn = (root) => {
    for (const g of root.querySelectorAll('g.node')) {
      const title = g.querySelector('title');
      if (!title || title.textContent.trim() !== node) continue;
      const shape = g.querySelector('path, polygon, ellipse');
      return shape ? getComputedStyle(shape).fill : null;
    }
    return undefined;
  };
  for (const svg of document.querySelectorAll('.rdi-graph svg, [data-testid="stGraphVizChart"] svg')) {
    const found = fillIn(svg);
    if (found !== undefined) return found;
  }
  const img = document.querySelector('.rdi-graph img');
  if (!img) return undefined;
  const text = await (await fetch(img.src)).text();
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const holder = document.createElement('div');
  holder.style.position = 'absolute';
  holder.style.left = '-10000px';
  holder.appendChild(document.importNode(doc.documentElement, true));
  document.body.appendChild(holder);
  try { return fillIn(holder); } finally { holder.remove(); }
}
"""

_TITLE = """
async () => {
  const img = document.querySelector('.rdi-graph img');
  if (img) return await (await fetch(img.src)).text();
  const svg = document.querySelector('.rdi-graph svg, [data-testid="stGraphVizChart"] svg');
  return svg ? svg.outerHTML : '';
}
"""


def rgb(hex_colour: str) -> str:
    """'#a5d6a7' -> 'rgb(165, 214, 167)', as the browser reports a computed fill."""
    h = hex_colour.lstrip("#")
    return "rgb({}, {}, {})".format(*(int(h[i:i + 2], 16) for i in (0, 2, 4)))


def node_fill(page, node: str):
    """The computed fill of `node` in the graph shown ('rgb(r, g, b)'), None/undefined when absent."""
    return page.evaluate(_PROBE, node)


def graph_markup(page) -> str:
    """The SVG markup of the graph shown (to check its title or which nodes it has)."""
    return page.evaluate(_TITLE)
