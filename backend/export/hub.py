"""Pushing an export to the Hugging Face Hub as a dataset repository."""

from __future__ import annotations

from pathlib import Path

from backend.errors import ExportError

DATA_DIR = "data"


def resolve_token(token: str | None) -> str:
    """The token to push with: the one given, else HF_TOKEN or a stored `hf auth login`.

    Raises:
        ExportError: no token anywhere.

    """
    if token:
        return token
    from huggingface_hub import get_token

    found = get_token()
    if not found:
        raise ExportError(
            "Pushing to the Hub needs a Hugging Face token with write access: set HF_TOKEN, "
            "run `hf auth login`, or pass --token. What was to be pushed is written locally."
        )
    return found


def push_export(
    path: Path,
    repo_id: str,
    token: str | None,
    card: str,
    endpoint: str | None = None,
    repo_type: str = "dataset",
) -> str:
    """Upload an export (a file or a datasets folder) and its card to a dataset repository.

    A trained model folder (with its card as README.md) goes the same way with
    `repo_type="model"`.

    A plain file goes under `data/` with the card as README.md, so `load_dataset(repo)` reads
    it; a datasets folder is uploaded as it is (its README is the card).

    Args:
        path: the written export.
        repo_id: `user/name` of the dataset repository (created private when missing).
        token: a token, or None to look one up.
        card: the dataset card text.
        endpoint: the Hub URL (default: huggingface.co, or HF_ENDPOINT).
        repo_type: `dataset` for exports, `model` for a trained model folder.

    Returns:
        The repository URL.

    Raises:
        ExportError: no token, no network, offline mode, or the Hub refused the upload.

    """
    from huggingface_hub import HfApi
    from huggingface_hub.errors import (
        HfHubHTTPError,
        HFValidationError,
        HTTPError,
        OfflineModeIsEnabled,
    )

    api = HfApi(endpoint=endpoint, token=resolve_token(token))
    try:
        url = api.create_repo(repo_id, repo_type=repo_type, private=True, exist_ok=True)
        if path.is_dir():
            api.upload_folder(repo_id=repo_id, folder_path=path, repo_type=repo_type)
        else:
            api.upload_file(
                path_or_fileobj=path,
                path_in_repo=f"{DATA_DIR}/{path.name}",
                repo_id=repo_id,
                repo_type="dataset",
            )
            api.upload_file(
                path_or_fileobj=card.encode("utf-8"),
                path_in_repo="README.md",
                repo_id=repo_id,
                repo_type="dataset",
            )
    except OfflineModeIsEnabled:
        raise ExportError(
            "Cannot push: Hugging Face offline mode is on (HF_HUB_OFFLINE). What was to be "
            "pushed is written locally."
        ) from None
    except (HfHubHTTPError, HFValidationError) as exc:  # before HTTPError: a subclass
        raise ExportError(f"The Hub refused the push to {repo_id}: {exc}") from None
    except (HTTPError, OSError) as exc:
        raise ExportError(
            f"Cannot reach the Hugging Face Hub to push {repo_id} ({exc}); what was to be pushed "
            "is written locally: push it later with --push when online."
        ) from None
    return str(url)
