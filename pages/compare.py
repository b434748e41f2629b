from rag_debugger.ui.compare_view import render_page
from rag_debugger.ui.streamlit_state import run_page

run_page(render_page)
