from ui.settings_view import render_page

render_page()
