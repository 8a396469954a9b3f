"""The goal coherence check of document 002 §3.2.4, applied to every proposed sub-goal.

"Before proposing, verify the coverage gap is semantically related to at least one existing
user-created or system-created goal. This prevents the attention engine from wandering into
regions the user never cared about." Decomposition (§3.2.1 strategy 4) proposes sub-goals; the
engine runs this check on each before writing or activating any, whichever decomposer proposed
it. Pure: goals in, verdicts out.

A sub-goal passes when

1. its subject (``metadata.subject``, else its title without the "Learn about"/"Establish"
   lead-in) has content words — not only stop-words or fragments under three letters;
2. it is *grounded* — it names a claim (``metadata.claim_id``) or links nodes — or, when it is
   not, its subject is more than words of its parent's own title (a sub-goal "Learn about
   percent" of "Cut cloud cost by 10 percent" restates a fragment of the parent and can only
   drive busywork);
3. it is related to a user or system goal: it shares a content word or a linked node with one
   (§3.2.4), the parent included when the parent is itself a user or system goal;
4. it does not duplicate a goal that already exists (same id or same title).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from heedful.engine.coverage import terms
from heedful.model.goal import Goal, GoalSource

__all__ = ["SUBJECT", "Verdict", "check_sub_goal", "check_sub_goals", "subject_terms"]

#: Sub-goal metadata: what the sub-goal is about (the words the check reads).
SUBJECT = "subject"
#: Sub-goal metadata: the claim a grounded sub-goal establishes.
CLAIM = "claim_id"

# Lead-ins of generated titles; they say nothing about the subject.
_LEAD_INS = ("learn about", "establish", "refresh knowledge:", "find out", "research")


@dataclass(frozen=True)
class Verdict:
    """The coherence check's answer for one sub-goal.

    Attributes:
        goal: The sub-goal checked.
        ok: Whether it may be written and activated.
        reason: Why not (empty when ok), or which goal it is related to.
    """

    goal: Goal
    ok: bool
    reason: str


def _subject(goal: Goal) -> str:
    subject = goal.metadata.get(SUBJECT)
    if isinstance(subject, str):
        return subject
    title = goal.title.strip()
    for lead in _LEAD_INS:
        if title.lower().startswith(lead):
            return title[len(lead) :]
    return title


def subject_terms(goal: Goal) -> list[str]:
    """The content words of what ``goal`` is about (its claim's words included)."""
    claim = goal.metadata.get(CLAIM)
    return terms(f"{_subject(goal)} {claim if isinstance(claim, str) else ''}")


def _anchor_terms(goal: Goal) -> set[str]:
    return set(terms(f"{goal.title} {goal.description}")) | {
        w for d in goal.depends_on for w in terms(d.claim_id)
    }


def check_sub_goal(sub: Goal, parent: Goal, goals: Sequence[Goal]) -> Verdict:
    """Run the four conditions of the module docstring on one proposed sub-goal.

    Args:
        sub: The proposed sub-goal.
        parent: The goal it was decomposed from.
        goals: Every goal that exists now (anchors and possible duplicates).
    """
    words = set(subject_terms(sub))
    if not words:
        return Verdict(sub, False, f"'{sub.title}': only stop-words or fragments, no subject")
    grounded = isinstance(sub.metadata.get(CLAIM), str) or bool(sub.linked_node_ids)
    parent_words = set(terms(parent.title))
    if not grounded and words <= parent_words:
        return Verdict(
            sub,
            False,
            f"'{sub.title}': only repeats words of its parent '{parent.title}' "
            f"({', '.join(sorted(words))}) and names nothing in memory",
        )
    for other in goals:
        if other.id != sub.id and other.title.strip().lower() == sub.title.strip().lower():
            return Verdict(sub, False, f"'{sub.title}': duplicates goal {other.id}")
    anchors = [g for g in (parent, *goals) if g.source in (GoalSource.USER, GoalSource.SYSTEM)]
    for anchor in anchors:
        shared = words & _anchor_terms(anchor)
        linked = set(sub.linked_node_ids) & set(anchor.linked_node_ids)
        if shared or linked:
            why = ", ".join(sorted(shared)) or f"{len(linked)} linked node(s)"
            return Verdict(sub, True, f"related to {anchor.id} ({why})")
    return Verdict(
        sub,
        False,
        f"'{sub.title}': unrelated to any user or system goal (document 002 §3.2.4 "
        "coherence check)",
    )


def check_sub_goals(
    subs: Sequence[Goal], parent: Goal, goals: Sequence[Goal]
) -> tuple[list[Goal], list[Verdict]]:
    """Split proposed sub-goals into those that pass and the verdicts of those that do not.

    Sub-goals accepted earlier in the same batch count as existing goals (no duplicates within
    one decomposition).
    """
    kept: list[Goal] = []
    refused: list[Verdict] = []
    for sub in subs:
        verdict = check_sub_goal(sub, parent, [*goals, *kept])
        if verdict.ok:
            kept.append(sub)
        else:
            refused.append(verdict)
    return kept, refused
