"""mllog-check: parse, check, score and cost-normalize MLPerf Training logs.

The library prints nothing; ``mllog_check.cli`` is a thin layer over it.
pandas is imported only by the functions that return DataFrames.
"""

from __future__ import annotations

from .checking import CheckRun, check_paths
from .errors import DataError, MllogCheckError, ReadError, UsageError
from .parsing import (
    RecordStream,
    iter_records,
    parse_bytes,
    parse_file,
    parse_paths,
    parse_text,
    stream_paths,
)
from .problems import Problem, Severity
from .records import Generation, ParseResult, Record

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any

    import pandas as pd

    from .records import RecordRow

__version__ = "0.2.0"

__all__ = [
    "CheckRun",
    "DataError",
    "Generation",
    "MllogCheckError",
    "ParseResult",
    "Problem",
    "ReadError",
    "Record",
    "RecordStream",
    "Severity",
    "UsageError",
    "check_paths",
    "iter_records",
    "parse_bytes",
    "parse_file",
    "parse_paths",
    "parse_text",
    "records_frame",
    "stream_paths",
]


def records_frame(results: Any) -> pd.DataFrame:
    """A DataFrame of records (one row each) from ParseResults or Records; pandas (the
    analysis extra) loads here."""
    from .extras import require

    pandas = require("pandas", "records_frame (a DataFrame)")
    rows: list[RecordRow] = []
    for item in results if isinstance(results, list | tuple) else list(results):
        records = item.records if isinstance(item, ParseResult) else [item]
        rows.extend(r.to_dict() for r in records)
    columns = list(Record._fields)
    frame: pd.DataFrame = pandas.DataFrame(rows, columns=columns)
    return frame
