"""Route-level evaluation of the workflow on a set of questions (`python -m rag.eval SET.jsonl`).

Split so each part is testable alone: `cases` reads and validates a set file (JSON Lines or CSV,
pydantic; a bad line names its line and field), `scoring` holds the pure scoring functions
(confusion table, route accuracy, source hit rate, MRR, per-node latency, regressions between two
runs), `config` the knobs a comparison varies, `runner` runs cases through the public API
(`run_rag_graph`, `resume_rag_from_hitl` for a case's HITL answer) in parallel, `store` keeps
results beside the run history. Retrieval alone: `lost_at` (where a case's gold fell out, pure over the
trace), `ir_metrics` (the ranking metrics through ir-measures), `retrieval_eval` (`--retrieval-only`),
`sweep` (`--sweep`), `retrieval_cli` (their CLI output).
"""
