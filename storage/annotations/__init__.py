"""The annotation service: review queue with claims, versioned annotations, progress, agreement."""

from storage.annotations.importer import parse_import_file
from storage.annotations.queue import AnnotationQueue
from storage.annotations.stats import (
    Agreement,
    AnnotatorProgress,
    DomainProgress,
    agreement,
    annotator_progress,
    domain_progress,
)
from storage.annotations.store import AnnotationStore, ImportResult
from storage.annotations.types import (
    AnnotationEdit,
    AnnotationInput,
    AnnotationRecord,
    ImportRow,
    QueueFilter,
    QueueItem,
    Ratings,
)

__all__ = [
    "Agreement",
    "AnnotationEdit",
    "AnnotationInput",
    "AnnotationQueue",
    "AnnotationRecord",
    "AnnotationStore",
    "AnnotatorProgress",
    "DomainProgress",
    "ImportResult",
    "ImportRow",
    "QueueFilter",
    "QueueItem",
    "Ratings",
    "agreement",
    "annotator_progress",
    "domain_progress",
    "parse_import_file",
]
