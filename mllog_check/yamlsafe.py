"""The one loader of YAML a user hands the tool (a --ruleset file, a price catalog).

PyYAML's safe loader runs no code, but anchors and aliases let a few hundred bytes stand
for billions of nodes ("billion laughs": a 499-byte rule file took 9 GB once its data
was copied). The document is composed first (aliases stay shared, nothing expands),
its size with every alias expanded is counted (nodes, and characters of its scalars: one
long string behind an anchor, repeated by aliases, took 2.27 GB from a 96 KB catalog), and
a document beyond ``MAX_NODES`` or ``MAX_CHARS``, or one that refers to itself, is
refused before anything is built (docs/security.md).
"""

from __future__ import annotations

from typing import Any

from .errors import ReadError

# Expanded nodes (scalars, sequences, mappings) a user's YAML may have. The largest
# shipped rule file has about 2,000; a price catalog of 10,000 systems about 150,000.
MAX_NODES = 250_000
# Characters of the scalars, every alias expanded: the largest shipped rule file has
# about 30,000; a price catalog of 10,000 systems about 2 million (200 per entry).
MAX_CHARS = 16 << 20


class YamlError(ReadError):
    """Not YAML, or YAML that would expand beyond the bound; the message says why."""


class DuplicateKey(YamlError):
    """A mapping states a key twice (YAML keeps the last in silence)."""


class InvalidValue(YamlError):
    """A scalar of a YAML type that is no value of it (a date 2025-13-45)."""


_LOADER: list[type] = []


def strict_loader() -> type:
    """A SafeLoader (the C one when built) whose mappings refuse a repeated key."""
    if _LOADER:
        return _LOADER[0]
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class StrictLoader(base):  # type: ignore[misc, valid-type]
        pass

    def mapping(loader: Any, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # "<<": merged, not repeated
                continue
            key = loader.construct_object(key_node, deep=True)
            if isinstance(key, list | dict):
                continue  # unhashable: SafeLoader reports it
            if key in seen:
                mark = key_node.start_mark
                raise DuplicateKey(
                    f"line {mark.line + 1}, column {mark.column + 1}: duplicate key {key!r}"
                )
            seen.add(key)
        return loader.construct_mapping(node, deep=deep)

    def timestamp(loader: Any, node: Any) -> Any:
        # A date shaped like one but no date (2025-13-45): datetime's ValueError, said
        # with its place, not as the int/str limit below.
        try:
            return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
        except ValueError as exc:
            mark = node.start_mark
            raise InvalidValue(
                f"line {mark.line + 1}, column {mark.column + 1}: {node.value!r} is no date ({exc})"
            ) from None

    StrictLoader.add_constructor("tag:yaml.org,2002:map", mapping)
    StrictLoader.add_constructor("tag:yaml.org,2002:timestamp", timestamp)
    _LOADER.append(StrictLoader)
    return StrictLoader


def load(text: str, max_nodes: int = MAX_NODES) -> Any:
    """The data of one YAML document (None when empty), or YamlError."""
    import yaml

    loader = strict_loader()(text)  # a repeated key is refused too
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        expanded_size(node, max_nodes)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise YamlError(f"not valid YAML: {exc}") from None
    except RecursionError:
        raise YamlError("not valid YAML: nested too deeply") from None
    except (DuplicateKey, InvalidValue) as exc:
        raise YamlError(str(exc)) from None
    except ValueError:  # an integer beyond Python's int/str limit (4,300 digits)
        raise YamlError("a number with more digits than Python converts (4,300)") from None
    finally:
        loader.dispose()


def compose(text: str) -> Any:
    """The node tree (for line numbers), under the same bound as ``load``."""
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            expanded_size(node)
        return node
    except yaml.YAMLError as exc:
        raise YamlError(f"not valid YAML: {exc}") from None
    except RecursionError:
        raise YamlError("not valid YAML: nested too deeply") from None
    finally:
        loader.dispose()


def expanded_size(root: Any, max_nodes: int = MAX_NODES, max_chars: int = MAX_CHARS) -> int:
    """Nodes of the document with every alias expanded; YamlError beyond ``max_nodes``
    nodes or ``max_chars`` characters of scalars, or for a node that contains itself.
    Each distinct node is visited once (memoized)."""
    sizes: dict[int, tuple[int, int]] = {}  # node -> (nodes, characters) expanded
    open_nodes: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = _children(node)
        if done:
            open_nodes.discard(key)
            size = 1 + sum(sizes[id(c)][0] for c in children)
            chars = sum(sizes[id(c)][1] for c in children) if children else _chars(node)
            if size > max_nodes:
                raise YamlError(
                    f"YAML expands to more than {max_nodes:,} nodes through its aliases: "
                    "refused (anchors and aliases may repeat data, not multiply it)"
                )
            if chars > max_chars:
                raise YamlError(
                    f"YAML expands to more than {max_chars:,} characters of text through "
                    "its aliases: refused (anchors and aliases may repeat data, not multiply it)"
                )
            sizes[key] = (size, chars)
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise YamlError("YAML refers to itself through an alias: refused")
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in children if id(child) not in sizes)
    return sizes[id(root)][0]


def _chars(node: Any) -> int:
    value = node.value
    return len(value) if isinstance(value, str) else 0


def _children(node: Any) -> list[Any]:
    value = node.value
    if isinstance(value, list):
        if value and isinstance(value[0], tuple):  # a mapping's (key, value) pairs
            return [part for pair in value for part in pair]
        return list(value)
    return []
