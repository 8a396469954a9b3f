"""Reports: terminal tables, report.html, layout, the timeline, ablations.

- :mod:`~heedful.bench.report.page` — ``print_tables``, ``render_html``, ``write_report``.
- :mod:`~heedful.bench.report.table`, :mod:`~heedful.bench.report.layout` — terminal tables.
- :mod:`~heedful.bench.report.agents`, :mod:`~heedful.bench.report.diagnostics`,
  :mod:`~heedful.bench.report.calibration`, :mod:`~heedful.bench.report.initiation`,
  :mod:`~heedful.bench.report.kinds` — the report's sections.
- :mod:`~heedful.bench.report.timeline` — a trial replayed step by step.
- :mod:`~heedful.bench.report.ablations` — document 000 §21's ablation table.

Import from those modules directly.
"""
