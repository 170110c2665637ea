"""Price catalogs: CSV or YAML files of sourced system prices, checked by a JSON Schema.

Formats and merge rules are documented in docs/cost.md; the schema is
``schemas/prices.schema.json``. Every error names the file and the row (CSV: file
line; YAML: line of the entry), because a wrong price silently used is worse than
no comparison at all.
"""

from __future__ import annotations

import csv
import datetime as _dt
import fnmatch
import io
import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ReadError

if TYPE_CHECKING:
    from ..datafiles import Document

KINDS = ("list", "street", "estimated", "cloud-hourly")
REQUIRED_COLUMNS = ("system", "price", "currency", "kind", "includes", "source", "date")
OPTIONAL_COLUMNS = ("aliases", "description", "kwh_price", "life_years", "utilization")
# Optional numbers of an entry (CSV cells read as numbers; an empty cell is absent).
NUMBER_COLUMNS = ("kwh_price", "life_years", "utilization")


class PriceCatalogError(ReadError, ValueError):
    """A catalog that cannot be used: the message names the file and the row."""


@dataclass(frozen=True, slots=True)
class PriceEntry:
    system: str
    aliases: tuple[str, ...]
    price: float
    currency: str
    kind: str
    includes: str
    source: str
    date: str
    description: str = ""
    kwh_price: float | None = None  # electricity at the system's site, per kWh (optional)
    # A purchase price's amortization (optional; --life-years/--utilization override):
    # with both stated, cost_per_run is given for the purchase price (docs/cost.md).
    life_years: float | None = None
    utilization: float | None = None
    # Where the entry came from, for error messages and footnotes.
    path: str = ""
    row: int = 0

    @property
    def hourly(self) -> bool:
        return self.kind == "cloud-hourly"

    def names(self) -> tuple[str, ...]:
        return (self.system, *self.aliases)

    def matches(self, name: str) -> bool:
        """Case-insensitive equality with the system or an alias; aliases may be patterns."""
        wanted = name.casefold()
        for candidate in self.names():
            pattern = candidate.casefold()
            if pattern == wanted:
                return True
            if _is_pattern(pattern) and fnmatch.fnmatchcase(wanted, pattern):
                return True
        return False

    def facts(self) -> tuple[object, ...]:
        """Everything but the location: two entries with equal facts are the same quote."""
        return (self.system, self.aliases, self.price, self.currency, self.kind,
                self.includes, self.source, self.date, self.description,
                self.kwh_price, self.life_years, self.utilization)  # fmt: skip

    def where(self) -> str:
        return f"{self.path}:{self.row}"

    def by_pattern(self, name: str) -> bool:
        """Whether ``name`` is priced here only through a pattern alias (``ipu-pod16-*``),
        not by a name written out."""
        wanted = name.casefold()
        return self.matches(name) and all(n.casefold() != wanted for n in self.names())


def _is_pattern(name: str) -> bool:
    return any(ch in name for ch in "*?[")


@cache
def schema() -> Document:
    text = resources.files("mllog_check.schemas").joinpath("prices.schema.json").read_text()
    loaded: Document = json.loads(text)
    return loaded


def currencies() -> tuple[str, ...]:
    return tuple(schema()["$defs"]["entry"]["properties"]["currency"]["enum"])


def load_catalog(path: str | Path) -> list[PriceEntry]:
    """Read one catalog (``.csv``, ``.yaml``/``.yml``); raise PriceCatalogError when bad."""
    name = str(path)
    from ..inputs import InputError, read_in_tree

    try:  # a regular file of bounded size (docs/security.md); spreadsheets write a BOM
        text = read_in_tree(Path(path), None, CATALOG_LIMIT).decode("utf-8-sig")
    except (InputError, UnicodeDecodeError) as exc:
        raise PriceCatalogError(f"{name}: cannot read price catalog: {exc}") from exc
    suffix = Path(path).suffix.lower()
    if suffix == ".csv":
        try:
            raw = _csv_rows(name, text)
        except csv.Error as exc:  # a field over the csv module's 128 KiB, a NUL byte
            raise PriceCatalogError(f"{name}: not a readable CSV price catalog: {exc}") from None
    elif suffix in (".yaml", ".yml"):
        raw = _yaml_rows(name, text)
    else:
        raise PriceCatalogError(f"{name}: price catalog must be .csv, .yaml or .yml")
    entries = [_entry(name, row, data) for row, data in raw]
    _check_duplicates(entries)
    return entries


def load_catalogs(paths: list[str] | list[Path]) -> list[PriceEntry]:
    """Merge several catalogs; a system named twice is an error unless both quotes agree.

    Identical repeats (the same facts in two files) are kept once; any difference
    (price, currency, kind, source, ...) is a conflict, because picking one silently
    would change the comparison without saying so.
    """
    merged: list[PriceEntry] = []
    for path in paths:
        merged.extend(load_catalog(path))
    return _check_duplicates(merged)


def _check_duplicates(entries: list[PriceEntry]) -> list[PriceEntry]:
    kept: list[PriceEntry] = []
    owner: dict[str, PriceEntry] = {}
    for entry in entries:
        same = [(n, owner[n.casefold()]) for n in entry.names() if n.casefold() in owner]
        if same and all(other.facts() == entry.facts() for _, other in same):
            continue  # the same quote repeated: keep the first
        for name, other in same:
            raise PriceCatalogError(
                f"{entry.where()}: duplicate system {name!r} (in entry {entry.system!r}): "
                f"already priced at {other.where()} (entry {other.system!r}); "
                "remove one or make them agree"
            )
        for name in entry.names():
            owner[name.casefold()] = entry
        kept.append(entry)
    return kept


def _csv_rows(name: str, text: str) -> list[tuple[int, Document]]:
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in (reader.fieldnames or [])]
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise PriceCatalogError(f"{name}:1: missing column(s): {', '.join(missing)}")
    unknown = [c for c in header if c not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS]
    if unknown:
        raise PriceCatalogError(f"{name}:1: unknown column(s): {', '.join(unknown)}")
    reader.fieldnames = header
    rows: list[tuple[int, Document]] = []
    for record in reader:
        line = reader.line_num
        if None in record:
            raise PriceCatalogError(f"{name}:{line}: more fields than columns")
        data: Document = {k: (v or "").strip() for k, v in record.items()}
        if not any(data.values()):
            continue  # blank line
        aliases = data.pop("aliases", "")
        data["aliases"] = [a.strip() for a in aliases.split(";") if a.strip()]
        if not data.get("description"):
            data.pop("description", None)
        for column in NUMBER_COLUMNS:
            if data.get(column) == "":
                data.pop(column)
            elif column in data:
                data[column] = _number(data[column])
        data["price"] = _number(data["price"])
        rows.append((line, data))
    if not rows:
        raise PriceCatalogError(f"{name}: price catalog has no rows")
    return rows


def _number(text: str) -> object:
    """A CSV price as a float when it is one; otherwise the text, for the schema to refuse."""
    try:
        value = float(text)
    except ValueError:
        return text
    return value if math.isfinite(value) else text  # "nan", "inf" are not prices


def _yaml_rows(name: str, text: str) -> list[tuple[int, Document]]:
    from ..yamlsafe import YamlError, compose, load

    try:  # bounded alias expansion (docs/security.md)
        data = load(text)
        node = compose(text)
    except YamlError as exc:
        raise PriceCatalogError(f"{name}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("prices"), list):
        raise PriceCatalogError(f"{name}:1: a YAML catalog is a mapping with a 'prices' list")
    extra = sorted(str(k) for k in data if k != "prices")
    if extra:
        raise PriceCatalogError(f"{name}:1: unknown top-level key(s): {', '.join(extra)}")
    if not data["prices"]:
        raise PriceCatalogError(f"{name}: price catalog has no rows")
    lines = _yaml_entry_lines(node)
    rows: list[tuple[int, Document]] = []
    for i, item in enumerate(data["prices"]):
        line = lines[i] if i < len(lines) else 0
        if not isinstance(item, dict):
            raise PriceCatalogError(f"{name}:{line}: a price entry is a mapping")
        rows.append((line, item))
    return rows


def _yaml_entry_lines(node: Any) -> list[int]:
    for key, value in getattr(node, "value", []):
        if getattr(key, "value", None) == "prices":
            return [item.start_mark.line + 1 for item in value.value]
    return []


def _entry(name: str, row: int, data: Document) -> PriceEntry:
    data = dict(data)
    if isinstance(data.get("date"), _dt.date):  # YAML reads 2021-07-01 as a date
        data["date"] = data["date"].isoformat()
    _validate(name, row, data)
    for key in ("price", "kwh_price"):
        _in_range(name, row, key, data.get(key))
    return PriceEntry(
        system=data["system"].strip(),
        aliases=tuple(a.strip() for a in data.get("aliases", [])),
        price=float(data["price"]),
        currency=data["currency"],
        kind=data["kind"],
        includes=data["includes"].strip(),
        source=data["source"].strip(),
        date=data["date"],
        description=data.get("description", "").strip(),
        kwh_price=_optional(data, "kwh_price"),
        life_years=_optional(data, "life_years"),
        utilization=_optional(data, "utilization"),
        path=name,
        row=row,
    )


def _optional(data: Document, key: str) -> float | None:
    return None if data.get(key) is None else float(data[key])


# A price (or kWh price) is a finite amount in [PRICE_MIN, PRICE_MAX]: YAML reads .nan,
# .inf and 1e-320 as numbers the schema's "> 0" lets through, and perf per dollar
# divides by the price (docs/security.md).
PRICE_MIN, PRICE_MAX = 1e-6, 1e15
CATALOG_LIMIT = 64 << 20  # bytes: a catalog of 100,000 systems is a few MB


def _in_range(name: str, row: int, key: str, value: object) -> None:
    if value is None or isinstance(value, bool) or not isinstance(value, int | float):
        return  # absent (kwh_price is optional) or the schema's to refuse
    number = float(value) if not isinstance(value, int) or value.bit_length() < 1000 else math.inf
    if not (math.isfinite(number) and PRICE_MIN <= number <= PRICE_MAX):
        raise PriceCatalogError(
            f"{name}:{row}: {key} {value!r} is not a finite amount between "
            f"{PRICE_MIN:g} and {PRICE_MAX:g}"
        )


def _validate(name: str, row: int, data: object) -> None:
    import jsonschema

    full = schema()
    target = {**full["$defs"]["entry"], "$defs": full["$defs"]}
    validator = jsonschema.Draft202012Validator(target)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        raise PriceCatalogError(f"{name}:{row}: {_describe(errors[0])}")


def _describe(error: Any) -> str:
    field = ".".join(str(p) for p in error.absolute_path) or "entry"
    last = str(error.absolute_path[-1]) if error.absolute_path else ""
    if error.validator == "enum" and last == "currency":
        known = ", ".join(currencies())
        return f"currency {error.instance!r} is not a known ISO 4217 code ({known})"
    if error.validator == "enum" and last == "kind":
        return f"kind {error.instance!r} is not one of {', '.join(KINDS)}"
    if last == "price" and error.instance in ("", None):
        return "price is missing (a system without a price is an error, never a zero)"
    if error.validator == "type" and last == "price":
        return f"price {error.instance!r} is not a number"
    if error.validator == "exclusiveMinimum" and last == "price":
        return f"price {error.instance!r} must be greater than 0"
    if error.validator == "pattern" and isinstance(error.instance, str) and not error.instance:
        return f"{field} is empty" + (" (every price needs a source)" if field == "source" else "")
    return f"{field}: {error.message}"
