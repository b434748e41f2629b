"""Small LangGraph graphs to try the "Your graph" page on, and the graphs its tests use.

    streamlit run app.py -- --graph rag_debugger.examples.chain:graph
    streamlit run app.py -- --graph rag_debugger.examples.fanout:graph
    streamlit run app.py -- --graph rag_debugger.examples.approval:graph --input rag_debugger/examples/approval_input.json
    streamlit run app.py -- --graph rag_debugger.examples.nested:graph
    streamlit run app.py -- --graph rag_debugger.examples.react:graph
"""
