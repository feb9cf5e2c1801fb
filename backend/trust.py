"""The trust rule: when an annotator's correction may answer as reality for everybody.

A correction is a candidate truth, not the truth (DESIGN, "Provenance and trust"). It grounds a
model and answers a step from the record only once the rule trusts it:

- its author's role (stored with the annotation when it was written) is one of the trusted
  roles (by default admin and reviewer) and the author signed in: a role alone never vouches
  for an anonymous person (the default `AWP_ANONYMOUS_ROLE=admin` of a personal machine
  included), so one anonymous visitor's text never answers for anybody else; or
- at least `agreeing` (by default 2) distinct annotators established the same truth for the
  same prediction (texts compared with their whitespace normalised), never one person alone;
- a correction that contradicts a trusted one is rejected.

Everything else stays unreviewed: it is kept, exported with its state and shown to its author,
but it answers for nobody. The rule is set in Settings (`AWP_TRUST_ROLES`,
`AWP_TRUST_AGREEING`, `AWP_REVIEWERS`) and read here only; storage gives it every annotation of
a prediction at read time, so a second agreeing annotator or a reviewer changes the state at
once, without anything being rewritten.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from backend.provenance import ReviewState
from backend.scoring.text import normalise_whitespace

ROLES = ("annotator", "reviewer", "admin")
"""The roles a person can have; an annotation stores its author's."""
DEFAULT_TRUSTED_ROLES = frozenset({"admin", "reviewer"})
DEFAULT_AGREEING = 2
ANONYMOUS = "anonymous"
"""The name of people who are not signed in ("anonymous", or "anonymous-<id>" per identity)."""


def is_anonymous(author: str) -> bool:
    """Whether an annotator's name is an anonymous identity's rather than a signed-in person's."""
    return author == ANONYMOUS or author.startswith(f"{ANONYMOUS}-")


@dataclass(frozen=True)
class Claim:
    """One annotator's truth for a prediction (an accept's prediction, a reject's correction).

    Attributes:
        annotation_id: the annotation.
        author: the annotator's name (one annotation per annotator and prediction).
        role: the author's role when they wrote it (None: written before roles were stored).
        truth: the next state the annotation establishes.
    """

    annotation_id: int
    author: str
    role: str | None
    truth: str


@dataclass(frozen=True)
class Review:
    """A claim's state under the rule, and why it is trusted ("" when it is not)."""

    state: ReviewState
    trusted_by: str = ""

    @property
    def trusted(self) -> bool:
        """Whether the claim may answer as reality."""
        return self.state == "trusted"


UNREVIEWED = Review("unreviewed")


class TrustRule(BaseModel):
    """Which corrections are trusted (module docstring); frozen, built once by `app`.

    Attributes:
        roles: the roles whose single correction is trusted.
        agreeing: how many distinct annotators must establish the same truth (at least 2).
    """

    model_config = ConfigDict(frozen=True)

    roles: frozenset[str] = DEFAULT_TRUSTED_ROLES
    agreeing: int = Field(default=DEFAULT_AGREEING, ge=2)

    def reviews(self, claims: Sequence[Claim]) -> dict[int, Review]:
        """The state of every claim of one prediction, by annotation id.

        Args:
            claims: all the claims made for the prediction (cannot-tell verdicts establish
                none and are left out by the caller).
        """
        groups: dict[str, list[Claim]] = defaultdict(list)
        for claim in claims:
            groups[normalise_whitespace(claim.truth)].append(claim)
        trusted: dict[str, str] = {}
        for key, group in groups.items():
            vouching = sorted({c.role for c in group if c.role is not None and self._vouches(c)})
            people = {c.author for c in group}
            if vouching:
                trusted[key] = " and ".join(vouching)
            elif len(people) >= self.agreeing:
                trusted[key] = f"{len(people)} agreeing annotators"
        found: dict[int, Review] = {}
        for key, group in groups.items():
            for claim in group:
                if key in trusted:
                    found[claim.annotation_id] = Review("trusted", self._why(claim, trusted[key]))
                else:
                    found[claim.annotation_id] = Review("rejected" if trusted else "unreviewed")
        return found

    def _vouches(self, claim: Claim) -> bool:
        """Whether the claim's author alone makes it trusted: a trusted role, signed in."""
        return claim.role in self.roles and not is_anonymous(claim.author)

    def _why(self, claim: Claim, group_reason: str) -> str:
        """The claim's own role when that vouches for it, else what its group has."""
        if self._vouches(claim) and claim.role is not None:
            return claim.role
        if group_reason.endswith("agreeing annotators"):
            return group_reason
        return f"agrees with a {group_reason}"

    def review(self, annotation_id: int, claims: Sequence[Claim]) -> Review:
        """One claim's state among all the claims of its prediction (unreviewed if absent)."""
        return self.reviews(claims).get(annotation_id, UNREVIEWED)

    def describe(self) -> str:
        """The rule in words, for Settings pages and the manual."""
        roles = " or ".join(sorted(self.roles)) or "no role"
        return (
            f"a correction is trusted when its author is a signed-in {roles}, or when "
            f"{self.agreeing} different annotators give the same truth for the same "
            "prediction; one annotator alone never is, and a correction that contradicts a "
            "trusted one is rejected"
        )


def parse_roles(text: str) -> frozenset[str]:
    """Comma-separated role names as a set; empty names are dropped."""
    return frozenset(part.strip() for part in text.split(",") if part.strip())
