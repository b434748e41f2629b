"""The step debugger's logic for this workflow, without Streamlit: a debugging session that steps the
main and resume graphs, records each run in the history, replays recorded runs, and knows which
browser session drives which run (`session`, `run_owners`).

Why here and not in `ui/`: the pages only draw and forward clicks, so everything a click does can be
tested without a browser or AppTest, and the any-graph page and future front ends reuse it.
"""
