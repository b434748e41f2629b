"""`rag-debugger`: start the app from the folder your graph lives in.

    rag-debugger                                   # the RAG debugger on its embedded default
    rag-debugger --graph my_pkg.agent:graph        # the step debugger on your graph
    rag-debugger --config langgraph.json           # a LangGraph project as it is
    rag-debugger --checkpointer sqlite:///checkpoints.db
    rag-debugger --port 8600 --host 0.0.0.0

Why a command and not `streamlit run <path>/app.py`: an installed app's script lives in site-packages, Streamlit
reads `.streamlit/config.toml` only from the folder it is started in, and it puts the script's folder, not yours,
on the import path. The command passes the app's own settings as flags, puts the current folder first on the
import path (so `my_pkg` imports as it does in your project) and hands every other argument to the app.
"""
from __future__ import annotations

import argparse
import os
import sys
import tomllib
from pathlib import Path
from typing import Any, Sequence

PACKAGE_DIR = Path(__file__).resolve().parent
OWN_FLAGS = frozenset({"server.address", "server.port"})
"""Set by the command's own --host / --port (loopback by default), whatever the app's settings file says."""


def app_dir() -> Path:
    """Where `app.py` and `pages/` are: inside the package once installed from a wheel, the checkout's root when
    run from a clone (the wheel maps the checkout's root files into `rag_debugger/_app`)."""
    installed = PACKAGE_DIR / "_app"
    return installed if (installed / "app.py").is_file() else PACKAGE_DIR.parent


def _flag_value(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def config_flags(config_file: Path, skip: frozenset[str] = frozenset()) -> list[str]:
    """The app's `.streamlit/config.toml` as command-line flags (`--section.option value`), but `skip`."""
    if not config_file.is_file():
        return []
    with config_file.open("rb") as fh:
        config = tomllib.load(fh)
    flags: list[str] = []
    for section, options in config.items():
        if isinstance(options, dict):
            for option, value in options.items():
                if f"{section}.{option}" not in skip:
                    flags += [f"--{section}.{option}", _flag_value(value)]
    return flags


def streamlit_command(argv: Sequence[str]) -> list[str]:
    """The `streamlit run` command line for these arguments (a pure function: the tests read it)."""
    parser = argparse.ArgumentParser(
        prog="rag-debugger", allow_abbrev=False,
        description="See, step through and tune a LangGraph workflow in your browser. Arguments not listed here "
                    "(--graph, --input, --context, --checkpointer, --checkpointer-writable, --config) go to the app.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default: loopback only)")
    parser.add_argument("--port", type=int, default=8501)
    own, app_args = parser.parse_known_args(list(argv))
    folder = app_dir()
    cmd = [sys.executable, "-m", "streamlit", "run", str(folder / "app.py"),
           *config_flags(folder / ".streamlit" / "config.toml", skip=OWN_FLAGS),
           "--server.address", own.host, "--server.port", str(own.port)]
    if "--browser.gatherUsageStats" not in cmd:  # never ask Streamlit's host for anything
        cmd += ["--browser.gatherUsageStats", "false"]
    if app_args:
        cmd += ["--", *app_args]
    return cmd


def main(argv: Sequence[str] | None = None) -> None:
    cmd = streamlit_command(sys.argv[1:] if argv is None else argv)
    env = dict(os.environ)
    here = os.getcwd()
    env["PYTHONPATH"] = os.pathsep.join([here, *filter(None, [env.get("PYTHONPATH")])])
    os.execve(sys.executable, cmd, env)


if __name__ == "__main__":
    main()
