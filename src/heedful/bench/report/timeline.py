"""The attention trace of one benchmark trial, as a timeline in report.html (document 000 §12).

After a run, one trial of a controller policy is replayed exactly — same view, same policy seed,
same world, so the same choices — and its controller's trace is kept in ``timeline.json`` beside
``results.json``: every candidate created, updated, selected, skipped, expired and resolved, with
the predicted value at selection and the realised utility change at resolution. The chosen trial
is the controller policy's worst informative trial (largest regret): where attention went wrong
is where a reader wants to look. Sealed hold-out runs publish no trial, so they get no timeline.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from heedful.attention.config import HealthConfig
from heedful.attention.health import TraceRow, health
from heedful.bench.kinds.inspection import collect_choices
from heedful.bench.policies.voc import ControllerPolicy
from heedful.bench.policy import get_policy
from heedful.bench.report.charts import nice_ticks, x_axis
from heedful.bench.report.layout import SCROLL_CLASS, svg_open
from heedful.bench.results import Results, TrialRecord
from heedful.bench.results.plays import Plays, RowFields
from heedful.bench.score.scoring import ScenarioOracle, TrialWorld
from heedful.bench.seeds import Stream, generator, name_key
from heedful.bench.views import policy_view
from heedful.errors import HeedfulError
from heedful.model import Scenario
from heedful.model.documents import read_document

__all__ = ["TIMELINE_FILE", "build_timeline", "load_timeline", "timeline_html", "write_timeline"]

TIMELINE_FILE = "timeline.json"

#: Marker colour per event kind (grey for anything not listed).
_COLOURS = {
    "candidate_created": "#4c78a8",
    "candidate_updated": "#9ecae9",
    "candidate_selected": "#f58518",
    "candidate_skipped": "#bab0ac",
    "candidate_expired": "#79706e",
    "resolved": "#54a24b",
    "inspection_failed": "#e45756",
    "attention_terminated_negative_voc": "#222222",
    "attention_terminated_no_candidates": "#222222",
    "attention_budget_exhausted": "#222222",
    "anomaly_raised": "#e45756",
}


#: Column headers of the §25 signatures (full names on hover).
_SHORT = {
    "priority_inflation": "inflation",
    "overinspection": "over-insp.",
    "underinspection": "under-insp.",
    "thrashing": "thrashing",
    "starvation": "starvation",
    "novelty_addiction": "novelty",
    "self_confirmation": "self-conf.",
    "candidate_blindness": "blindness",
}


def _is_controller(name: str, params: dict[str, Any]) -> bool:
    try:
        return isinstance(get_policy(name, **params), ControllerPolicy)
    except Exception:  # an unknown or unbuildable policy simply has no timeline
        return False


def choose_trial(results: Results, policy: str | None = None) -> TrialRecord | None:
    """The worst informative trial of ``policy`` (default: the first controller policy run)."""
    specs = {p.name: dict(p.params) for p in results.manifest.policies}
    names = [policy] if policy is not None else list(specs)
    for name in names:
        if name not in specs or not _is_controller(name, specs[name]):
            continue
        trials = [t for t in results.trials if t.policy == name and not t.uninformative]
        if trials:
            return max(trials, key=lambda t: t.regret)
    return None


def replay(
    scenario: Scenario,
    record: TrialRecord,
    params: dict[str, Any],
    *,
    seed: int,
    key: int,
    oracle: ScenarioOracle | None = None,
) -> tuple[list[str], list[dict[str, Any]]]:
    """Play the trial of ``record`` again; return the inspections and the trace as JSON rows.

    ``oracle`` (the scenario's, static part suffices: only its problem and fixed world are read)
    saves preparing it again when many trials of one scenario are replayed.
    """
    policy = get_policy(record.policy, **params)
    assert isinstance(policy, ControllerPolicy)
    reveal = None
    if record.condition == "adaptive":  # static: every result is withheld, no world needed
        oracle = oracle or ScenarioOracle.prepare(scenario, adaptive=False)
        world = TrialWorld.draw(oracle, generator(seed, Stream.TRIALS, key, record.trial))
        reveal = world.observation
    view = policy_view(scenario)
    policy.reset(view, generator(seed, Stream.POLICY, key, record.trial, name_key(record.policy)))
    history, _ = collect_choices(policy, view, reveal, scenario.reveals())
    events = [e.model_dump(mode="json") for e in policy.controller.trace]
    return [o.source_id for o in history], events


def build_timeline(
    results: Results,
    scenarios: Sequence[Scenario],
    *,
    world_keys: Sequence[int] | None = None,
    policy: str | None = None,
    plays: Plays | None = None,
) -> dict[str, Any] | None:
    """The timeline of the chosen trial, or None (sealed run, no controller policy).

    ``plays``: the run's kept plays (:mod:`heedful.bench.results.plays`); the health table reads
    them instead of replaying those trials.
    """
    if results.sealed:
        return None
    record = choose_trial(results, policy)
    if record is None:
        return None
    index = next((i for i, s in enumerate(scenarios) if s.view.id == record.scenario_id), None)
    if index is None:
        return None
    key = index if world_keys is None else world_keys[index]
    params = next(dict(p.params) for p in results.manifest.policies if p.name == record.policy)
    inspected, events = replay(
        scenarios[index], record, params, seed=results.manifest.seed, key=key
    )
    return {
        "health": policy_health(results, scenarios, world_keys=world_keys, plays=plays),
        "scenario_id": record.scenario_id,
        "family": record.family,
        "policy": record.policy,
        "trial": record.trial,
        "condition": record.condition,
        "value": record.value,
        "v_star": record.v_star,
        "regret": record.regret,
        "score": record.score,
        "inspected": inspected,
        "replayed_exactly": inspected == list(record.inspected),
        "events": events,
    }


def policy_health(
    results: Results,
    scenarios: Sequence[Scenario],
    *,
    world_keys: Sequence[int] | None = None,
    max_replays: int = 400,
    plays: Plays | None = None,
) -> dict[str, Any]:
    """§5.3 funnel and §25 verdicts per controller policy, over replays of its trials.

    In the static condition a controller policy's choices do not depend on the trial, so each
    scenario is replayed once; in the adaptive condition every trial is, up to ``max_replays``
    per policy. Each replayed trial's turns are kept apart (turn ids prefixed by the trial).
    A trial found in ``plays`` (the run's own play of it) is read from there, not replayed.
    """
    plays = plays or {}
    index = {s.view.id: i for i, s in enumerate(scenarios)}
    oracles: dict[int, ScenarioOracle] = {}
    out: dict[str, Any] = {}
    for spec in results.manifest.policies:
        params = dict(spec.params)
        if not _is_controller(spec.name, params):
            continue
        rows: list[TraceRow] = []
        done: set[str] = set()
        for record in results.trials:
            if record.policy != spec.name or record.scenario_id not in index:
                continue
            static = record.condition == "static"
            tag = record.scenario_id if static else f"{record.scenario_id}/{record.trial}"
            if tag in done:
                continue
            if len(done) >= max_replays:
                break
            done.add(tag)
            kept = plays.get((spec.name, record.scenario_id, record.trial))
            if kept is not None:
                trace: Sequence[RowFields] = kept.fields
            else:
                i = index[record.scenario_id]
                if not static and i not in oracles:
                    oracles[i] = ScenarioOracle.prepare(scenarios[i], adaptive=False)
                key = i if world_keys is None else world_keys[i]
                _, events = replay(
                    scenarios[i],
                    record,
                    params,
                    seed=results.manifest.seed,
                    key=key,
                    oracle=oracles.get(i),
                )
                trace = [_fields(TraceRow.of(e)) for e in events]
            # One session per replayed trial: its turns and candidate ids are its own.
            prefix = f"{record.scenario_id}/{record.trial}/"
            for event, turn_id, candidate_id, voc, reason, resolution, detail in trace:
                cid = prefix + candidate_id if candidate_id else None
                rows.append(TraceRow(event, prefix + turn_id, cid, voc, reason, resolution, detail))
        if rows:
            report = health(rows, HealthConfig(window_turns=len(rows)))
            out[spec.name] = {"replays": len(done), **report.to_dict()}
    return out


def _fields(row: TraceRow) -> RowFields:
    return (
        row.event,
        row.turn_id,
        row.candidate_id,
        row.predicted_voc,
        row.reason_code,
        row.resolution,
        row.detail,
    )


def health_html(data: dict[str, Any] | None) -> str:
    """The per-policy health table: the funnel's totals and one verdict per §25 signature."""
    table = (data or {}).get("health") or {}
    if not table:
        return ""
    first = next(iter(table.values()))
    names = [s["name"] for s in first["signatures"]]
    stages = ["opportunity", "fired", "candidate", "selected", "succeeded", "used"]
    out = [
        "<h2>Attention health of the controller policies (document 000 §5.3, §25)</h2>",
        "<p class='note'>From the controllers' own traces, replayed (static condition: once per "
        "scenario). Funnel totals over all triggers, then each failure-mode signature: "
        "<b>warn</b>, ok, or n/a when too few events bear on it (hover for the numbers).</p>",
        f"<div class='{SCROLL_CLASS}'><table class='health' style='font-size:12px'><tr>"
        "<th class='l'>policy</th><th>replays</th>"
        + "".join(f"<th>{_e(s)}</th>" for s in stages)
        + "".join(f"<th title='{_e(n)}'>{_e(_SHORT.get(n, n))}</th>" for n in names)
        + "</tr>",
    ]
    unheard = []  # policies whose reads never came back to the controller
    for policy, rep_ in table.items():
        total = rep_["funnel"][-1]
        silent = total["selected"] > 0 and total["succeeded"] == 0 and total["used"] == 0
        if silent:
            unheard.append(policy)
        cells = "".join(
            "<td title='no read came back to the controller (see the note below)'>—¹</td>"
            if silent and s in ("succeeded", "used")
            else f"<td>{_e(total[s])}</td>"
            for s in stages
        )
        verdicts = "".join(
            f"<td title='{_e(s['line'])}'>"
            + (f"<b>{_e(s['verdict'])}</b>" if s["verdict"] == "warn" else _e(s["verdict"]))
            + "</td>"
            for s in rep_["signatures"]
        )
        out.append(
            f"<tr><td class='l'>{_e(policy)}</td>"
            f"<td>{_e(rep_['replays'])}</td>"
            f"{cells}{verdicts}</tr>"
        )
    out.append("</table></div>")
    if unheard:
        out.append(
            "<p class='note'>¹ <b>succeeded</b> and <b>used</b> count reads whose outcome came "
            "back to the controller (its <code>resolve</code>). In the static condition a policy "
            "chooses its whole set before any result arrives and the benchmark never reports "
            f"one back, so these stages stay empty for {len(unheard)} of {len(table)} policies "
            f"({_e(', '.join(unheard))}): not a failure of theirs. Their reads' outcomes are "
            "scored in the tables above; run <code>heedful bench run --adaptive</code> to see "
            "the whole funnel.</p>"
        )
    return "\n".join(out)


def write_timeline(
    folder: Path,
    results: Results,
    scenarios: Sequence[Scenario],
    *,
    world_keys: Sequence[int] | None = None,
    plays: Plays | None = None,
) -> Path | None:
    """Write ``timeline.json`` into ``folder`` when there is a trial to show; return its path."""
    data = build_timeline(results, scenarios, world_keys=world_keys, plays=plays)
    if data is None:
        return None
    path = folder / TIMELINE_FILE
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path


def load_timeline(path: Path) -> dict[str, Any] | None:
    """The timeline stored at ``path``, or None when there is none (or it is unreadable)."""
    try:
        data = read_document(path, json_only=True)
    except HeedfulError:
        return None
    return data if isinstance(data, dict) and isinstance(data.get("events"), list) else None


def _e(x: object) -> str:
    return html.escape(str(x), quote=True)


def _num(x: object) -> str:
    return f"{x:.3f}" if isinstance(x, int | float) and not isinstance(x, bool) else "—"


def _targets(events: list[dict[str, Any]]) -> dict[str, str]:
    """Candidate id → its target, from the first event that names it."""
    targets: dict[str, str] = {}
    for ev in events:
        cid, target = ev.get("candidate_id"), (ev.get("detail") or {}).get("target")
        if cid and target and cid not in targets:
            targets[cid] = str(target)
    return targets


def _short(text: str, limit: int = 32) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _lanes(events: list[dict[str, Any]]) -> str:
    """An SVG: one lane per candidate (its target), one marker per event, in trace order."""
    targets = _targets(events)
    lanes = [*dict.fromkeys(targets.values()), "(turn)"]
    n = max(len(events), 1)
    width, left, row = 900, 230, 22
    bottom = row * len(lanes) + 8
    height = bottom + 34
    out = [
        svg_open(
            width, height, class_="timeline", role="img", aria_label="attention trace timeline"
        )
    ]
    for i, lane in enumerate(lanes):
        y = 20 + i * row
        out.append(
            f"<text x='{left - 8}' y='{y + 4}' text-anchor='end' font-size='11'>"
            f"<title>{_e(lane)}</title>{_e(_short(lane))}</text>"
            f"<line x1='{left}' y1='{y}' x2='{width - 10}' y2='{y}' stroke='#ddd'/>"
        )

    def event_x(k: float) -> float:  # k: the event's position in the trace, from 0
        return left + (width - left - 20) * (k + 0.5) / n

    ticks = [t for t in nice_ticks(0, n - 1, target=8) if 0 <= t <= n - 1] or [0.0]
    out.append(
        x_axis(
            ticks,
            event_x,
            y_top=8,
            y_bottom=bottom,
            label="position in the trace (0: its first event)",
            label_x=(left + width - 20) / 2,
        )
    )
    for k, ev in enumerate(events):
        cid = ev.get("candidate_id")
        lane = targets.get(cid, "(turn)") if cid else "(turn)"
        x = left + (width - left - 20) * (k + 0.5) / n
        y = 20 + lanes.index(lane) * row
        colour = _COLOURS.get(ev["event"], "#999999")
        r = 6 if ev["event"] in ("candidate_selected", "resolved") else 4
        out.append(
            f"<circle cx='{x:.1f}' cy='{y}' r='{r}' fill='{colour}'>"
            f"<title>{_e(ev['seq'])} {_e(ev['event'])}</title></circle>"
        )
    out.append("</svg>")
    return "".join(out)


def timeline_html(data: dict[str, Any] | None) -> str:
    """The report section: header, lane chart, then one table row per trace event."""
    if not data:
        return ""
    events = list(data["events"])
    exact = "" if data.get("replayed_exactly", True) else " (replay differs from the run!)"
    out = [
        "<h2>Attention trace of one trial (document 000 §12)</h2>",
        f"<p class='note'>Policy <b>{_e(data['policy'])}</b>, scenario "
        f"<b>{_e(data['scenario_id'])}</b> (family {_e(data['family'])}), trial "
        f"{_e(data['trial'])}, {_e(data['condition'])} condition — its worst informative trial: "
        f"value {_num(data['value'])} vs V* {_num(data['v_star'])}, regret "
        f"{_num(data['regret'])}. Inspected: {_e(', '.join(data['inspected']) or 'nothing')}"
        f"{_e(exact)}. Predicted VOC is the controller's at selection; realised Δutility is the "
        "change of expected utility of its decision when the result arrived.</p>",
        _lanes(events),
        "<p class='note legend'>"
        + " ".join(
            f"<span style='color:{c}'>●</span> {_e(k)}"
            for k, c in _COLOURS.items()
            if any(ev["event"] == k for ev in events)
        )
        + (
            " <span style='color:#999999'>●</span> other events"
            if any(ev["event"] not in _COLOURS for ev in events)
            else ""
        )
        + "</p>",
        f"<div class='{SCROLL_CLASS}'><table class='trace'><tr><th>#</th>"
        "<th class='l'>turn</th><th class='l'>event</th>"
        "<th class='l'>candidate</th><th class='l'>target</th><th>predicted VOC</th>"
        "<th>realised Δutility</th><th class='l'>reason</th></tr>",
    ]
    targets = _targets(events)
    for ev in events:
        detail = ev.get("detail") or {}
        res = ev.get("resolution") or {}
        cid = ev.get("candidate_id") or ""
        target = targets.get(cid) or detail.get("subject") or ""
        out.append(
            f"<tr class='ev-{_e(ev['event'])}'><td>{_e(ev['seq'])}</td>"
            f"<td class='l'>{_e(ev['turn_id'])}</td><td class='l'>{_e(ev['event'])}</td>"
            f"<td class='l'>{_e(ev.get('candidate_id') or '')}</td><td class='l'>{_e(target)}</td>"
            f"<td>{_num(ev.get('predicted_voc'))}</td><td>{_num(res.get('utility_delta'))}</td>"
            f"<td class='l'>{_e(ev.get('reason_code') or '')}</td></tr>"
        )
    out.append("</table></div>")
    out.append(health_html(data))
    return "\n".join(out)
