"""`rag-debugger`'s command line: what it hands Streamlit (no process started)."""
from __future__ import annotations

from pathlib import Path

from rag_debugger import cli

ROOT = Path(__file__).resolve().parents[2]


def _value(cmd: list[str], flag: str) -> str:
    return cmd[cmd.index(flag) + 1]


def test_no_argument_starts_the_app_as_streamlit_run_app_py_does():
    cmd = cli.streamlit_command([])
    assert cmd[1:4] == ["-m", "streamlit", "run"]
    assert Path(cmd[4]) == ROOT / "app.py"  # from a clone: the checkout's own script and pages
    assert "--" not in cmd  # nothing for the app: its embedded default


def test_the_apps_own_streamlit_settings_travel_as_flags():
    """Streamlit reads `.streamlit/config.toml` only from the folder it starts in; the user's folder has none."""
    cmd = cli.streamlit_command([])
    assert _value(cmd, "--client.showErrorDetails") == "none"
    assert _value(cmd, "--client.showSidebarNavigation") == "false"
    assert _value(cmd, "--runner.magicEnabled") == "false"
    assert cmd.count("--browser.gatherUsageStats") == 1 and _value(cmd, "--browser.gatherUsageStats") == "false"


def test_loopback_by_default_and_host_port_are_the_commands_own():
    cmd = cli.streamlit_command(["--port", "8600"])
    assert _value(cmd, "--server.address") == "127.0.0.1" and _value(cmd, "--server.port") == "8600"
    assert _value(cli.streamlit_command(["--host", "0.0.0.0"]), "--server.address") == "0.0.0.0"


def test_the_apps_arguments_go_after_the_double_dash():
    args = ["--graph", "my_pkg.agent:graph", "--checkpointer", "sqlite:///c.db", "--config", "langgraph.json"]
    cmd = cli.streamlit_command(["--port", "9000", *args])
    assert cmd[cmd.index("--") + 1:] == args
    assert "--port" not in cmd[cmd.index("--"):]


def test_config_flags_of_a_missing_file_are_none(tmp_path):
    assert cli.config_flags(tmp_path / "nope.toml") == []
