"""LLM agents under test: the agent contract, its tool environment, the runner, advice, outcomes.

- :mod:`~heedful.bench.agents.contract` — what an agent is (``Agent``, registry).
- :mod:`~heedful.bench.agents.env` — the tools an agent gets and what they record.
- :mod:`~heedful.bench.agents.runner`, :mod:`~heedful.bench.agents.suite` — running agents.
- :mod:`~heedful.bench.agents.advice` — the controller's advice to an ``-advised`` agent.
- :mod:`~heedful.bench.agents.outcome`, :mod:`~heedful.bench.agents.aggregate` — scoring them.

The code that talks to a model endpoint lives in :mod:`heedful.integrations.llm`. Import from the
modules directly.
"""
