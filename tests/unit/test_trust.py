"""The trust rule on its own: roles, agreement, contradiction, and the rule built from Settings."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.auth import Auth
from app.settings import Settings
from backend.trust import Claim, Review, TrustRule


def claim(annotation_id: int, author: str, truth: str, role: str | None = "annotator") -> Claim:
    return Claim(annotation_id, author, role, truth)


def test_one_annotator_alone_is_never_trusted() -> None:
    rule = TrustRule()
    assert rule.reviews([claim(1, "anonymous-1", "POISON")]) == {1: Review("unreviewed")}
    # Without a stored role (written before roles were), a correction is an annotator's.
    assert not rule.review(1, [claim(1, "old", "x", role=None)]).trusted


def test_a_trusted_role_is_trusted_alone() -> None:
    rule = TrustRule()
    assert rule.review(1, [claim(1, "rev", "x", "reviewer")]) == Review("trusted", "reviewer")
    assert rule.review(1, [claim(1, "boss", "x", "admin")]) == Review("trusted", "admin")
    assert (
        not TrustRule(roles=frozenset({"admin"}))
        .review(1, [claim(1, "r", "x", "reviewer")])
        .trusted
    )


def test_a_role_never_vouches_for_an_anonymous_person_alone() -> None:
    """The default anonymous role is admin (a personal machine): still one anonymous person."""
    rule = TrustRule()
    assert rule.review(1, [claim(1, "anonymous-3f2a", "POISON", "admin")]) == Review("unreviewed")
    assert not rule.review(1, [claim(1, "anonymous", "POISON", "reviewer")]).trusted
    # Two anonymous identities that agree are two people.
    agreeing = [claim(1, "anonymous-1", "x", "admin"), claim(2, "anonymous-2", "x", "admin")]
    assert rule.review(1, agreeing) == Review("trusted", "2 agreeing annotators")


def test_agreeing_annotators_are_trusted_by_normalised_text() -> None:
    rule = TrustRule()
    found = rule.reviews(
        [
            claim(1, "a", "line one\nline  two\n"),
            claim(2, "b", "line one \nline two"),
            claim(3, "c", "other"),
        ]
    )
    assert found[1] == found[2] == Review("trusted", "2 agreeing annotators")
    assert found[3] == Review("rejected")  # it contradicts a trusted truth
    # The same person twice is one person, and three are needed where the rule says so.
    assert not rule.review(1, [claim(1, "a", "x"), claim(2, "a", "x")]).trusted
    assert not TrustRule(agreeing=3).review(1, [claim(1, "a", "x"), claim(2, "b", "x")]).trusted


def test_a_reviewer_outweighs_agreement_and_vouches_for_who_agrees() -> None:
    found = TrustRule().reviews(
        [claim(1, "a", "wrong"), claim(2, "b", "right"), claim(3, "rev", "right", "reviewer")]
    )
    assert found == {
        1: Review("rejected"),
        2: Review("trusted", "agrees with a reviewer"),
        3: Review("trusted", "reviewer"),
    }


def test_the_rule_needs_two_people_at_least() -> None:
    with pytest.raises(ValidationError):
        TrustRule(agreeing=1)


def test_settings_build_the_rule_and_refuse_unknown_roles() -> None:
    rule = Settings(trust_roles="admin", trust_agreeing=3).trust_rule()
    assert (rule.roles, rule.agreeing) == (frozenset({"admin"}), 3)
    assert Settings().trust_rule() == TrustRule()
    with pytest.raises(ValidationError, match="unknown roles reviewr"):
        Settings(trust_roles="admin,reviewr")


def test_reviewers_are_named_in_settings() -> None:
    class Request:
        username = "rita"

    auth = Auth(Settings(users="rita:pw,ann:pw", reviewers="rita", admins="boss"))
    assert auth.identify(Request()).role == "reviewer"  # type: ignore[arg-type]
    Request.username = "ann"
    assert auth.identify(Request()).role == "annotator"  # type: ignore[arg-type]
    Request.username = "boss"
    assert auth.identify(Request()).role == "admin"  # type: ignore[arg-type]
