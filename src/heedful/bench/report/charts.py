"""What every chart of report.html shares: axis ticks, and one colour per policy for the page.

Ticks are "nice" numbers (1, 2 or 5 × a power of ten) spanning the data, so every axis has
labelled values, not only its ends. A policy keeps its colour in every chart of the page: the
colours are handed out once, in the order of the overall ranking.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

__all__ = ["PALETTE", "nice_ticks", "policy_colours", "x_axis", "y_axis"]

#: Twenty distinguishable colours (Tableau 20's order, darker tones first); more policies than
#: this reuse them in order, each still fixed for the whole page.
PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#aec7e8",
    "#ffbb78",
    "#98df8a",
    "#ff9896",
    "#c5b0d5",
    "#c49c94",
    "#f7b6d2",
    "#c7c7c7",
    "#dbdb8d",
    "#9edae5",
)


def policy_colours(names: Sequence[str]) -> dict[str, str]:
    """A colour per policy name, in the given order (the page's overall ranking)."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(dict.fromkeys(names))}


def nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """About ``target`` round values covering ``[lo, hi]`` (1, 2, 2.5 or 5 × 10^k apart).

    Example:
        >>> nice_ticks(-12.0, 100.0)
        [-25.0, 0.0, 25.0, 50.0, 75.0, 100.0]
    """
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo] if math.isfinite(lo) else []
    raw = (hi - lo) / max(target, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.floor(lo / step + 1e-9) * step
    count = math.ceil((hi - first) / step - 1e-9) + 1
    return [round(first + k * step, 12) + 0.0 for k in range(count)]


def _label(value: float, step: float) -> str:
    """``value`` with as many decimals as the tick step needs (0.25 apart: two)."""
    digits = next((d for d in range(7) if abs(round(step, d) - step) < 1e-9 * max(step, 1)), 6)
    return f"{value:.{digits}f}"


def x_axis(
    ticks: Sequence[float],
    x: Callable[[float], float],
    *,
    y_top: float,
    y_bottom: float,
    label: str,
    label_x: float,
) -> str:
    """Vertical grid lines at ``ticks``, their values under the plot, and the axis label."""
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    parts = [
        f"<line x1='{x(t):.1f}' y1='{y_top:.1f}' x2='{x(t):.1f}' y2='{y_bottom:.1f}' "
        f"stroke='{'#888' if t == 0 else '#e3e6ee'}'/>"
        f"<text x='{x(t):.1f}' y='{y_bottom + 12:.1f}' text-anchor='middle'>"
        f"{_label(t, step)}</text>"
        for t in ticks
    ]
    parts.append(
        f"<text x='{label_x:.1f}' y='{y_bottom + 26:.1f}' text-anchor='middle' "
        f"class='axis'>{label}</text>"
    )
    return "".join(parts)


def y_axis(
    ticks: Sequence[float],
    y: Callable[[float], float],
    *,
    x_left: float,
    x_right: float,
    label: str,
    label_y: float,
) -> str:
    """Horizontal grid lines at ``ticks``, their values left of the plot, and the axis label
    (written upwards)."""
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    parts = [
        f"<line x1='{x_left:.1f}' y1='{y(t):.1f}' x2='{x_right:.1f}' y2='{y(t):.1f}' "
        "stroke='#e3e6ee'/>"
        f"<text x='{x_left - 4:.1f}' y='{y(t) + 3:.1f}' text-anchor='end'>"
        f"{_label(t, step)}</text>"
        for t in ticks
    ]
    parts.append(
        f"<text x='10' y='{label_y:.1f}' transform='rotate(-90 10 {label_y:.1f})' "
        f"text-anchor='middle' class='axis'>{label}</text>"
    )
    return "".join(parts)
