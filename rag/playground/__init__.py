"""Tuning prompts by experiment: an A/B fork of one role's prompt from one checkpoint (`ab_fork`).

A room of its own above the graph, the models and the run history, because a fork drives all of
them; the prompts package below it only holds templates and their saved versions.
"""
