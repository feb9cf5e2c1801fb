"""The annotation service: review queue with claims, versioned annotations, progress, agreement."""

from storage.annotations.importer import parse_import_file
from storage.annotations.queue import AnnotationQueue
from storage.annotations.rules import RULES, explain
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
    CorrectionPlace,
    HeldElsewhere,
    ImportRow,
    QueueFilter,
    QueueItem,
    Ratings,
)

__all__ = [
    "RULES",
    "Agreement",
    "AnnotationEdit",
    "AnnotationInput",
    "AnnotationQueue",
    "AnnotationRecord",
    "AnnotationStore",
    "AnnotatorProgress",
    "CorrectionPlace",
    "DomainProgress",
    "HeldElsewhere",
    "ImportResult",
    "ImportRow",
    "QueueFilter",
    "QueueItem",
    "Ratings",
    "agreement",
    "annotator_progress",
    "domain_progress",
    "explain",
    "parse_import_file",
]
