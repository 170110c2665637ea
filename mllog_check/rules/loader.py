"""Rulesets as data: load a round's YAML, apply ``extends`` (inheritance), compile.

A ruleset file names its round and optionally ``extends`` another one, stating
only what changes: a section given again is merged into the inherited one (its
``label``/``parent``/``when`` replace the old ones when present, each key it
names replaces that key's rule whole, ``remove`` deletes keys); new sections are
added; ``remove_sections`` drops inherited ones; ``params`` are merged.
Rule ids are ``<section>.<key>``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial
from pathlib import Path

from ..errors import DataError, UsageError
from ..rounds import Round
from ..values import Value
from .expr import compile_test, render
from .schema import compile_fragment, describe, validate_document

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any

    from ..datafiles import Document
    from .expr import Node, Test
    from .schema import Compiled, Schema


class UnknownRuleset(UsageError, ValueError):
    """No ruleset of that name (or path) exists."""


class RulesetError(DataError, ValueError):
    """A rule file breaks the format (schemas/rules/ruleset.schema.json) or its references."""


class Fragment(Value):
    """A compiled JSON Schema fragment with the words that explain it."""

    __slots__ = ("schema", "validator", "says")

    def __init__(
        self,
        schema: Schema,
        validator: Compiled,
        says: str,
    ) -> None:
        self.schema = schema
        self.validator = validator
        self.says = says

    def ok(self, instance: Any) -> bool:
        return self.validator.is_valid(instance)


class Advisory(Value):
    """A check beyond the official files: a warning (an error under --strict)."""

    __slots__ = ("code", "subject", "fragment")

    def __init__(
        self,
        code: str,
        subject: str,
        fragment: Fragment,
    ) -> None:
        self.code = code
        self.subject = subject
        self.fragment = fragment


class Check(Value):
    """A relation a record must satisfy (expr.py): other keys' values, arithmetic."""

    __slots__ = ("test", "says", "first_only", "node", "once", "warn_as")

    def __init__(
        self,
        test: Test,
        says: str,
        first_only: bool = False,  # the official FIRST_CHECK: the key's first record only
        node: Node | None = None,  # the test as written (the message's values)
        once: bool = False,  # one problem per log: the first record breaking it, and a count
        warn_as: str | None = None,  # a registered code to report its failures with
    ) -> None:
        self.test = test
        self.says = says
        self.first_only = first_only
        self.node = node
        self.once = once
        self.warn_as = warn_as


class Aggregate(Value):
    """Virtual records built after the log (the official stable-diffusion BEGIN block).

    Records of ``source`` whose metadata names ``name`` are grouped by their metadata
    ``group`` value; each group becomes one ``key`` record whose value maps each name
    to its value (plus the group value), appended after the log's own records.
    """

    __slots__ = ("key", "source", "name", "group")

    def __init__(
        self,
        key: str,
        source: str,
        name: str,
        group: str,
    ) -> None:
        self.key = key
        self.source = source
        self.name = name
        self.group = group


class KeySpec(Value):
    """The rule for one key within one section (rule id ``section.key``)."""

    __slots__ = (
        "key",
        "section",
        "label",
        "occurs",
        "one_of",
        "at_least",
        "first_only",
        "value",
        "metadata",
        "after",
        "not_after",
        "within",
        "target",
        "collect",
        "advisories",
        "checks",
        "warn_as",
        "why",
    )

    def __init__(
        self,
        key: str,
        section: str,
        label: str,
        occurs: str | None = None,  # "exactly_one", "at_least_one" or None
        one_of: tuple[str, ...] = (),
        at_least: int = 0,  # occurs {at_least: N}: N records or more (official AT_LEAST(N))
        first_only: bool = False,
        value: Fragment | None = None,
        metadata: Fragment | None = None,
        after: tuple[str, ...] = (),
        not_after: tuple[str, ...] = (),
        within: tuple[str, float] | None = None,
        target: Fragment | None = None,
        collect: tuple[str, tuple[str, ...]] | None = None,
        advisories: tuple[Advisory, ...] = (),
        checks: tuple[Check, ...] = (),
        # A code (MLC1xx) that reports every failure of this key's rule as a warning.
        warn_as: str | None = None,
        why: str = "",
    ) -> None:
        self.key = key
        self.section = section
        self.label = label
        self.occurs = occurs
        self.one_of = one_of
        self.at_least = at_least
        self.first_only = first_only
        self.value = value
        self.metadata = metadata
        self.after = after
        self.not_after = not_after
        self.within = within
        self.target = target
        self.collect = collect
        self.advisories = advisories
        self.checks = checks
        self.warn_as = warn_as
        self.why = why


class Section:
    """One section of a ruleset: its selector, parent and key rules.

    The key rules are compiled on first use: a log needs three or four of a round's
    sections, and compiling all of them cost a single-file check more than checking
    (docs/design.md, start-up time). Rule files given by path are compiled whole at
    load, so a broken one fails there; the shipped ones are compiled whole by
    tests/test_rules_schema.py.
    """

    __slots__ = ("_build", "_keys", "aggregate", "label", "name", "parent", "when")

    def __init__(
        self,
        name: str,
        label: str,
        parent: str | None,
        when: tuple[str, Any] | None,
        keys: dict[str, KeySpec] | Callable[[], dict[str, KeySpec]],
        aggregate: Aggregate | None = None,
    ) -> None:
        self.name = name
        self.label = label
        self.parent = parent
        self.when = when
        self.aggregate = aggregate
        self._keys = keys if isinstance(keys, dict) else None
        self._build = None if isinstance(keys, dict) else keys

    @property
    def keys(self) -> dict[str, KeySpec]:
        if self._keys is None:
            assert self._build is not None
            self._keys, self._build = self._build(), None
        return self._keys

    def __repr__(self) -> str:
        return f"Section(name={self.name!r}, label={self.label!r}, parent={self.parent!r})"


class Ruleset(Value):
    __slots__ = ("name", "sections", "params")

    def __init__(
        self,
        name: str,
        sections: dict[str, Section],
        params: Document,
    ) -> None:
        self.name = name
        self.sections = sections
        self.params = params

    def roots(self) -> list[Section]:
        return [s for _, s in sorted(self.sections.items()) if s.parent is None]

    def children(self, name: str) -> list[Section]:
        return [s for _, s in sorted(self.sections.items()) if s.parent == name]


def rules_dir() -> Path:
    from ..prepared import schemas_dir

    return schemas_dir() / "rules"


def canonical(name: str) -> str:
    """The ruleset a name means: a round in any spelling ("1.0", "v1.0", "training-1.0.0")
    -> "training-1.0.0"; a path to a rule file or another name unchanged."""
    from ..rounds import registry

    found = registry().find(name)
    return found.ruleset if found is not None else name


def available_rulesets() -> list[str]:
    """Rulesets of the registry's rounds whose rule files are in this build."""
    from ..rounds import all_rounds

    return [r.ruleset for r in all_rounds() if r.has_rules()]


def load_ruleset(name: str | Round) -> Ruleset:
    """A compiled ruleset by Round, by round ("1.0.0", "v1.0", "training-1.0.0") or by path
    to a YAML file. UnknownRuleset for an unknown name or a round whose rules this build
    lacks."""
    return _load(name.ruleset if isinstance(name, Round) else canonical(name))


@cache
def _load(name: str) -> Ruleset:
    ruleset = _compile(resolved(name))
    if name.endswith((".yaml", ".yml")):  # a rule file given by path: fail now if broken
        for section in ruleset.sections.values():
            section.keys  # noqa: B018 - compiles
    return ruleset


def resolved(name: str) -> Document:
    """A ruleset's data with its ``extends`` chain merged: the prepared copy of a shipped
    round's rules when it is current (mllog_check.prepared: no YAML, no validation at run
    time), else read and validated from the rule files."""
    from ..prepared import read, schemas_dir
    from ..rounds import registry

    rnds = registry()
    rnd = rnds.find(name)
    path = rnd.path("rules") if rnd is not None else None
    # Prepared rules embed the shipped registry's benchmarks: not for a registry of one's own.
    shipped = rnds.source == schemas_dir() / "rounds.yaml"
    if rnd is not None and path is not None and shipped and path.is_relative_to(schemas_dir()):
        data = read(rnd.ruleset)
        if isinstance(data, dict):
            return data
    return resolve_with_sources(name)[0]


def resolve_with_sources(name: str) -> tuple[Document, list[str]]:
    """A ruleset's merged data from its rule files, and what it came from: its rule files,
    and ``<registry>#<version>`` when it took that round's benchmarks (the fingerprints
    of prepared data, mllog_check.prepared)."""
    sources: list[Path] = []
    chain: list[str] = []
    data = _resolve(name, Path.cwd(), (), sources, chain)
    taken = _values_from_registry(data, chain)
    named = [str(p) for p in sources]
    if taken is not None:  # the round's registry entry is a source too (prepared data)
        from ..rounds import registry

        named.append(f"{registry().source}#{taken}")
    return data, named


# Divisions whose sections list a division's own benchmarks (``value_from: benchmarks``);
# any other section (v0.6/v0.7 ``common``) takes every benchmark of the round.
_DIVISIONS = ("closed", "open")


def _values_from_registry(data: Document, chain: list[str]) -> str | None:
    """``value_from: benchmarks`` becomes the enum of the round's benchmarks (sorted: the
    registry's order depends on how it was read): the round of the file, else of the
    nearest round it extends (a rule file of one's own). The round's version when one
    was replaced, else None."""
    from ..rounds import registry

    found = (registry().find(name) for name in chain)
    rnd = next((r for r in found if r is not None and r.benchmarks is not None), None)
    replaced: str | None = None
    for section, body in (data.get("sections") or {}).items():
        keys = (body or {}).get("keys") or {}
        for key, spec in keys.items():
            if not isinstance(spec, dict) or spec.get("value_from") is None:
                continue
            if rnd is None or rnd.benchmarks is None:
                raise RulesetError(
                    f"{data['ruleset']}: {section}.{key}: value_from: benchmarks needs a round "
                    "of the registry with benchmarks (schemas/rounds.yaml)"
                )
            division = section if section in _DIVISIONS else None
            allowed = sorted(
                b.name
                for b in rnd.benchmarks.values()
                if division is None or division in b.divisions
            )
            keys[key] = {k: v for k, v in spec.items() if k != "value_from"}
            keys[key]["value"] = {"enum": allowed}
            replaced = rnd.version
    return replaced


def _locate(name: str, here: Path) -> Path:
    from ..rounds import registry

    as_path = Path(name)
    if name.endswith(".yaml") and as_path.is_file():
        return as_path
    rnd = registry().find(name)
    if rnd is not None:
        found = rnd.path("rules")
        if found is not None:
            return found
        why = rnd.missing("rules") or f"round {rnd.version} has no compliance rules"
        raise UnknownRuleset(f"{why}; available: {', '.join(available_rulesets())}")
    for folder in (here, rules_dir()):
        candidate = folder / f"{name}.yaml"
        if candidate.is_file():
            return candidate
    raise UnknownRuleset(f"unknown ruleset {name!r}; available: {', '.join(available_rulesets())}")


def _read(path: Path) -> Document:
    """A rule file's data, validated against ruleset.schema.json (jsonschema). Nothing is
    cached on disk: shipped rounds come prepared (``resolved``)."""
    import json

    from ..datafiles import DataFileError, load_json, load_yaml

    try:  # bounded and strict: a rule file may come from anyone (docs/security.md)
        document = load_yaml(path)
    except DataFileError as err:
        raise RulesetError(str(err)) from None
    errors = validate_document(document, load_json(rules_dir() / "ruleset.schema.json"))
    errors = errors or unregistered_codes(document)
    if errors:
        raise RulesetError(f"{path}: " + "; ".join(errors))
    # YAML anchors share objects between sections; merge() edits sections in place, so
    # every read returns unshared data.
    document = json.loads(json.dumps(document))
    assert isinstance(document, dict)
    return document


def unregistered_codes(document: Document) -> list[str]:
    """Codes a rule file names (a key's ``warn_as``, an advisory's ``code``) that no
    compliance rule registers: the engine could not report them (rules/codes.py)."""
    from .codes import TABLE

    found = []
    for section, data in sorted((document.get("sections") or {}).items()):
        for key, spec in sorted(((data or {}).get("keys") or {}).items()):
            named = [("warn_as", (spec or {}).get("warn_as"))]
            named += [("check's warn_as", c.get("warn_as")) for c in (spec or {}).get("checks", [])]
            named += [("advisory code", a.get("code")) for a in (spec or {}).get("advisories", [])]
            found += [
                f"{section}.{key}: {what} {code} is not a registered compliance code"
                for what, code in named
                if code is not None and code not in TABLE
            ]
    return found


def _resolve(
    name: str,
    here: Path,
    seen: tuple[str, ...],
    sources: list[Path] | None = None,
    chain: list[str] | None = None,
) -> Document:
    path = _locate(name, here)
    if sources is not None:
        sources.append(path)
    document = _read(path)
    if chain is not None:  # the file's round first, then the rounds it extends
        chain.append(str(document["ruleset"]))
    parent_name = document.get("extends")  # datafiles.EXTENDS
    if parent_name is None:
        return document
    if parent_name in seen or parent_name == document["ruleset"]:
        raise RulesetError(f"{path}: extends loop through {parent_name}")
    base = _resolve(
        canonical(parent_name), path.parent, (*seen, document["ruleset"]), sources, chain
    )
    return merge(base, document)


def merge(base: Document, child: Document) -> Document:
    """Apply a child ruleset's changes to its parent's (already resolved) data.

    Both are fresh, unshared data from ``_read``/``_resolve`` (JSON round trip): the
    base is changed in place instead of copied (copying every round's tensor lists
    again at each of the ten levels cost a third of a second per check).
    """
    from ..datafiles import EXTENDS, DataFileError, merge_named

    merged = base
    merged["ruleset"] = child["ruleset"]
    merged.pop(EXTENDS, None)
    merged.setdefault("params", {}).update(child.get("params", {}))
    sections: Document = merged.setdefault("sections", {})
    try:
        merge_named(sections, None, child.get("remove_sections"), child["ruleset"])
        for name, change in child.get("sections", {}).items():
            target = sections.setdefault(name, {})
            for field_name in ("label", "parent", "when", "aggregate", "keys_from"):
                if field_name in change:
                    target[field_name] = change[field_name]
            where = f"{child['ruleset']}: section {name}"
            target["keys"] = merge_named(
                target.setdefault("keys", {}), change.get("keys"), change.get("remove"), where
            )
    except DataFileError as err:
        raise RulesetError(str(err)) from None
    for name, change in child.get("sections", {}).items():
        like = change.get("keys_from")
        if like is not None:  # copied now: a later round may drop or change the source
            if like not in sections:
                raise RulesetError(f"{child['ruleset']}: {name}.keys_from names unknown {like!r}")
            import copy  # here: prepared rules never merge (the hook's start-up time)

            target = sections[name]
            source_keys = copy.deepcopy(sections[like].get("keys") or {})
            target["keys"] = {**source_keys, **(target.get("keys") or {})}
            del target["keys_from"]
    return merged


def _compile(raw: Document) -> Ruleset:
    sections: dict[str, Section] = {}
    raw_sections = raw.get("sections", {})
    # Python's numbers in value checks (True == 1, True > 0), as the official files
    # compare: params.python_numbers, set from v2.1 on.
    python = bool(raw.get("params", {}).get("python_numbers", False))
    for name, data in raw_sections.items():
        label = data.get("label", name)
        when = data.get("when")
        given = dict(data.get("keys") or {})
        like = data.get("keys_from")
        if like is not None:  # another section's keys, then this one's own
            if like not in raw_sections:
                raise RulesetError(f"{raw['ruleset']}: {name}.keys_from names unknown {like!r}")
            given = {**(raw_sections[like].get("keys") or {}), **given}
        aggregate = data.get("aggregate")
        sections[name] = Section(
            name,
            label,
            data.get("parent"),
            _when(when, python) if when else None,
            partial(_compile_keys, given, name, label, python),
            Aggregate(**aggregate) if aggregate else None,
        )
    for section in sections.values():
        if section.parent is not None and section.parent not in sections:
            raise RulesetError(f"{raw['ruleset']}: section {section.name} has unknown parent")
    return Ruleset(raw["ruleset"], sections, dict(raw.get("params", {})))


def _compile_keys(given: Document, section: str, label: str, python: bool) -> dict[str, KeySpec]:
    return {
        key: _compile_key(key, section, label, spec or {}, python) for key, spec in given.items()
    }


def _when(when: Document, python: bool = False) -> tuple[str, Any]:
    """(key, expected): an equal value, or a Fragment the value must match (e.g. a bound)."""
    if "matches" in when:
        return when["key"], _fragment(when["matches"], python=python)
    return when["key"], when["equals"]


def _fragment(
    schema: Schema | None, says: str | None = None, python: bool = False
) -> Fragment | None:
    if schema is None:
        return None
    return Fragment(schema, compile_fragment(schema, python=python), says or describe(schema))


def _compile_key(
    key: str, section: str, label: str, spec: Document, python: bool = False
) -> KeySpec:
    occurs = spec.get("occurs")
    one_of: tuple[str, ...] = ()
    at_least = 0
    if isinstance(occurs, dict) and "at_least" in occurs:
        at_least, occurs = int(occurs["at_least"]), None
    elif isinstance(occurs, dict):
        one_of, occurs = tuple(occurs["one_of"]), None
    within = spec.get("within_ms_of_first")
    collect = spec.get("collect")
    advisories = tuple(
        Advisory(
            a["code"],
            a["subject"],
            Fragment(a["schema"], compile_fragment(a["schema"], python=python), a["says"]),
        )
        for a in spec.get("advisories", [])
    )
    return KeySpec(
        key=key,
        section=section,
        label=label,
        occurs=occurs,
        one_of=one_of,
        at_least=at_least,
        first_only=bool(spec.get("first_only", False)),
        value=_fragment(spec.get("value"), spec.get("says"), python),
        metadata=_fragment(spec.get("metadata"), python=python),
        after=tuple(spec.get("after", ())),
        not_after=tuple(spec.get("not_after", ())),
        within=(within["key"], float(within["ms"])) if within else None,
        target=_fragment(spec.get("target"), python=python),
        collect=(collect["metadata"], tuple(collect["equals"])) if collect else None,
        advisories=advisories,
        checks=tuple(
            Check(
                compile_test(c["test"]),
                c.get("says") or render(c["test"]),
                c.get("first", False),
                c["test"],
                c.get("once", False),
                c.get("warn_as"),
            )
            for c in spec.get("checks", [])
        ),
        warn_as=spec.get("warn_as"),
        why=spec.get("why", ""),
    )
