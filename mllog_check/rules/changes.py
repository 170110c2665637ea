"""What a round's rule file changes in the round it extends, as a list for docs/rules.md.

docs/rules.md carries ``markdown("training-1.1.0")`` under each round's heading;
tests/test_rule_files.py keeps the two equal (its failure shows the text to paste).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .expr import render
from .loader import _read, _resolve, canonical, rules_dir
from .schema import describe

if TYPE_CHECKING:
    from ..datafiles import Document


def _summary(spec: Document | None) -> str:
    """A few words on a key's rule: what it requires."""
    spec = spec or {}
    parts = []
    if "occurs" in spec:
        occurs = spec["occurs"]
        if isinstance(occurs, dict) and "at_least" in occurs:
            parts.append(f"at least {occurs['at_least']}")
        else:
            parts.append(
                f"one of {', '.join(occurs['one_of'])} or itself"
                if isinstance(occurs, dict)
                else str(occurs).replace("_", " ")
            )
    if "within_ms_of_first" in spec:
        within = spec["within_ms_of_first"]
        parts.append(f"< {within['ms'] / 60000:g} min after {within['key']}")
    if "target" in spec:
        parts.append(f"target {describe(spec['target'])}")
    if "collect" in spec:
        parts.append(f"{len(spec['collect']['equals'])} {spec['collect']['metadata']} names")
    if "value" in spec:
        parts.append(f"value {spec.get('says') or describe(spec['value'])}")
    if "metadata" in spec:
        parts.append(f"metadata {describe(spec['metadata'])}")
    for check in spec.get("checks", []):
        first = " (first record)" if check.get("first") else ""
        parts.append(f"relation{first} {check.get('says') or render(check['test'])}")
    if "warn_as" in spec:
        parts.append(f"failures are warnings {spec['warn_as']}")
    return "; ".join(parts) if parts else "no requirement (lifts the inherited rule)"


def changes(name: str) -> list[str]:
    """One line per change of the named ruleset against the ruleset it extends."""
    name = canonical(name)
    here = rules_dir()
    raw = _read(here / f"{name}.yaml")
    base_name = raw.get("extends")
    if base_name is None:
        return [f"`{name}` extends nothing: it is the base ruleset"]
    base = _resolve(canonical(base_name), here, ())
    base_sections: Document = base.get("sections", {})
    lines = [f"extends `{base_name}`"]
    for key, value in sorted((raw.get("params") or {}).items()):
        lines.append(f"params: `{key}` = `{value}`")
    for section in raw.get("remove_sections", []):
        lines.append(f"section `{section}` removed")
    for section, change in sorted((raw.get("sections") or {}).items()):
        inherited = base_sections.get(section)
        if inherited is None:
            when = change.get("when", {})
            selector = (
                f"= {when['equals']}" if "equals" in when else describe(when.get("matches", {}))
            )
            like = f", keys of `{change['keys_from']}`" if "keys_from" in change else ""
            lines.append(
                f"section `{section}` added (under `{change.get('parent')}`, "
                f"when `{when.get('key')}` {selector}{like})"
            )
            continue
        if "aggregate" in change:
            agg = change["aggregate"]
            lines.append(
                f"section `{section}`: `{agg['key']}` records aggregate `{agg['source']}` "
                f"by metadata `{agg['group']}`"
            )
        old_keys = inherited.get("keys") or {}
        for key in change.get("remove", []):
            lines.append(f"`{section}.{key}` removed")
        for key, spec in sorted((change.get("keys") or {}).items()):
            verb = "changed" if key in old_keys else "added"
            lines.append(f"`{section}.{key}` {verb}: {_summary(spec)}")
    return lines


def markdown(name: str) -> str:
    """The changes as a markdown list (the block docs/rules.md carries)."""
    return "".join(f"- {line}\n" for line in changes(name))
