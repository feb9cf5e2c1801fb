import importlib.util
from pathlib import Path

from app.settings import Settings

HOOK = Path(__file__).resolve().parents[2] / "docs" / "hooks" / "reference.py"


def reference_hook():
    """The MkDocs hook that writes the reference pages, loaded as the docs build loads it."""
    spec = importlib.util.spec_from_file_location("docs_reference_hook", HOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_setting_has_a_description():
    # The settings reference is generated from the descriptions: a blank one is a blank row.
    blank = [
        f"AWP_{name.upper()}"
        for name, field in Settings.model_fields.items()
        if not (field.description or "").strip()
    ]
    assert not blank, f"settings without a description: {blank}"


def test_the_generated_settings_page_documents_every_setting():
    page = reference_hook().settings_page()
    rows = {line.split("|")[1].strip(" `") for line in page.splitlines() if line.startswith("| `")}
    assert rows == {f"AWP_{name.upper()}" for name in Settings.model_fields}
    for name, field in Settings.model_fields.items():
        assert " ".join((field.description or "").split()).replace("|", "\\|") in page, name


def test_the_generated_cli_page_documents_every_command():
    page = reference_hook().cli_page()
    for command in ("awp simulate", "awp bench", "awp annotations import", "awp db upgrade"):
        assert f"`{command}`" in page
    assert "<code>--record-answers / --no-record-answers</code>" in page


def test_settings_read_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("AWP_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("AWP_TOP_K", "7")
    settings = Settings()
    assert settings.data_dir == tmp_path
    assert settings.sampling().top_k == 7
    assert settings.resolved_database_url() == f"sqlite:///{tmp_path / 'awp.db'}"
