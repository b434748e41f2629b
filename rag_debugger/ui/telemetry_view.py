"""The Settings page's OpenTelemetry section: is export on, where to (without credentials), does it work.

Why only a switch: the destination, headers and service name come from the server's environment
(`OTEL_EXPORTER_OTLP_*`), so a visitor of a shared server cannot send the team's runs elsewhere
(docs/decisions.md). The switch is the process's, like the receiver it points at.
"""
from __future__ import annotations

import streamlit as st

from rag.access import AccessRefused
from rag.i18n import _
from rag.telemetry import exporter
from rag_debugger.views.markdown_text import as_text


def _toggled() -> None:
    from rag_debugger.ui.streamlit_state import flash, permit

    wanted = bool(st.session_state.get("set_otel_on"))
    try:
        exporter.set_switch(wanted, permit=permit())  # the admins' (rag/access.py): refused here, not only greyed
    except AccessRefused as exc:
        st.session_state["set_otel_on"] = exporter.tracer() is not None
        flash("warning", str(exc))


def render_telemetry() -> None:
    from rag_debugger.ui.streamlit_state import refusal

    st.subheader(_("Send runs to OpenTelemetry"))
    on = exporter.tracer() is not None
    refused = refusal("switch_telemetry")
    st.toggle(_("Send every run as a trace (Phoenix, Langfuse, Jaeger, a collector)"), value=on, key="set_otel_on",
              on_change=_toggled, disabled=bool(refused))
    if refused:
        st.caption(_("The switch is the whole server's: {why}").format(why=as_text(refused)))
    status = exporter.status()
    if status.state == "off":
        st.caption(_("Off. The server's OTEL_EXPORTER_OTLP_ENDPOINT (with OTEL_EXPORTER_OTLP_HEADERS and "
                     "OTEL_SERVICE_NAME) says where traces go; without it, the switch sends them to the "
                     "OpenTelemetry default receiver on this machine (localhost:4318)."))
    elif status.state == "waiting":
        st.info(_("On: traces go to {endpoint} ({protocol}) as service {service}; nothing sent yet.").format(
            endpoint=as_text(status.endpoint), protocol=as_text(status.protocol), service=as_text(status.service_name)))
    elif status.state == "ok":
        st.success(_("On: {count} spans sent to {endpoint} ({protocol}) as service {service}.").format(
            count=as_text(status.sent), endpoint=as_text(status.endpoint), protocol=as_text(status.protocol),
            service=as_text(status.service_name)))
    else:
        st.warning(_("The receiver at {endpoint} does not take the traces ({problem}): runs go on, their spans "
                     "are dropped until it answers.").format(endpoint=as_text(status.endpoint), problem=as_text(status.problem)))
