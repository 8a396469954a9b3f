"""What a policy or an agent under test is handed: the task view of a scenario.

A policy never receives the scenario's id, family or condition (document 000 §22: an id could
identify a scenario and, through a public generator, its private truth; the condition is a label
the agent must not read). The two conditions differ only in the task text: in the announced
condition the runner appends :data:`ANNOUNCEMENT` (the budget and that inspection is available);
in the unprompted condition the task is only the decision request (document 000 §15.1).
"""

from __future__ import annotations

from heedful.model import Condition, Scenario, TaskView

__all__ = ["ANNOUNCEMENT", "announce", "policy_view"]

#: Appended to the task in the announced condition (``{budget}`` is the scenario's budget).
ANNOUNCEMENT = (
    "Before you decide, you may inspect up to {budget} of the listed sources "
    "(each inspection has a cost); choose which ones are worth it."
)
#: The announced condition with a budget of zero.
NO_INSPECTION = "Decide now: no inspection is available for this task."


def announce(task: str, budget: int) -> str:
    """The announced condition's task text: the task plus the inspection announcement."""
    extra = ANNOUNCEMENT.format(budget=budget) if budget > 0 else NO_INSPECTION
    return f"{task.rstrip()} {extra}".strip()


def policy_view(scenario: Scenario) -> TaskView:
    """The task view a policy or agent gets for ``scenario`` (no id, family or condition)."""
    view = scenario.view.task_view()
    if scenario.view.condition is Condition.ANNOUNCED:
        return view.model_copy(update={"task": announce(view.task, view.budget)})
    return view
