"""Logins and roles: password users, admins, who annotations are recorded for, export rights."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gradio_client import Client

from app.auth import ANONYMOUS, Auth, admin_names, credentials
from app.settings import Settings
from tests.support.annotate import annotate, submit
from tests.support.app_server import RunningApp, named, start_app
from ui.users import User

USERS = "alice:wonder land,bob:builder"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningApp]:
    running = start_app(
        tmp_path_factory.mktemp("ui-auth"), users=USERS, admins="alice", anonymous_role="annotator"
    )
    yield running
    running.close()


def login(app: RunningApp, name: str, password: str) -> Client:
    return Client(app.url, auth=(name, password), verbose=False)


def test_settings_parse_logins_and_admins():
    settings = Settings(users=USERS, admins=" alice , carol ")
    assert credentials(settings) == {"alice": "wonder land", "bob": "builder"}
    assert admin_names(settings) == {"alice", "carol"}


def test_password_check_and_anonymous_role():
    auth = Auth(Settings(users=USERS, anonymous_role="annotator"))
    assert auth.requires_login
    assert auth.check("bob", "builder") and not auth.check("bob", "Builder")
    assert not auth.check("mallory", "builder")
    assert auth.identify(None).name == ANONYMOUS and not auth.identify(None).is_admin
    assert auth.identify(None, individual=True) == User(ANONYMOUS)  # no request: nobody


def test_no_users_means_no_login_page_and_local_admin():
    auth = Auth(Settings(users="", anonymous_role="admin"))
    assert not auth.requires_login and auth.identify(None).is_admin


def test_the_app_refuses_strangers(app: RunningApp):
    with pytest.raises(Exception):  # noqa: B017 - any refusal will do; which one is Gradio's
        Client(app.url, auth=("bob", "wrong"), verbose=False)


def test_annotations_record_the_annotator_and_exports_need_admin(app: RunningApp):
    bob = login(app, "bob", "builder")
    assert "Signed in as **bob** · role: annotator" in bob.predict(api_name="/whoami")[0]
    loaded = named(bob.predict("terminal", "mkrww/errors", 0, api_name="/load_turn"))
    bob.predict(loaded["action"], engine="persistence", api_name="/step")
    annotate(bob, "next", "terminal")
    saved = submit(bob, "fixed", "reject", domain="terminal")
    assert saved["progress"]["data"][0][:6] == ["bob", "terminal", 1, 0, 1, 0]
    assert "<b>you</b> bob" in saved["queue"]  # a login is one person in every browser
    refused = bob.predict(
        format="dpo", domain="", since="", min_rating=0, api_name="/export_preview"
    )
    assert "Only admins" in refused[2] and "awp-inline-error" in refused[2]  # beside the button

    alice = login(app, "alice", "wonder land")
    assert "role: admin" in alice.predict(api_name="/whoami")[0]
    count, rows, _ = alice.predict(
        format="dpo", domain="", since="", min_rating=0, api_name="/export_preview"
    )
    assert count == "**1** rows match." and '"annotator": "bob"' in rows
    everyone = annotate(alice, "next", "web")["progress"]["data"]
    assert any(row[0] == "bob" for row in everyone)  # admins see everyone's progress


def test_only_admins_point_engines_at_other_servers(app: RunningApp):
    bob = login(app, "bob", "builder")
    loaded = named(bob.predict("terminal", "mkrww/errors", 0, api_name="/load_turn"))
    with pytest.raises(Exception, match="Only admins can point the engine"):
        bob.predict(
            loaded["action"],
            engine="openai",
            base_url="http://169.254.169.254/v1",
            api_name="/step",
        )


def test_only_admins_choose_another_model(app: RunningApp):
    bob = login(app, "bob", "builder")
    loaded = named(bob.predict("terminal", "mkrww/errors", 0, api_name="/load_turn"))
    with pytest.raises(Exception, match="Only admins can choose another model"):
        bob.predict(loaded["action"], engine="openai", model="model-0001", api_name="/step")

    alice = login(app, "alice", "wonder land")
    loaded = named(alice.predict("terminal", "mkrww/errors", 0, api_name="/load_turn"))
    stepped = named(
        alice.predict(loaded["action"], engine="persistence", model="any-name", api_name="/step")
    )
    assert "prediction #" in stepped["status"]
