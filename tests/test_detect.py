"""--ruleset auto: the round comes from the flag, a setting, a round folder, or the log's content
(one parser and one choice for the project: mllog_check.rounds)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import shared_rounds

import mllog_check
from mllog_check import rounds as d
from mllog_check.records import Generation, Record


def rec(key: str, value: object = None, generation: Generation = Generation.MLLOG) -> Record:
    return Record("x.txt", 1, 1, generation, "", 0.0, "POINT_IN_TIME", key, value, {})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.1", "1.1.0"),
        ("v1.1", "1.1.0"),
        ("1.1.0", "1.1.0"),
        ("training-2.0.0", "2.0.0"),
        ("training_0.6.0", "0.6.0"),
        ("V0.5.0", "0.5.0"),
    ],
)
def test_normalize_ruleset(text: str, expected: str) -> None:
    assert d.parse_round(text).version == expected


# A round no registry holds: well past the newest (scripts/new_round.py adds the next ones).
UNKNOWN = f"{max(r.number[0] for r in d.all_rounds()) + 10}.0"


@pytest.mark.parametrize("text", [UNKNOWN, "1", "latest", "1.1.1", ""])
def test_normalize_rejects_unknown(text: str) -> None:
    with pytest.raises(d.RoundError, match=r"unknown ruleset .*known rounds: 0\.5\.0, .*6\.1\.0"):
        d.parse_round(text)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/data/training_results_v1.1/Google/results/sys/bert/result_0.txt", "1.1.0"),
        ("/data/v0.5.0/google/sys/results/resnet/result_0.txt", "0.5.0"),
        ("/x/v2.0/HazyResearch/results/sys/bert/result_0.txt", "2.0.0"),
        ("/x/mlperf_training_v0.7/a/result_0.txt", "0.7.0"),
        ("/x/training_1.0.0/a/result_0.txt", "1.0.0"),
        # The innermost round folder wins over an outer one.
        ("/x/v1.0/archive/v2.0/a/result_0.txt", "2.0.0"),
    ],
)
def test_round_from_path(path: str, expected: str) -> None:
    found = d.from_path(path)
    assert found is not None
    assert (found.ruleset, found.source) == (expected, "folder")
    assert expected[:3] in found.reason


@pytest.mark.parametrize(
    "path",
    [
        # Version-like system names and files are not round folders.
        "/x/results/1_node_8_A100_NGC21.05_MXNet/resnet/result_0.txt",
        "/x/results/dgxa100_ngc21.05/resnet/result_0.txt",
        f"/x/v{UNKNOWN}/a/result_0.txt",  # not a round mllog-check knows
        "/x/logs/v1.1.txt",  # a file name, not a folder
    ],
)
def test_no_round_in_path(path: str) -> None:
    assert d.from_path(path) is None


def test_flag_wins_over_path_and_content() -> None:
    records = [rec("submission_benchmark", "gnmt")]
    found = d.choose("/x/v1.1/a/result_0.txt", records, flag="2.0")
    assert (found.ruleset, found.source) == ("2.0.0", "flag")


def test_path_wins_over_content() -> None:
    records = [rec("submission_benchmark", "gnmt")]
    found = d.choose("/x/v1.1/a/result_0.txt", records)
    assert (found.ruleset, found.source) == ("1.1.0", "folder")


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        ([rec("run_start", generation=Generation.MLL)], "0.6.0"),
        ([rec("run_start", generation=Generation.MLP)], "0.5.0"),
        ([rec("submission_benchmark", "transformer")], "0.7.0"),
        ([rec("submission_benchmark", "gnmt")], "0.7.0"),
    ],
)
def test_round_from_content(records: list[Record], expected: str) -> None:
    found = d.choose("/tmp/nowhere/result_0.txt", records)
    assert (found.ruleset, found.source) == (expected, "content")
    assert "exist only there" in found.reason


def test_ambiguous_content_takes_the_newest_and_says_so() -> None:
    records = [rec("submission_benchmark", "unet3d")]
    found = d.choose("/tmp/nowhere/result_0.txt", records)
    assert (found.ruleset, found.source) == ("4.0.0", "newest")
    assert found.candidates == ("1.0.0", "1.1.0", "2.0.0", "2.1.0", "3.0.0", "3.1.0", "4.0.0")
    assert found.note is not None and "newest" in found.note and "--ruleset" in found.note


def test_contradicting_content_is_an_error() -> None:
    records = [rec("submission_benchmark", "bert", generation=Generation.MLL)]
    with pytest.raises(d.RoundError, match="contradicts"):
        d.from_records(records)


def test_no_evidence_is_an_error() -> None:
    with pytest.raises(d.RoundError, match="cannot tell the round"):
        d.choose("/tmp/nowhere/result_0.txt", [])


def test_v05_has_no_rules() -> None:
    assert not d.choose("x", [], flag="0.5.0").round.has("rules")
    assert d.choose("x", [], flag="0.6.0").round.has_rules()


@pytest.mark.corpus
def test_corpus_path_and_content_never_disagree(corpus: Path) -> None:
    """Every real log: the path names its round; its content names it too or admits doubt."""
    decided = 0
    for round_dir, rnd in shared_rounds(corpus, at_least=13 + 4):  # with hpc-v0.7..v3.0
        expected = rnd.version
        for path in sorted(round_dir.rglob("result_*.txt")):
            assert d.choose(str(path)).ruleset == expected
            records = mllog_check.parse_file(str(path)).records
            found = d.from_records(records)
            if found is not None and found.source == "newest":
                assert expected in found.candidates, path
            elif found is not None:
                # a run dated in an earlier round's window and re-published: the date
                # gives that round and admits the next; the folder decides, with a note
                republished = d.earlier_window(d.choose(str(path)), records)
                if found.ruleset != expected:
                    assert found.source == "date" and republished, path
                    assert expected in found.alternatives, path
                    continue
                decided += 1
    # All v0.5 and most v0.6 logs (syntax), the v0.7 transformer and gnmt logs.
    assert decided >= 75 + 185 + 90


@pytest.mark.corpus
def test_a_log_checked_with_another_rounds_rules_gets_one_hint(corpus: Path) -> None:
    from mllog_check.rules import check_file

    log = next(iter(sorted((corpus / "v0.6" / "Google" / "results").rglob("result_*.txt"))))
    wrong = check_file(str(log), "1.0.0")
    hints = [p for p in wrong.problems if p.rule == "MLC109"]
    assert len(hints) == 1 and (hints[0].line, hints[0].column) == (0, 0)
    assert "--ruleset 0.6.0" in hints[0].message and ":::MLL" in hints[0].message
    assert not any(p.rule == "MLC109" for p in check_file(str(log), "0.6.0").problems)


def _dated(benchmark: str, day_ms: float) -> list[Record]:
    def at(key: str, value: object = None) -> Record:
        return Record("x.txt", 1, 1, Generation.MLLOG, "", day_ms, "POINT_IN_TIME", key, value, {})

    return [at("submission_benchmark", benchmark), at("run_start")]


DAY = 86_400_000.0


@pytest.mark.parametrize(
    ("benchmark", "day", "expected"),
    [
        # llama2_70b_lora: v4.0-v6.1. Runs of May 2024 are v4.0's (published 2024-06-12).
        ("llama2_70b_lora", "2024-05-11", "4.0.0"),
        ("llama2_70b_lora", "2024-06-12", "4.1.0"),  # on the publication day: the next
        ("llama2_70b_lora", "2025-10-10", "5.1.0"),
        ("llama2_70b_lora", "2026-04-01", "6.0.0"),
        # After the last dated round (6.0.0, 2026-06-16): the first round not yet dated.
        ("llama2_70b_lora", "2026-09-01", "6.1.0"),
        # Benchmarks narrow first: llama31_405b exists in v5.0 to v6.0 only.
        ("llama31_405b", "2024-05-11", "5.0.0"),
    ],
)
def test_the_runs_date_chooses_among_the_rounds_the_content_allows(
    benchmark: str, day: str, expected: str
) -> None:
    year, month, dd = (int(x) for x in day.split("-"))
    ms = d._days_from_civil(year, month, dd) * DAY + 3_600_000
    found = d.choose("/tmp/nowhere/result_0.txt", _dated(benchmark, ms))
    assert (found.ruleset, found.source) == (expected, "date"), found.reason
    assert f"run dated {day}" in found.reason and found.note is None


def test_a_log_newer_than_every_round_it_fits_takes_the_newest_and_says_so() -> None:
    ms = d._days_from_civil(2027, 1, 1) * DAY
    found = d.choose("/tmp/nowhere/result_0.txt", _dated("resnet", ms))
    assert (found.ruleset, found.source) == ("4.0.0", "newest")
    assert found.note is not None and "--ruleset" in found.note


@pytest.mark.parametrize("ms", [float("nan"), float("inf"), -float("inf"), 1e300, 1e16])
def test_a_time_that_is_no_calendar_day_dates_nothing(ms: float) -> None:
    # A hostile time_ms once raised OverflowError here (found by benchmarks/fuzz.py).
    assert d.by_date(["1.0.0", "4.0.0"], ms) is None
    found = d.choose("/tmp/nowhere/result_0.txt", _dated("resnet", ms))
    assert found.source != "date"


def test_every_round_but_the_unpublished_has_a_publication_date() -> None:
    # Training rounds; MLPerf HPC's are not dated yet (their choice stays the newest).
    rounds = [r for r in d.all_rounds() if r.usage == "training"]
    dated = [r.published_ms for r in rounds if r.published is not None]
    assert dated == sorted(dated) and len(set(dated)) == len(dated)
    # The unpublished rounds are the newest ones (at least one: the round being run),
    # whichever the registry holds (scripts/new_round.py adds more).
    undated = [r.version for r in rounds if r.published is None]
    assert undated and undated == [r.version for r in rounds[len(dated) :]]


def _with_round(tmp_path: Path, entry: str) -> Path:
    """The shipped registry with one more round entry (YAML lines) at its end."""
    shipped = Path(d.shipped_schemas()) / "rounds.yaml"
    path = tmp_path / "rounds.yaml"
    path.write_text(shipped.read_text(encoding="utf-8").rstrip("\n") + "\n" + entry)
    return path


def test_the_registry_refuses_dates_out_of_order(tmp_path: Path) -> None:
    """A dated round after an undated one (a run of the undated round's window would be
    taken as the dated one's) and a date not after the previous round's are refused."""
    training = [r for r in d.all_rounds() if r.usage == "training"]
    newest, last_dated = training[-1], [r for r in training if r.published][-1]
    nxt = f"{newest.number[0]}.{newest.number[1] + 1}.0"
    entry = '  - version: {v}\n    benchmarks: {{resnet: 5}}\n    dates: {{published: "{day}"}}\n'
    assert newest.published is None  # the round being run: see the test above
    after = entry.format(v=nxt, day="2099-01-01")
    with pytest.raises(d.RegistryError, match=f"round {nxt} is dated .* round [0-9.]+ is not"):
        d.load_registry(_with_round(tmp_path, after))
    # an undated round after the undated newest is fine
    undated = f"  - version: {nxt}\n    benchmarks: {{resnet: 5}}\n"
    assert d.load_registry(_with_round(tmp_path, undated)).get(nxt).published is None
    text = (Path(d.shipped_schemas()) / "rounds.yaml").read_text(encoding="utf-8")
    stamp = f'dates: {{published: "{last_dated.published}"}}'
    assert text.count(stamp) == 1
    (tmp_path / "rounds.yaml").write_text(text.replace(stamp, 'dates: {published: "2018-01-01"}'))
    with pytest.raises(d.RegistryError, match=f"round {last_dated.version}'s date .* not after"):
        d.load_registry(tmp_path / "rounds.yaml")


@pytest.mark.corpus
def test_corpus_logs_outside_their_folder_get_their_round(corpus: Path) -> None:
    """Every real Training log, its round folder ignored: the content and the run's date
    give the round it was published in, or the earlier round of a re-published run."""
    sources: dict[str, int] = {}
    for round_dir in sorted(corpus.iterdir()):
        if round_dir.name.startswith("hpc"):  # MLPerf HPC: not a Training round
            continue
        expected = d.parse_round(round_dir.name).version
        for path in sorted(round_dir.rglob("result_*.txt")):
            records = mllog_check.parse_file(str(path)).records
            found = d.from_records(records)
            if found is None:
                continue
            sources[found.source] = sources.get(found.source, 0) + 1
            if found.ruleset == expected:
                continue
            # a run re-published a round later: dated in the earlier round's window, and
            # its folder's choice says so (rounds.earlier_window)
            assert d.earlier_window(d.choose(str(path)), records), (path, found.reason)
            assert expected in found.alternatives, (path, found.reason)
    assert sources.get("date", 0) >= 1300 and "newest" not in sources


@pytest.mark.corpus
def test_a_published_v5_1_log_outside_its_round_folder_is_checked_as_v5_1(
    corpus: Path, tmp_path: Path
) -> None:
    """Was: the newest round the content allows (6.1.0), and MLC010 errors for keys that
    round added. The run's date says v5.1."""
    import shutil
    import subprocess
    import sys

    source = corpus / "v5.1/AMD/results/MI355X_EPYC_9575F_pytorch/llama31_8b/result_0.txt"
    log = tmp_path / "result_0.txt"
    shutil.copy(source, log)
    code = "from mllog_check.cli import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", code, "check", "-v", str(log)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ruleset 5.1.0 (from date:" in done.stdout + done.stderr
    assert "MLC010" not in done.stdout


@pytest.mark.corpus
def test_check_notes_a_run_dated_in_an_earlier_rounds_window(corpus: Path) -> None:
    """A published log whose run predates the previous round's results is checked as its
    folder's round, and `check` says so once; a log dated in its own window gets no note."""
    from mllog_check.checking import check_paths

    seen = {True: 0, False: 0}
    for round_dir, _ in shared_rounds(corpus, at_least=13):
        for path in sorted(round_dir.rglob("result_*.txt")):
            if seen == {True: 3, False: 3}:
                break
            records = mllog_check.parse_file(str(path)).records
            window = d.earlier_window(d.choose(str(path)), records)
            if seen[window is not None] >= 3:
                continue
            seen[window is not None] += 1
            run = check_paths([str(path)], "auto")
            notes = [text for _, text in run.messages if "re-published in" in text]
            assert len(notes) == (1 if window else 0), path
            assert run.verdicts[0].ruleset.endswith(d.parse_round(round_dir.name).version)
    assert seen == {True: 3, False: 3}
