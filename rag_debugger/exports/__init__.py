"""The self-contained HTML files the app and its commands write: a run (`run_file`, its data mode
`run_file_data`, a Your-graph run of the history `graph_run_file`) and a comparison of two runs
(`compare_file`). Each opens from disk with no server and no network. Why a package of their own: a file
is drawn with the page's own views (`rag_debugger.views`) but has none of the page's Streamlit, and a
page's Download button (`rag_debugger.ui`) or a command (`python -m rag_debugger.run_to_html`) writes
it; the engine's evaluation file (`rag/eval/report.py`, `python -m rag.eval --html`) stays in the engine,
which never imports the app."""
