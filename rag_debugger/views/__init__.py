"""What the pages show, built as text without Streamlit: the inspector's HTML fragments and text made safe
for Streamlit's markdown. Why apart from `rag_debugger.ui`: `ui/` is the Streamlit code (widgets, session
state, page flow); these are pure functions of their input, tested without a browser or AppTest, and the
self-contained HTML files (`rag_debugger.exports`) are written from them with no Streamlit at all. They
escape with and lay pages out on `rag_debugger.debugger.html_page`, the one place that writes HTML's basics."""
