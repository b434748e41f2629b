"""An evaluation as one self-contained HTML file, for someone who has no app.

Why no script at all: an evaluation report is tables and cases that fold open, which HTML does by
itself (`<details>`); the language switch is two radio buttons and a style rule. So the file's
Content-Security-Policy allows no script and no fetch (`default-src 'none'`), and opening it makes no
request. Every text (questions, sources, errors) is escaped here.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, Optional, Sequence

from rag.eval.scoring import (
    CaseResult,
    accuracy_by_route,
    accuracy_by_tag,
    compare_runs,
    confusion,
    degraded_kinds,
    fmt_rate,
    node_latency,
    summary,
)
from rag.i18n import _, use_language
from rag.i18n.languages import LANGUAGES
from rag_debugger.debugger.html_page import esc, page

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
STYLE = """
body{font-family:"Source Sans Pro",system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans CJK SC",sans-serif;
margin:0 auto;max-width:1200px;padding:16px 24px;color:#262730}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:1.6em}table{border-collapse:collapse;margin:6px 0}
td,th{border:1px solid #e0e2e6;padding:3px 8px;text-align:left;vertical-align:top;font-size:.92rem}
th{background:#f4f5f7}.ok{color:#1b7f3b}.bad{color:#c62828}.muted{color:#6b6f7b}
details.case{border-bottom:1px solid #eee;padding:2px 0}details.case summary{cursor:pointer}
.rer-langs{float:right}.rer-langs label{border:1px solid #d0d3da;padding:3px 9px;cursor:pointer}
#rer-zh,#rer-en{position:absolute;opacity:0}.rer-body-zh{display:none}
#rer-zh:checked~.rer-body-en{display:none}#rer-zh:checked~.rer-body-zh{display:block}
#rer-en:checked~.rer-langs label[for=rer-en],#rer-zh:checked~.rer-langs label[for=rer-zh]{background:#fde8e8;
border-color:#ff4b4b}
"""



def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]], raw: bool = False) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c if raw else esc(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _summary(labels: Sequence[str], runs: Sequence[Sequence[CaseResult]]) -> str:
    rows = []
    for label, results in zip(labels, runs, strict=True):
        s = summary(results)
        rows.append([label, s["cases"], fmt_rate(s["route_accuracy"]), fmt_rate(s["answer_accuracy"]),
                     fmt_rate(s["source_hit_rate"]),
                     "-" if s["mrr"] is None else f"{s['mrr']:.3f}", s["errors"]])
    return "<h2>" + esc(_("Summary")) + "</h2>" + _table(
        [_("configuration"), _("cases"), _("Route accuracy"), _("Answer accuracy"), _("Source hit rate"), "MRR",
         _("errors")], rows)


def _degraded(labels: Sequence[str], runs: Sequence[Sequence[CaseResult]]) -> str:
    """The calls each configuration's runs degraded around, by role and kind (nothing when none did)."""
    found = [(label, degraded_kinds(results)) for label, results in zip(labels, runs, strict=True)]
    if not any(kinds for _label, kinds in found):
        return ""
    rows = [[label, item, n] for label, kinds in found for item, n in kinds.items()]
    return ("<h2>" + esc(_("Calls the runs degraded around")) + "</h2>"
            + _table([_("configuration"), _("role: kind"), _("calls")], rows))


def _confusion(label: str, results: Sequence[CaseResult]) -> str:
    table = confusion(results)
    columns = sorted({c for row in table.values() for c in row})
    rows = [[expected, *[table[expected].get(c, 0) for c in columns]] for expected in sorted(table)]
    return f"<h3>{esc(label)}</h3>" + _table([_("expected \\ got"), *columns], rows)


def _per(title: str, label: str, counts: dict[str, tuple[int, int]]) -> str:
    rows = [[key, f"{ok}/{n}", fmt_rate(ok / n if n else None)] for key, (ok, n) in counts.items()]
    return f"<h3>{esc(title)} · {esc(label)}</h3>" + (_table([_("value"), _("correct"), _("accuracy")], rows)
                                                     if rows else '<p class="muted">-</p>')


def _latency(label: str, results: Sequence[CaseResult]) -> str:
    per = node_latency(results)
    rows = [[node, v["n"], v["p50"], v["p90"], v["p99"]] for node, v in sorted(per.items())]
    return f"<h3>{esc(label)}</h3>" + (_table([_("node"), _("steps"), "p50 ms", "p90 ms", "p99 ms"], rows)
                                       if rows else '<p class="muted">-</p>')


def _changes(labels: Sequence[str], runs: Sequence[Sequence[CaseResult]]) -> str:
    if len(runs) < 2:
        return ""
    changes = compare_runs(runs[0], runs[-1])
    out = ["<h2>" + esc(_("{a} → {b}: cases that changed").format(a=labels[0], b=labels[-1])) + "</h2>"]
    for status, title in (("regressed", _("Regressed (right under {a}, wrong under {b})")),
                          ("fixed", _("Fixed (wrong under {a}, right under {b})"))):
        picked = [c for c in changes if c.status == status]
        out.append("<h3>" + esc(title.format(a=labels[0], b=labels[-1])) + f" · {len(picked)}</h3>")
        out.append(_table([_("case"), _("expected"), labels[0], labels[-1]],
                          [[c.id, c.expected_route, c.route_a, c.route_b] for c in picked]) if picked
                   else '<p class="muted">' + esc(_("none")) + "</p>")
    return "".join(out)


def _agreement(labels: Sequence[str], runs: Sequence[Sequence[CaseResult]]) -> str:
    """The judge against people, per configuration whose cases carry a person's verdict; nothing when
    none does (a gold set written by hand)."""
    from rag.eval.agreement import agreement, judge_label

    found = [(label, agreement(results)) for label, results in zip(labels, runs, strict=True)]
    if all(f is None for _label, f in found):
        return ""
    out = ["<h2>" + esc(_("Agreement between the judge and people")) + "</h2>"]
    for label, f in found:
        if f is None:
            continue
        kappa = (esc(_("Cohen's kappa {kappa}").format(kappa=f"{f.kappa:.3f}")) if f.kappa_note is None
                 else esc(_("Cohen's kappa: {why}").format(why=f.kappa_note)))
        out.append(f"<h3>{esc(label)}</h3><p>" + esc(_("Agreed on {agreed} of {cases} cases ({rate})").format(
            agreed=f.agreed, cases=f.cases, rate=fmt_rate(f.rate))) + f" · {kappa}</p>")
        out.append(_table([_("route"), _("people"), _("judge"), _("both"), _("agreement")],
                          [[r.route, r.people, r.judge, r.both, fmt_rate(r.agreement)] for r in f.per_route]))
        out.append("<h4>" + esc(_("Cases they disagree on")) + f" · {len(f.disagreements)}</h4>")
        out.append(_table([_("case"), _("question"), _("person"), _("judge"), _("verdict"), _("from run")],
                          [[r.id, r.question, r.expected_route, judge_label(r), r.verdict, r.from_run or "-"]
                           for r in f.disagreements]) if f.disagreements
                   else '<p class="muted">' + esc(_("none")) + "</p>")
    return "".join(out)


def _mark(result: CaseResult) -> str:
    if result.correct is None:
        return '<span class="muted">·</span>'
    return '<span class="ok">✓</span>' if result.correct else '<span class="bad">✗</span>'


def _cases(labels: Sequence[str], runs: Sequence[Sequence[CaseResult]]) -> str:
    by_id = [{r.id: r for r in results} for results in runs]
    out = ["<h2>" + esc(_("Cases")) + f" · {len(runs[0])}</h2>"]
    for first in runs[0]:
        seen = [(label, per.get(first.id)) for label, per in zip(labels, by_id, strict=True)]
        marks = " ".join(f"{esc(label)} {_mark(r)} <code>{esc(r.route)}</code>" for label, r in seen if r)
        head = (f"<b>{esc(first.id)}</b> · {esc(first.question)} · " + esc(_("expected")) +
                f" <code>{esc(first.expected_route)}</code> · {marks}")
        body = []
        for label, r in seen:
            if r is None:
                continue
            facts: list[list[Any]] = [[_("route"), r.route], [_("asked first"), r.asked_route or "-"],
                     [_("sources"), ", ".join(r.sources) or "-"],
                     [_("expected sources"), ", ".join(r.expected_sources) or "-"],
                     [_("tags"), ", ".join(r.tags) or "-"], [_("latency"), f"{r.latency_ms:.0f} ms"],
                     [_("steps"), " · ".join(f"{n} {ms} ms" for n, ms in r.node_ms) or "-"]]
            if r.expected_answer_contains:
                facts.append([_("answer should say"), ", ".join(r.expected_answer_contains)])
                facts.append([_("answer"), (r.answer or "-") + "  " + ("✓" if r.answer_correct else "✗")])
            if r.from_run:
                facts.append([_("from run"), r.from_run])
            if r.verdict:
                facts.append([_("verdict"), r.verdict])
            reason = getattr(r, "reason", None)
            if reason:
                facts.append([_("reason"), reason])
            if r.degraded:
                facts.append([_("degraded"), ", ".join(r.degraded)])
            if r.error:
                facts.append([_("error"), r.error])
            body.append(f"<h4>{esc(label)}</h4>" + _table([_("field"), _("value")], facts))
        out.append(f'<details class="case"><summary>{head}</summary>{"".join(body)}</details>')
    return "".join(out)


def report_body(labels: Sequence[str], runs: Sequence[Sequence[CaseResult]], *, title: str, facts: str) -> str:
    """The report in the current language."""
    parts = [f"<h1>{esc(title)}</h1>", f'<p class="muted">{esc(facts)}</p>', _summary(labels, runs),
             _degraded(labels, runs)]
    parts.append("<h2>" + esc(_("Confusion matrix (expected route × route taken)")) + "</h2>")
    parts += [_confusion(label, results) for label, results in zip(labels, runs, strict=True)]
    parts.append("<h2>" + esc(_("Accuracy per route and per tag")) + "</h2>")
    for label, results in zip(labels, runs, strict=True):
        parts.append(_per(_("per expected route"), label, accuracy_by_route(results)))
        parts.append(_per(_("per tag"), label, accuracy_by_tag(results)))
    parts.append("<h2>" + esc(_("Latency per node")) + "</h2>")
    parts += [_latency(label, results) for label, results in zip(labels, runs, strict=True)]
    parts.append(_changes(labels, runs))
    parts.append(_agreement(labels, runs))
    parts.append(_cases(labels, runs))
    return "".join(parts)


def evaluation_html(labels: Sequence[str], runs: Sequence[Sequence[CaseResult]], *, set_name: str,
                    kb: str = "", descriptions: Optional[Sequence[str]] = None, lang: str = "en",
                    when: Optional[str] = None) -> str:
    """The whole file, both languages in it, opening in `lang`."""
    if not runs or not runs[0]:
        raise ValueError("an evaluation report needs at least one configuration with cases")
    when = when or datetime.now().isoformat(timespec="minutes")
    bodies = {}
    for code in LANGUAGES:
        with use_language(code):
            facts = _("Set {set} · knowledge base {kb} · {when}").format(set=set_name, kb=kb or "-", when=when)
            if descriptions:
                facts += " · " + " · ".join(f"{label}: {d}" for label, d in zip(labels, descriptions, strict=False))
            bodies[code] = report_body(labels, runs, title=_("Evaluation of {set}").format(set=set_name), facts=facts)
    radios = "".join(f'<input type="radio" name="rer-lang" id="rer-{code}"{" checked" if code == lang else ""}>'
                     for code in LANGUAGES)
    labels_html = "".join(f'<label for="rer-{code}">{esc(name)}</label>' for code, name in LANGUAGES.items())
    sections = "".join(f'<div class="rer-body-{code}">{body}</div>' for code, body in bodies.items())
    return page(title=set_name, lang=lang, csp=CSP, style=STYLE, viewport=False,
                body=f'{radios}<div class="rer-langs">{labels_html}</div>{sections}')
