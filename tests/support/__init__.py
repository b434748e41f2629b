"""Test helpers shared by several test directories (e.g. the fake OpenAI-compatible server)."""
