"""Reports: terminal tables, report.html, layout, the timeline.

- :mod:`~heedful.bench.report.page` — ``print_tables``, ``render_html``, ``write_report``.
- :mod:`~heedful.bench.report.table`, :mod:`~heedful.bench.report.layout` — terminal tables.
- :mod:`~heedful.bench.report.agents`, :mod:`~heedful.bench.report.diagnostics`,
  :mod:`~heedful.bench.report.calibration`, :mod:`~heedful.bench.report.initiation`,
  :mod:`~heedful.bench.report.kinds` — the report's sections.
- :mod:`~heedful.bench.report.timeline` — a trial replayed step by step.

The ablation runs and their table (document 000 §21) are :mod:`heedful.bench.ablations`,
above the run folder they make. Import from those modules directly.
"""
