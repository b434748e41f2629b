from rag_debugger.ui.streamlit_state import run_page
from rag_debugger.ui.trace_view import render_page

run_page(render_page)
