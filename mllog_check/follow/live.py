"""A log checked while it grows: fed bytes, lines or records, problems as they are certain.

``LiveCheck`` runs the parser's scanner and the rules engine (``rules/engine.py``
``Engine``) that ``check`` runs on a whole file, fed piece by piece, and ends in the same
verdict assembly (``rules.assemble``): a log fed whole gives ``check``'s verdict and
problems. What it must wait for (docs/follow.md):

- the round: a flag, the project setting or a round folder in the path tell it at once;
  else the log's content (its syntax and ``submission_benchmark``), read when the first
  ``submission_benchmark`` arrives;
- the chain of sections (division, benchmark, optimizer variant): records are held until
  every selector key the chain could still take is logged (at the header for most logs;
  at the end for logs that name their benchmark last, as Google's v0.7-v1.0 TPU logs
  do), or ``HOLD_LIMIT`` records force the choice with what is known;
- end-only rules (exactly once, at least once, the quality target, one_of groups): at
  ``finish()``, or as ``judge_end()`` when the caller wants them now (at ``run_stop``).

A choice forced early that the whole log would make otherwise (a selector logged after
``HOLD_LIMIT`` records) sets ``stale``: the verdict is then not ``check``'s,
and ``check --follow`` re-checks the finished file instead.
"""

from __future__ import annotations

import codecs

from ..inputs import ReadState
from ..parsing import finish_parse
from ..parsing.scanner import Lines, Scanner
from ..problems import Problem
from ..records import Generation, Record
from ..rounds import Choice, Setting, choose, from_records
from ..rules.stream import choice_before_records

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ..rules import LogVerdict
    from ..rules.engine import Engine, FirstValues
    from ..rules.loader import Ruleset

HOLD_LIMIT = 10_000  # records held at most while the chain of sections is not certain
HEADER_END = "run_start"  # the header's end: the chain and required header keys are due
RUN_STOP = "run_stop"
_FIRST_TEXT = ("submission_division", "submission_benchmark")


class LiveCheck:
    """One log's check, fed as the log grows (``feed`` bytes, ``feed_record`` records).

    Each ``feed`` returns the problems that became certain with it, in the order found;
    ``finish()`` returns the verdict ``check`` gives on the whole log. ``ruleset`` is what
    ``check --ruleset`` takes (a round, "auto", a rule file path); ``setting`` the project
    setting ``check`` would use. Raises RoundError (MllogCheckError) when the round is
    unknown, cannot be told, or its rules are not in this build, as ``check`` does.
    """

    def __init__(
        self,
        path: str,
        ruleset: str = "auto",
        *,
        strict: bool = False,
        setting: Setting | None = None,
    ) -> None:
        self.path = path
        self.flag = ruleset
        self.strict = strict
        self.setting = setting
        self.scanner = Scanner(path)
        self.read = ReadState()
        self.lines = Lines(self.scanner)  # whole lines to the scanner, as check reads them
        self._headed = False  # the first bytes were looked at (byte-order mark, gzip)
        self._lead = b""  # first bytes too few to tell
        self.choice: Choice | None = None
        self.rules: Ruleset | None = None
        self.engine: Engine | None = None
        self.parse_only = False  # a round without compliance rules (v0.5)
        self.held: list[Record] = []  # records before the chain is certain
        self.stale = False
        self.stopped = False  # run_stop seen
        self.notes: list[str] = []  # what the caller may tell people (not problems)
        self.found: list[Problem] = []  # every problem handed out so far
        # Called with each record as it is read (check --follow's status line).
        self.on_record: Callable[[Record], None] | None = None
        self.records = 0
        self._generations: dict[Generation, int] = {}
        self._witnesses: dict[Any, Record] = {}  # one record per generation and benchmark
        self._first: FirstValues = {}  # first value of each key that chooses sections
        self._selectors: set[str] = set()  # the keys that choose sections (once rules known)
        self._texts: dict[str, str | None] = {}
        self._parse_seen = 0  # parse problems already handed out
        self._rule_seen = 0  # engine problems already handed out
        self._early: list[Problem] = []
        self._header_seen = False  # run_start came (its judgements are made once)
        from ..checking import CadenceRecords

        self._cadence = CadenceRecords()  # what MLR060 reads at the end (check's)
        self._start()

    # --- feeding -------------------------------------------------------------------------

    def feed(self, data: bytes) -> list[Problem]:
        """Bytes appended to the log; whole lines are read now, a partial one when it ends."""
        if not data or self.read.error:  # after a refusal nothing more is read
            return []
        if not self._headed:
            head = self._head(data)
            if head is None:
                return self._new()
            data = head
        if b"\x00" in data:
            self.read.nul_bytes = True
        if not self.lines.feed(data):
            return []
        return self._take()

    def feed_line(self, line: str | bytes) -> list[Problem]:
        """One line of the log (with or without its line feed)."""
        raw = line.encode("utf-8", "surrogateescape") if isinstance(line, str) else line
        return self.feed(raw if raw.endswith(b"\n") else raw + b"\n")

    def feed_record(self, record: Record) -> list[Problem]:
        """A record built in-process (its line and column as the caller numbers them)."""
        self.scanner.result.marker_lines += 1
        self._record(record)
        self._cadence.add([record], self._texts)
        return self._new()

    def _head(self, data: bytes) -> bytes | None:
        """The first bytes: a UTF-8 byte-order mark is dropped; compressed or UTF-16 text
        cannot be read as it grows (an input error: check the finished file). None while
        too few bytes came to tell, or when refused."""
        data = self._lead + data
        if len(data) < 3 and codecs.BOM_UTF8.startswith(data):
            self._lead = data
            return None
        self._headed, self._lead = True, b""
        if data[:3] == codecs.BOM_UTF8:
            return data[3:]
        if data[:2] == b"\x1f\x8b":
            self.read.error = "compressed (gzip): a growing log is read as plain text"
        elif data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
            self.read.error = "UTF-16 text: a growing log is read as UTF-8"
        else:
            return data
        self.scanner.result.bytes_read += len(data)
        return None

    def _take(self) -> list[Problem]:
        records = self.scanner.result.records
        if records:
            batch = records[:]
            records.clear()  # memory stays bounded: the engine keeps what it needs
            for record in batch:
                self._record(record)
            self._cadence.add(batch, self._texts)
        return self._new()

    def _record(self, rec: Record) -> None:
        self.records += 1
        if self.on_record is not None:
            self.on_record(rec)
        generation = rec.generation
        if generation not in self._generations:
            self._witnesses[generation] = rec
        self._generations[generation] = self._generations.get(generation, 0) + 1
        if rec.key in _FIRST_TEXT and rec.key not in self._texts:
            self._texts[rec.key] = rec.value if isinstance(rec.value, str) else None
        if rec.key == "submission_benchmark" and isinstance(rec.value, str):
            self._witnesses.setdefault(("benchmark", rec.value.lower()), rec)
        if self.rules is not None and rec.key in self._selectors and rec.key not in self._first:
            self._first[rec.key] = rec.value
        if self.engine is not None:
            self.engine.feed(rec)
            if rec.key == HEADER_END:
                self._header_end()
        elif self.parse_only:
            pass
        else:
            self.held.append(rec)
            self._settle(force=len(self.held) >= HOLD_LIMIT)
        if rec.key == RUN_STOP:
            self.stopped = True

    # --- the round and the chain ---------------------------------------------------------

    def _start(self) -> None:
        known, choice = choice_before_records(self.path, self.flag, self.setting)
        if known:
            self._use(choice)

    def _use(self, choice: Choice | None) -> None:
        from ..rules import load_ruleset
        from ..rules.detect import RulesUnavailable

        self.choice = choice
        if choice is None:  # a rule file given by path
            self.rules = load_ruleset(self.flag)
        elif not choice.round.has("rules"):
            self.parse_only = True
            self.held.clear()
            return
        elif not choice.round.has_rules():
            raise RulesUnavailable(
                f"{self.path}: {choice.round.missing('rules')} (chosen from {choice.source}: "
                f"{choice.reason}); not checked"
            )
        else:
            self.rules = load_ruleset(choice.round)  # the Round, chosen once
        from ..rules.engine import first_values, selector_keys

        self._selectors = selector_keys(self.rules)
        first_values(self.held, self._selectors, self._first)

    def _settle(self, force: bool) -> None:
        if self.rules is None:
            named = any(isinstance(k, tuple) for k in self._witnesses)
            if not (named or force):
                return  # the benchmark narrows the round: wait for it
            found = from_records(list(self._witnesses.values()))
            if found is None:
                return  # no record tells anything yet
            self._use(found)
            if self.parse_only:
                return
        assert self.rules is not None
        from ..rules.engine import Engine, chain_of, chain_settled

        if not force and not chain_settled(self.rules, self._first):
            return
        self.engine = Engine(self.rules, self.path, chain_of(self.rules, self._first))
        held, self.held = self.held, []
        for rec in held:
            self.engine.feed(rec)
            if rec.key == HEADER_END:
                self._header_end()

    def _header_end(self) -> None:
        """At run_start: a required key that had to come before it and did not is an error
        now, whatever follows (missing, or logged out of order)."""
        assert self.engine is not None and self.rules is not None
        if self._header_seen:
            return
        self._header_seen = True
        state = self.engine.state
        roots = {section.name for section in self.rules.roots()}
        late: list[str] = []
        for key, spec in sorted(state.specs.items()):
            if spec.occurs not in ("exactly_one", "at_least_one") or key in state.seen:
                continue
            if HEADER_END in spec.not_after:
                from ..rules import codes

                message = (
                    f"{spec.label}: {key} is not logged before {HEADER_END}: required "
                    f"{'exactly once' if spec.occurs == 'exactly_one' else 'at least once'}, "
                    f"not after {HEADER_END}"
                )
                self._early.append(codes.MISSING_KEY.problem(self.path, message))
            elif spec.occurs == "exactly_one" and spec.section not in roots:
                late.append(key)  # a benchmark's hyperparameter, as a rule logged at init
        if late:
            self.notes.append(
                f"{self.path}: required hyperparameters not logged before {HEADER_END} "
                f"(the official checker accepts them later): {', '.join(late)}"
            )

    # --- problems and the end ------------------------------------------------------------

    def _new(self) -> list[Problem]:
        """Problems found since the last call: the parser's, the rules', the early ones."""
        from ..rules import engine as rules_engine

        parsed = self.scanner.result.problems
        new = parsed[self._parse_seen :]
        self._parse_seen = len(parsed)
        new = new + rules_engine.unreadable_records(new)
        if self.engine is not None:
            found = self.engine.problems
            new += found[self._rule_seen :]
            self._rule_seen = len(found)
        if self._early:
            new += self._early
            self._early = []
        if self.strict:
            new = rules_engine.promote(new)
        self.found += new
        return new

    def so_far(self) -> LogVerdict:
        """The verdict on what was read, without the end-only judgements (``--fail-fast``
        stops here): the problems handed out so far, sorted."""
        from ..rules import LogVerdict

        ruleset = self.rules.name if self.rules is not None else self.flag
        return LogVerdict(
            path=self.path,
            passed=not any(p.is_error for p in self.found),
            division=self._texts.get("submission_division"),
            benchmark=self._texts.get("submission_benchmark"),
            ruleset=ruleset,
            problems=sorted(self.found),
            ruleset_source="" if self.choice is None else self.choice.source,
        )

    def judge_end(self) -> list[Problem]:
        """The end-only judgements if the log ended now (the check goes on)."""
        if self.engine is None:
            return []
        found = self.engine.judge_end()
        return found if not self.strict else _promote(found)

    def finish(self) -> LogVerdict:
        """The end of input: the pending line is read and the verdict is ``check``'s."""
        from ..records import ParseResult
        from ..rules import assemble
        from ..rules.detect import parse_only

        if self._lead:  # fewer than three bytes in all
            self._headed = True
            self.lines.feed(self._lead)
            self._lead = b""
        if not self.read.error:  # a refused start (gzip, UTF-16) was never fed
            self.lines.end()
        self._take()
        result: ParseResult = self.scanner.result
        finish_parse(result, self.read)
        if self.engine is None and not self.parse_only:
            self._settle(force=True)
            if self.rules is None and not self.parse_only:
                if not self._generations and not result.input_error:  # as check_paths
                    from ..rules.detect import not_a_log

                    return not_a_log(result)
                choose(self.path, list(self._witnesses.values()), self.flag, self.setting)
        self._check_choices()
        source = "" if self.choice is None else self.choice.source  # as check_paths says
        if self.parse_only:
            assert self.choice is not None
            if not self._generations and not result.input_error:  # never a pass (v0.5)
                from ..rules.detect import not_a_log

                return not_a_log(result).replace(ruleset_source=source)
            verdict = parse_only(result, self.choice.round.ruleset)
            return verdict.replace(ruleset_source=source)
        assert self.rules is not None and self.engine is not None
        found = [] if result.input_error else self.engine.finish()
        generation = max(self._generations, key=self._generations.__getitem__, default=None)
        rnd = None if self.choice is None else self.choice.round
        verdict = assemble(
            result, found, generation, self.rules.name, self._texts, strict=self.strict, rnd=rnd
        )
        from ..checking import with_cadence, with_folder_check

        if self.choice is not None and self._cadence.records is not None:
            held = ParseResult(path=result.path, records=self._cadence.records)
            verdict = with_cadence(held, verdict, self.choice.round.folder, self.strict)
        return with_folder_check(result, verdict.replace(ruleset_source=source), self.strict)

    def _check_choices(self) -> None:
        """``stale`` when the whole log chooses another round or chain than was used."""
        from ..rules.engine import chain_of

        if self.choice is not None and self.choice.source in ("content", "date", "newest"):
            whole = from_records(list(self._witnesses.values()))
            if whole is None or whole.round != self.choice.round:
                self.stale = True
        if self.engine is not None and self.rules is not None:
            names = [s.name for s in chain_of(self.rules, self._first)]
            if names != [s.name for s in self.engine.sections]:
                self.stale = True


def _promote(problems: list[Problem]) -> list[Problem]:
    from ..rules.engine import promote

    return promote(problems)
