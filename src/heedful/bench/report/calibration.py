"""Calibration in the report: a reliability diagram per controller policy (report.html) and a
short table (terminal). Document 000 §20.3: predicted VOC vs realised decision-utility gain."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from rich.table import Table

from heedful.bench.report.charts import nice_ticks, x_axis, y_axis
from heedful.bench.report.layout import svg_open
from heedful.bench.results.calibration import CalibrationRow

__all__ = ["calibration_html", "calibration_table", "reliability_svg"]

_W, _H, _PAD = 270, 240, 34


def reliability_svg(row: CalibrationRow) -> str:
    """An SVG reliability diagram: bucket mean predicted (x) vs mean realised (y), diagonal;
    both axes ticked and labelled on one scale."""
    values = [v for b in row.buckets for v in (b.predicted, b.realised)]
    ticks = nice_ticks(min(0.0, *values), max(values), target=4) if values else [0.0, 1.0]
    if len(ticks) < 2:
        ticks = [ticks[0], ticks[0] + 1.0]
    lo, hi = ticks[0], ticks[-1]
    left, bottom = _PAD + 12, _H - _PAD

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * (_W - left - _PAD / 2)

    def y(v: float) -> float:
        return bottom - (v - lo) / (hi - lo) * (bottom - _PAD / 2)

    biggest = max((b.n for b in row.buckets), default=1)
    dots = "".join(
        f"<circle cx='{x(b.predicted):.1f}' cy='{y(b.realised):.1f}' "
        f"r='{3 + 5 * (b.n / biggest) ** 0.5:.1f}' fill='#3b6fd8' fill-opacity='.75'>"
        f"<title>{b.n} reads: predicted {b.predicted:.3f}, realised {b.realised:.3f}</title>"
        "</circle>"
        for b in row.buckets
    )
    line = " ".join(f"{x(b.predicted):.1f},{y(b.realised):.1f}" for b in row.buckets)
    return (
        svg_open(_W, _H, role="img", aria_label=f"reliability diagram of {row.policy}")
        + x_axis(
            ticks,
            x,
            y_top=_PAD / 2,
            y_bottom=bottom,
            label="predicted net VOC",
            label_x=(left + _W - _PAD / 2) / 2,
        )
        + y_axis(
            ticks,
            y,
            x_left=left,
            x_right=_W - _PAD / 2,
            label="realised ΔV",
            label_y=(bottom + _PAD / 2) / 2,
        )
        + f"<line x1='{x(lo):.1f}' y1='{y(lo):.1f}' x2='{x(hi):.1f}' y2='{y(hi):.1f}' "
        "stroke='#999' stroke-dasharray='4 3'/>"
        f"<polyline points='{line}' fill='none' stroke='#3b6fd8'/>{dots}"
        "</svg>"
    )


def _slope(r: CalibrationRow) -> str:
    return "—" if r.slope is None else f"{r.slope:.2f}"


def calibration_html(rows: Sequence[CalibrationRow]) -> str:
    """The report section: one card per policy (diagram, slope, ECE, inflation)."""
    if not rows:
        return ""
    out = [
        "<h2>Predicted-VOC calibration (document 000 §20.3)</h2>",
        "<p class='note'>Each dot is a bucket of the reads a controller policy chose (equal "
        "counts): its mean predicted net VOC against the mean realised value — the exact change "
        "in V(S) when the read is added to the reads before it. On the dashed diagonal the "
        "controller is calibrated; below it, overconfident. Slope: least-squares slope of "
        "realised on predicted. ECE: expected calibration error. Inflation: share of "
        "predictions at or above 90% of the largest (§25).</p><div class='grid'>",
    ]
    for r in rows:
        out.append(
            f"<div class='card'><b>{escape(r.policy)}</b> <span class='note'>{r.n} reads, slope "
            f"{_slope(r)}, ECE {r.ece:.3f}, inflation {r.inflation_share:.2f}</span><br>"
            f"{reliability_svg(r)}</div>"
        )
    out.append("</div>")
    return "\n".join(out)


def calibration_table(rows: Sequence[CalibrationRow]) -> Table:
    """A terminal table: one line per controller policy."""
    table = Table(
        title="predicted-VOC calibration (slope 1 and ECE 0 = calibrated)",
        # Two short lines: a narrow table (one policy) would otherwise break a phrase in two.
        caption="pred.: mean predicted VOC · real.: mean realised\ninfl.: inflation",
    )
    # Policy names are never cut (an 80-column terminal wraps the caption, not the names).
    table.add_column(
        "policy", no_wrap=True, min_width=max((len(r.policy) for r in rows), default=6)
    )
    for col in ("reads", "slope", "ECE", "pred.", "real.", "infl."):
        table.add_column(col, justify="right", no_wrap=True)
    for r in rows:
        table.add_row(
            r.policy,
            str(r.n),
            _slope(r),
            f"{r.ece:.3f}",
            f"{r.mean_predicted:.3f}",
            f"{r.mean_realised:.3f}",
            f"{r.inflation_share:.2f}",
        )
    return table
