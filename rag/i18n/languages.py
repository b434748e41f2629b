"""The UI's languages. A module of its own because both the lookup (`rag.i18n`) and the catalogue files
(`rag.i18n.catalog`) need the list, and the package importing its catalogue module and back was a circle."""
from __future__ import annotations

LANGUAGES: dict[str, str] = {"en": "English", "zh": "中文"}
"""Language code -> its name in itself (what the picker shows)."""
DEFAULT_LANGUAGE = "en"
