from pathlib import Path

from app.settings import Settings

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_setting_is_documented_in_the_readme():
    text = README.read_text(encoding="utf-8")
    missing = [
        f"AWP_{name.upper()}"
        for name in Settings.model_fields
        if f"`AWP_{name.upper()}`" not in text
    ]
    assert not missing, f"settings missing from the README: {missing}"


def test_settings_read_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("AWP_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("AWP_TOP_K", "7")
    settings = Settings()
    assert settings.data_dir == tmp_path
    assert settings.sampling().top_k == 7
    assert settings.resolved_database_url() == f"sqlite:///{tmp_path / 'awp.db'}"
