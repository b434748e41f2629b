"""Small LangGraph graphs to try the "Your graph" page on, and the graphs its tests use.

    streamlit run app.py -- --graph examples.chain:graph
    streamlit run app.py -- --graph examples.fanout:graph
    streamlit run app.py -- --graph examples.approval:graph --input examples/approval_input.json
    streamlit run app.py -- --graph examples.nested:graph
    streamlit run app.py -- --graph examples.react:graph
"""
