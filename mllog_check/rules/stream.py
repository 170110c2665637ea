"""``check`` of a file without holding its records: the parser's records stream into the
engine, and what else the verdict needs of them is kept as it passes.

A log's verdict reads its records in three ways besides the engine (docs/design.md,
memory): the round chosen from its content (``rounds.from_records``: the syntax
generations, the benchmarks named, the run's date), the chain of sections (the first
value of each selector key), and the first texts (division and benchmark, the
generation most records use, the first ``submission_benchmark`` for the folder check).
``Walk`` keeps those as facts and a few witness records, in log order, that give
``from_records`` and the folder check the answers the whole list gives.

The engine needs the round and the chain before its first record. When a flag, the
project setting or a round folder tells the round, only the chain is awaited; records
are held until every selector key the chain could still take is logged, or
``HOLD_LIMIT`` records. At the end the whole log's choice is made from the facts; if
it differs from the one the engine ran with (a selector or a benchmark logged after
``HOLD_LIMIT`` records) the walk says so (``exact`` False) and the caller checks the
file again the old way, holding every record: never a different verdict.
"""

from __future__ import annotations

from collections import Counter
from operator import attrgetter

from ..records import Generation, ParseResult, Record
from ..rounds import Choice, RoundError, Setting, choose, from_path, from_records, is_auto

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any

    from . import LogVerdict
    from .engine import Engine, FirstValues
    from .loader import Ruleset

HOLD_LIMIT = 10_000  # records held at most while the round or the chain is not certain
_EARLIEST_MS = 1.5e12  # a plausible run date (rounds.run_time_ms)
_BENCHMARK, _DIVISION, _RUN_START = "submission_benchmark", "submission_division", "run_start"
_TEXTS = frozenset((_BENCHMARK, _DIVISION))
_GENERATION = attrgetter("generation")


def choice_before_records(
    path: str, flag: str, setting: Setting | None
) -> tuple[bool, Choice | None]:
    """Whether the flag, the setting or the path tells the round before any record is read,
    and the choice (None for a rule file given by path). ``check`` of a file and
    ``check --follow`` start from it alike."""
    if flag.endswith(".yaml"):
        return True, None
    if not is_auto(flag) or (setting is not None and setting.ruleset is not None):
        return True, choose(path, (), flag, setting)
    found = from_path(path)
    return found is not None, found


class Walk:
    """One log's records fed in order (``add``), checked as they come when it can be.

    ``flag`` and ``setting`` as ``check_paths`` takes them (``flag`` may be a rule file
    path); ``verdict(result)`` at the end gives ``check``'s verdict and choice, or None
    when the engine ran with another round or chain than the whole log chooses.
    """

    def __init__(self, path: str, flag: str, setting: Setting | None) -> None:
        self.path = path
        self.flag = flag
        self.setting = setting
        self.count = 0
        self.generations: dict[Generation, int] = {}
        self.witnesses: list[Record] = []  # in log order (see the module's doc)
        self.texts: dict[str, str | None] = {}
        self._named: set[str] = set()  # the benchmarks named (lower case)
        self._dated = False  # a record with a plausible time was witnessed
        self._run_dated = False  # a run_start with a plausible time was witnessed
        self.choice: Choice | None = None  # the round the engine runs with
        self.rules: Ruleset | None = None
        self.engine: Engine | None = None
        self.held: list[Record] | None = []  # None once records were let go unchecked
        self.first: FirstValues = {}  # the first value of each selector key
        self.selectors: frozenset[str] = frozenset()
        self._watch = _TEXTS | {_RUN_START}  # keys _watched reads (the selectors added)
        self._before: Choice | None = None  # the round known before any record
        self._start()

    def _start(self) -> None:
        known, choice = choice_before_records(self.path, self.flag, self.setting)
        if known:
            # A flag, setting or folder: what choose() gives at the end too, kept.
            self._before = choice
            self._use(choice)

    def _use(self, choice: Choice | None) -> None:
        from .loader import canonical, load_ruleset

        self.choice = choice
        if choice is None:
            self.rules = load_ruleset(canonical(self.flag))
        elif choice.round.has("rules") and choice.round.has_rules():
            self.rules = load_ruleset(choice.round)  # the Round, chosen once
        else:  # parse checks only (or rules missing): the end says which
            self.held = None
            return
        self._adopt(self.rules)

    # --- feeding -------------------------------------------------------------------------

    def add(self, rec: Record) -> None:
        self.add_all([rec])

    def add_all(self, records: list[Record]) -> None:
        """Records in log order (a block's, as the parser gives them).

        The loop is the check's per-record cost beside the engine: a generation is
        looked up when it changes, the generations are counted per block (in C)."""
        self.count += len(records)
        generations = self.generations
        last = None
        feed = self.engine.feed if self.engine is not None else None
        watch = self._watch
        for rec in records:
            generation = rec.generation
            if generation is not last:
                last = generation
                if generation not in generations:
                    generations[generation] = 0  # counted below; the order is the log's
                    self._witness(rec)
            chosen = False
            if rec.key in watch or not self._dated:
                chosen = self._watched(rec)
                watch = self._watch
                if feed is None and self.engine is not None:
                    feed = self.engine.feed
            if feed is not None:
                feed(rec)
            elif self.held is not None:
                held = self.held
                held.append(rec)
                # The chain changes only with a selector's first value: no test in between.
                if chosen or len(held) == 1 or len(held) >= HOLD_LIMIT:
                    self._settle(len(held) >= HOLD_LIMIT)
                    watch = self._watch
                    if self.engine is not None:
                        feed = self.engine.feed
        for generation, count in Counter(map(_GENERATION, records)).items():
            generations[generation] += count

    def _watched(self, rec: Record) -> bool:
        """A record the verdict reads besides the engine; True for a selector's first value."""
        key = rec.key
        if not self._dated or (key == _RUN_START and not self._run_dated):
            self._date(rec)
        if key in _TEXTS:
            self._text(rec)
        if key in self.selectors and key not in self.first:
            self.first[key] = rec.value
            return True
        return False

    def _witness(self, rec: Record) -> None:
        if not self.witnesses or self.witnesses[-1] is not rec:
            self.witnesses.append(rec)

    def _date(self, rec: Record) -> None:
        ts = rec.timestamp_ms
        if not isinstance(ts, (int, float)) or not ts >= _EARLIEST_MS:
            return
        if not self._dated:
            self._dated = True
            self._witness(rec)
        if rec.key == _RUN_START and not self._run_dated:
            self._run_dated = True
            self._witness(rec)

    def _text(self, rec: Record) -> None:
        first = rec.key not in self.texts
        if first:
            self.texts[rec.key] = rec.value if isinstance(rec.value, str) else None
        if rec.key != _BENCHMARK:
            return
        named = isinstance(rec.value, str) and rec.value.lower() not in self._named
        if named:
            self._named.add(rec.value.lower())
        if first or named:  # the folder check's record; each benchmark named (the round)
            self._witness(rec)
        if named and self.rules is None and self.choice is None and self.held is not None:
            self._settle(False)

    # --- the round and the chain ---------------------------------------------------------

    def _settle(self, force: bool) -> None:
        """Start the engine when the round and the chain are known (or ``force``)."""
        if self.rules is None:
            if self.choice is not None or not (force or self._named):
                return  # a round without rules; or the benchmark, which narrows the round
            try:
                found = from_records(self.witnesses)
            except RoundError:
                found = None  # the end raises it, as check does
            if found is None:
                if force:
                    self.held = None  # let go: the end checks the file again
                return
            self._use(found)
            if self.rules is None:
                return
        from .engine import Engine, chain_of, chain_settled

        if not force and not chain_settled(self.rules, self.first):
            return
        assert self.held is not None
        self.engine = Engine(self.rules, self.path, chain_of(self.rules, self.first))
        held, self.held = self.held, None
        for rec in held:
            self.engine.feed(rec)

    # --- the end -------------------------------------------------------------------------

    def verdict(self, result: ParseResult, strict: bool) -> tuple[LogVerdict, Choice | None] | None:
        """``check``'s verdict on the log (``result``: the parse without its records) and
        the round's choice (None for a rule file); None when the records let go were
        checked with another round or chain than the whole log takes (check it again)."""
        from . import assemble
        from .detect import RulesUnavailable, parse_only, syntax_mismatch
        from .engine import chain_of
        from .loader import canonical, load_ruleset

        choice = rnd = None
        if self.flag.endswith(".yaml"):
            rules = load_ruleset(canonical(self.flag))
        else:
            choice = self._before or choose(self.path, self.witnesses, self.flag, self.setting)
            rnd = choice.round
            if not rnd.has("rules"):
                mismatch = syntax_mismatch(self.witnesses, rnd)
                if mismatch is not None:
                    raise RoundError(
                        f"{self.path}: {mismatch} (from {choice.source}: {choice.reason})"
                    )
                return parse_only(result, rnd.ruleset), choice
            if not rnd.has_rules():
                raise RulesUnavailable(
                    f"{self.path}: {rnd.missing('rules')} (chosen from {choice.source}: "
                    f"{choice.reason}); not checked"
                )
            rules = load_ruleset(rnd)
        found: list[Any] = []
        if not result.input_error:
            if self.engine is None:
                if self.held is None:
                    return None  # records let go unchecked
                self._adopt(rules)  # every record is held: check them now
                self._settle(True)
            elif self.rules is not rules:
                return None
            engine = self.engine
            assert engine is not None
            sections = chain_of(rules, self.first)
            if [s.name for s in engine.sections] != [s.name for s in sections]:
                return None
            found = engine.finish()
        generation = max(self.generations, key=self.generations.__getitem__, default=None)
        verdict = assemble(
            result, found, generation, rules.name, self.texts, strict=strict, rnd=rnd
        )
        return verdict, choice

    def _adopt(self, rules: Ruleset) -> None:
        """Take ``rules`` for the records held (every record of the log)."""
        from .engine import first_values, selector_keys

        self.rules = rules
        self.selectors = frozenset(selector_keys(rules))
        self._watch = _TEXTS | {_RUN_START} | self.selectors
        self.first = {}
        first_values(self.held or (), self.selectors, self.first)
