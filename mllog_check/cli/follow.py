"""``mllog-check check --follow LOG``: a growing log checked while the run trains.

stderr gets what happens as it happens: each problem as soon as it is certain, notes
(the round chosen, the file started over, required keys still missing at run_start),
the end-only judgements at run_stop, and a status line (rich on a terminal, plain
lines otherwise). stdout gets one report in ``--format`` when the follow ends: at the
first error with ``--fail-fast`` (exit 1), after run_stop with ``--until run_stop``, or
at the end of input (a pipe closing, SIGINT, SIGTERM); that report, and the exit code,
are ``check``'s on the log as it then is (docs/follow.md).
"""

from __future__ import annotations

import os
import sys
import time

from ..safety import human
from . import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any, TextIO

    from ..follow.live import LiveCheck
    from ..follow.progress import Progress
    from ..problems import Problem
    from ..rounds import Setting
    from ..selection import Selection

# After run_stop, --until run_stop ends once the log has been quiet this long: launchers
# write a few more lines (timing, result) right after it.
QUIET_AFTER_STOP_S = 0.5
PLAIN_STATUS_EVERY_S = 30.0  # a plain status line at most this often (unless an eval came)


def run_follow(
    paths: tuple[str, ...],
    ruleset: str,
    strict: bool,
    fmt: str,
    verbose: bool,
    fail_fast: bool,
    until: str | None,
    setting: Setting | None,
    out: TextIO,
    err: TextIO,
    shown: Selection | None = None,
) -> int:
    """Follow one log; the exit code (0 pass, 1 fail, 2 usage or input). ``shown``: the
    problems shown, as it goes and in the report (selection.py)."""
    if len(paths) != 1:
        err.write("mllog-check check: --follow takes one log (a file, or '-' for a pipe)\n")
        return EXIT_USAGE
    if paths[0] != "-" and os.path.isdir(paths[0]):
        err.write(
            human("mllog-check check: {}: --follow takes a log file, not a directory\n", paths[0])
        )
        return EXIT_USAGE
    follower = Follower(paths[0], ruleset, strict, setting, err, verbose, shown)
    try:
        code = follower.run(fail_fast, until)
    finally:
        follower.close()
    if code is not None:
        return code
    return follower.report(fmt, out)


class Follower:
    """The loop: poll the log, feed the live check, print problems, notes and status."""

    def __init__(
        self,
        path: str,
        ruleset: str,
        strict: bool,
        setting: Setting | None,
        err: TextIO,
        verbose: bool,
        shown: Selection | None = None,
    ) -> None:
        from ..follow.tail import FileTail, PipeTail
        from ..selection import DEFAULT

        self.shown = shown or DEFAULT

        self.path = path
        self.display = "<stdin>" if path == "-" else path
        self.ruleset, self.strict, self.setting = ruleset, strict, setting
        self.err = err
        self.verbose = verbose
        self.tail = PipeTail(sys.stdin.buffer) if path == "-" else FileTail(path)
        self.status = Status(err)
        self.live: LiveCheck
        self.progress: Progress
        self.verdict: Any = None
        self.input_error = False  # the log could not be read: check's exit 2
        self._notes = 0
        self._told_round = False

    def _new_check(self) -> None:
        from ..follow.live import LiveCheck
        from ..follow.progress import Progress

        self.live = LiveCheck(self.display, self.ruleset, strict=self.strict, setting=self.setting)
        self.progress = Progress()
        self.live.on_record = self._on_record
        self._notes = 0
        self._told_round = False
        self._judged_end = False

    def _on_record(self, rec: Any) -> None:
        if self.progress.round is None and self.live.choice is not None:
            self.progress.round = self.live.choice.round.version
        self.progress.feed(rec)

    def run(self, fail_fast: bool, until: str | None) -> int | None:
        """Follow until the end; an exit code when it ends early (usage, --fail-fast)."""
        from ..errors import MllogCheckError
        from ..follow.tail import POLL_SECONDS

        try:
            self._new_check()
        except MllogCheckError as error:
            self.err.write(human("mllog-check check: {}\n", error))
            return EXIT_USAGE
        restore = _on_sigterm()
        quiet_since: float | None = None
        waiting_told = False
        refused_told = ""
        try:
            while True:
                poll = self.tail.poll()
                if poll.refused and poll.refused != refused_told:
                    self.say(f"{self.display}: {poll.refused}; waiting for a regular file")
                elif poll.waiting and not waiting_told and not poll.refused:
                    self.say(f"{self.display}: waiting for the file to appear")
                    waiting_told = True
                refused_told = poll.refused
                if poll.restarted:
                    self.say(f"{self.display}: the file started over: checking it from the start")
                    self._new_check()
                if poll.data:
                    quiet_since = None
                    new = self.shown.apply(self.live.feed(poll.data))
                    self._tell(new)
                    if fail_fast and any(p.is_error for p in new):
                        self.verdict = self.live.so_far()
                        return None
                if self.live.stopped:
                    if until == "run_stop":
                        now = time.monotonic()
                        quiet_since = quiet_since or now
                        if not poll.data and now - quiet_since >= QUIET_AFTER_STOP_S:
                            break
                    elif not self._judged_end:
                        self._judge_end()
                if poll.ended:
                    break
                self.status.show(self.progress)
                if not poll.data:
                    time.sleep(POLL_SECONDS)
        except KeyboardInterrupt:  # SIGINT, or SIGTERM (a job's end): the input ends here
            self.say(f"{self.display}: interrupted: the verdict on the log as it is")
        except MllogCheckError as error:  # the round the content tells: unknown, no rules
            self.err.write(human("mllog-check check: {}\n", error))
            return EXIT_USAGE
        finally:
            restore()
        return self._finish()

    def _finish(self) -> int | None:
        from ..errors import MllogCheckError

        try:
            self.verdict = self.live.finish()
        except MllogCheckError as error:
            self.err.write(human("mllog-check check: {}\n", error))
            return EXIT_USAGE
        self.input_error = self.live.scanner.result.input_error
        self._tell([])
        refused = self.tail.refused
        if refused:  # the path ended as something not read: nothing checked is no pass
            self.say(f"{self.display}: {refused}: the log at the path was not checked")
            self.input_error = True
        elif self.tail.rewritten():
            # Bytes already checked changed (or another file is at the path): what was
            # followed is not the log; check's reading of the file is (docs/follow.md).
            self._recheck(rewritten=True)
        elif self.live.stale and self.path != "-":
            # The round or the chain was chosen before the log told it all: check's own
            # reading of the finished file is the verdict (docs/follow.md).
            self.say(f"{self.display}: chosen before the log named it all: re-checked whole")
            self._recheck()
        elif self.live.stale:
            self.say(
                f"{self.display}: chosen before the log named it all; a pipe cannot be "
                "read again: the verdict may differ from check's"
            )
        return None

    def _recheck(self, rewritten: bool = False) -> None:
        """The verdict is check's on the file as it now is; MLS020 when it was rewritten."""
        from ..checking import check_paths

        run = check_paths([self.path], self.ruleset, strict=self.strict, setting=self.setting)
        self.verdict, self.input_error = run.verdicts[0], run.input_error
        if rewritten:
            from ..syntax_codes import LOG_REWRITTEN

            message = (
                "the file changed behind the follower (bytes already read were rewritten, "
                "or the file was truncated and written again between two polls): the "
                "problems shown while following may not be the log's; the verdict is "
                "check's on the file as it is now"
            )
            problem = LOG_REWRITTEN.problem(self.display, message)
            self.status.print(_text(problem))
            problems = sorted([*self.verdict.problems, problem])
            self.verdict = self.verdict.replace(problems=problems)

    def _judge_end(self) -> None:
        self._judged_end = True
        ending = self.shown.apply(self.live.judge_end())
        if ending:
            self.say(f"{self.display}: at run_stop, if the log ended now:")
            for problem in sorted(ending):
                self.status.print(_text(problem))

    def _tell(self, problems: list[Problem]) -> None:
        if self.live.choice is not None and not self._told_round and self.verbose:
            self._told_round = True
            self.say(f"{self.display}: {self.live.choice.describe()}")
        for problem in problems:
            self.status.print(_text(problem))
        for note in self.live.notes[self._notes :]:
            self.say(note)
        self._notes = len(self.live.notes)

    def say(self, line: str) -> None:
        self.status.print(line)

    def report(self, fmt: str, out: TextIO) -> int:
        from .. import reporters

        self.status.show(self.progress, final=True)
        self.status.close()
        self.verdict = self.shown.verdict(self.verdict)  # the exit code follows what is shown
        reporters.write(fmt, reporters.CHECK, [self.verdict], out)
        out.flush()
        if self.input_error:
            return EXIT_USAGE
        return EXIT_OK if self.verdict.passed else EXIT_PROBLEMS

    def close(self) -> None:
        self.status.close()
        self.tail.close()


def _text(problem: Problem) -> str:
    from ..problems import format_problem

    return format_problem(problem)


def _on_sigterm() -> Any:
    """SIGTERM (Slurm's scancel, Kubernetes' pod end) ends the input like Ctrl-C."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, interrupt)
    return lambda: signal.signal(signal.SIGTERM, before)


class Status:
    """The status line: redrawn in place on a terminal (rich when installed), else plain
    lines now and then (at each new evaluation, at most every PLAIN_STATUS_EVERY_S)."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self.terminal = bool(getattr(err, "isatty", lambda: False)())
        self.live: Any = None
        self.console: Any = None
        self._last = ""
        self._last_at = 0.0
        self._last_eval: Any = None
        if self.terminal:
            try:
                from rich.console import Console
                from rich.live import Live
            except ImportError:  # the analysis extra is not installed: plain lines
                self.terminal = False
            else:
                self.console = Console(file=err, highlight=False, markup=False)
                self.live = Live(console=self.console, refresh_per_second=4, transient=True)
                self.live.start()

    def print(self, line: str) -> None:
        from ..follow.progress import safe

        line = "\n".join(safe(part) for part in line.split("\n"))  # text from the log
        if self.console is not None:
            from rich.text import Text

            self.console.print(Text(line))
        else:
            self.err.write(line + "\n")
            self.err.flush()

    def show(self, progress: Progress, final: bool = False) -> None:
        now = time.monotonic()
        if self.live is not None:
            if now - self._last_at >= 0.25:
                from rich.text import Text

                self._last_at = now
                self.live.update(Text(progress.line()))
            return
        new_eval = progress.last_eval is not self._last_eval
        if not (final or new_eval or now - self._last_at >= PLAIN_STATUS_EVERY_S):
            return
        line = progress.line()
        if line != self._last and progress.records:
            self.err.write(human("status: {}\n", line))
            self.err.flush()
            self._last = line
        self._last_at, self._last_eval = now, progress.last_eval

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None
