from ui.debugger_view import render_page

render_page()
