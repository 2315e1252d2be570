"""The reading part of the page: the questions people ask, as HTML and as schema.org data.

The texts live in the web catalogs (``web.faq.<key>_q`` / ``_a``); this module only says
which questions there are, in which order, and builds the FAQPage JSON-LD that search
engines read from the same texts, so the two can never disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["FAQ_KEYS", "REFERENCES", "Question", "faq", "faq_json_ld"]

# The seed page's six questions, in its order, then what issue 11 adds: which layouts it makes.
FAQ_KEYS = ("what", "formula", "epoch", "decode", "rate", "end", "layouts")

# (catalog key of the title, address): the seed's two references.
REFERENCES = (
    ("web.refs.twitter", "https://blog.twitter.com/engineering/en_us/a/2010/announcing-snowflake"),
    ("web.refs.wikipedia", "https://en.wikipedia.org/wiki/Snowflake_ID"),
)


@dataclass(frozen=True, slots=True)
class Question:
    key: str
    question: str
    answer: str


def faq(t: Callable[..., str]) -> list[Question]:
    """The questions and answers in the language of the translator ``t``."""
    return [Question(key, t(f"web.faq.{key}_q"), t(f"web.faq.{key}_a")) for key in FAQ_KEYS]


def faq_json_ld(questions: list[Question], lang: str) -> dict[str, Any]:
    """schema.org FAQPage data; the template serializes it with Jinja's ``tojson`` (which
    escapes ``<``, ``>``, ``&`` and ``'``, so no text can close the script element)."""
    return {
        "@context": "https://schema.org",
        "@type": "FAQPage",
        "inLanguage": lang,
        "mainEntity": [
            {
                "@type": "Question",
                "name": q.question,
                "acceptedAnswer": {"@type": "Answer", "text": q.answer},
            }
            for q in questions
        ],
    }
