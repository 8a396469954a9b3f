"""The numbers and word lists of the salience pipeline, in one typed object.

Every value comes from document 003 ("Attention System"); the section is named beside each field.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["DEFAULT_CONFIG", "SalienceConfig"]


@dataclass(frozen=True)
class SalienceConfig:
    """Constants of the five subsystems (document 003, "The Five Subsystems").

    Attributes:
        urgency_keywords: The ten urgency keywords (§1 Alerting Attention, ``_URGENCY_KEYWORDS``).
        strip_chars: Punctuation stripped from both ends of a word before it is compared
            (§1; the same normalisation is used by every subsystem, see ``docs/salience.md``).
        urgency_cap: Upper bound of the urgency score (§1, "capped at 1.0").
        topic_prepositions: Words whose following word is a topic (§2 Orienting Attention).
        sentence_end_chars: A word ending in one of these ends a sentence, so the next word is a
            sentence start (§2 says "not at the start of a sentence"; the boundary is our decision).
        sustained_overlap_threshold: Focus grows when *more than* this fraction of the previous
            turn's topics recur (§3 Sustained Attention, "more than 50%").
        executive_urgency_threshold: Urgency *above* this prioritises the urgent tools
            (§5 Executive Attention, "Urgency > 0.5").
        urgent_tools: Tools prioritised by high urgency (§5).
        file_words: File-related topic words (§5, "File-related topic words").
        file_tools: Tools prioritised by a file-related topic (§5).
        context_depth_base: History items to retrieve on a first turn ("Integration with the
            Runtime" step 4: "longer focus = more history for this topic"; the numbers are ours).
        context_depth_per_turn: Extra items per further turn of sustained focus.
        context_depth_cap: Most items, however long the focus.
    """

    urgency_keywords: frozenset[str] = field(
        default_factory=lambda: frozenset(
            {
                "error",
                "critical",
                "urgent",
                "broken",
                "down",
                "failed",
                "security",
                "immediately",
                "asap",
                "emergency",
            }
        )
    )
    strip_chars: str = "!.,?;:"
    urgency_cap: float = 1.0
    topic_prepositions: frozenset[str] = field(
        default_factory=lambda: frozenset({"about", "with", "for", "the"})
    )
    sentence_end_chars: str = ".!?"
    sustained_overlap_threshold: float = 0.5
    executive_urgency_threshold: float = 0.5
    urgent_tools: tuple[str, ...] = ("shell_exec", "file_read")
    file_words: frozenset[str] = field(
        default_factory=lambda: frozenset(
            {
                "file",
                "files",
                "directory",
                "folder",
                "path",
                "read",
                "write",
                "edit",
                "config",
                "log",
                "logs",
            }
        )
    )
    file_tools: tuple[str, ...] = ("file_read", "file_write")
    context_depth_base: int = 5
    context_depth_per_turn: int = 5
    context_depth_cap: int = 50


DEFAULT_CONFIG = SalienceConfig()
"""The configuration document 003 states."""
