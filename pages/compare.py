from ui.compare_view import render_page
from ui.streamlit_state import run_page

run_page(render_page)
