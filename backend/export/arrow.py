"""Arrow schemas from row models, so every Parquet batch and datasets folder has one schema.

Inferring a schema from data fails on streams: a first batch whose optional column is all null
infers the null type, and the next batch no longer fits. The schema comes from the model instead.
"""

from __future__ import annotations

import types
from datetime import datetime
from typing import Any, Literal, Union, get_args, get_origin

import pyarrow as pa
from pydantic import BaseModel

_SCALARS: dict[Any, pa.DataType] = {
    str: pa.string(),
    int: pa.int64(),
    float: pa.float64(),
    bool: pa.bool_(),
    datetime: pa.timestamp("us", tz="UTC"),
}


def arrow_type(annotation: Any) -> tuple[pa.DataType, bool]:
    """The Arrow type of a field annotation and whether it is nullable.

    Raises:
        TypeError: the annotation has no Arrow mapping here (a row model uses an odd type).

    """
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) != 1:
            raise TypeError(f"unions other than Optional are not exportable: {annotation}")
        return arrow_type(args[0])[0], True
    if origin is Literal:
        return arrow_type(type(get_args(annotation)[0]))[0], False
    if origin is list:
        return pa.list_(arrow_type(get_args(annotation)[0])[0]), False
    if annotation in _SCALARS:
        return _SCALARS[annotation], False
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return pa.struct(list(arrow_schema(annotation))), False
    raise TypeError(f"no Arrow type for {annotation!r}")


def arrow_schema(model: type[BaseModel]) -> pa.Schema:
    """The Arrow schema of a row model, fields in declaration order."""
    fields = []
    for name, info in model.model_fields.items():
        data_type, nullable = arrow_type(info.annotation)
        fields.append(pa.field(name, data_type, nullable=nullable))
    return pa.schema(fields)
