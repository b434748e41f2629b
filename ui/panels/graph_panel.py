"""The graph view: DOT laid out on the server by Graphviz when it is installed (a picture the
browser only has to show), else in the browser with `st.graphviz_chart`. The DOT source is always
one click away, so what the picture shows can be copied and checked as text."""
from __future__ import annotations

import streamlit as st

from debugger.svg import dot_to_svg

INTERACTIVE_KEY = "graph_interactive"


def render_graph(dot: str) -> None:
    interactive = st.session_state.get(INTERACTIVE_KEY, False)
    svg = None if interactive else dot_to_svg(dot)
    if svg is not None:
        st.image(svg, width="stretch")
    else:
        st.graphviz_chart(dot, width="stretch")
    c1, c2 = st.columns([2, 3])
    c1.toggle("Interactive graph", key=INTERACTIVE_KEY,
              help="Lay the graph out in the browser (node tooltips, zoom); slower on every step")
    with c2.popover("DOT source"):
        st.code(dot, language="dot")
