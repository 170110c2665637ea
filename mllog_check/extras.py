"""Optional dependencies: the ``analysis`` extra (pandas, pyarrow, scipy, matplotlib, rich).

The core install (``pip install mllog-check``, what the pre-commit hook installs) runs
parse, check, score and package; DataFrames, Parquet, plots, rich tables and the HTML
report need ``pip install 'mllog-check[analysis]'``. ``require`` imports one of them
where it is needed and names the extra when it is missing.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import UsageError

EXTRA = "analysis"


class MissingExtra(UsageError, ImportError):
    """An optional dependency of the analysis extra is not installed."""


def require(module: str, what: str) -> ModuleType:
    """``import module`` for ``what`` (e.g. "Parquet output"), or MissingExtra naming the
    extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        package = module.split(".", 1)[0]
        raise MissingExtra(
            f"{what} needs {package}, which the core install leaves out: "
            f"pip install 'mllog-check[{EXTRA}]'"
        ) from err
