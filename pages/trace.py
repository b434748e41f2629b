from ui.streamlit_state import run_page
from ui.trace_view import render_page

run_page(render_page)
