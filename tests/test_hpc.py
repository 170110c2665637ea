"""MLPerf HPC: the round registry's HPC rounds, their rules and verdicts (docs/hpc.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import has_module, needs, read_oracle, require

import mllog_check
from mllog_check import rounds
from mllog_check.rules import check_file, check_log, engine, load_ruleset

HPC_ROUNDS = ("hpc-v1.0", "hpc-v2.0", "hpc-v3.0")


@pytest.mark.parametrize(
    ("text", "usage", "version"),
    [
        ("hpc-3.0", None, "hpc-3.0.0"),
        ("hpc_3.0.0", None, "hpc-3.0.0"),
        ("hpc-v3.0", None, "hpc-3.0.0"),
        ("hpc_results_v3.0", None, "hpc-3.0.0"),
        ("HPC-1.0.0", None, "hpc-1.0.0"),
        ("3.0.0", "hpc", "hpc-3.0.0"),
        ("v2.0", "hpc", "hpc-2.0.0"),
        ("hpc-2.0", "hpc", "hpc-2.0.0"),
        ("3.0.0", None, "3.0.0"),
        ("3.0.0", "training", "3.0.0"),
        ("hpc-v0.7", None, "hpc-0.7.0"),
    ],
)
def test_every_spelling_names_its_round(text: str, usage: str | None, version: str) -> None:
    assert rounds.parse_round(text, usage).version == version


def test_a_name_of_the_other_usage_is_refused() -> None:
    with pytest.raises(rounds.RoundError, match="for usage 'training'"):
        rounds.parse_round("hpc-3.0", "training")
    with pytest.raises(rounds.RoundError, match="unknown usage"):
        rounds.usage_of("inference")


def test_hpc_rounds_know_their_benchmarks_runs_and_data() -> None:
    v30 = rounds.parse_round("hpc-3.0")
    assert v30.usage == "hpc" and v30.is_hpc and v30.release == "3.0.0"
    assert (v30.folder, v30.ruleset, v30.number) == ("hpc-v3.0", "hpc-3.0.0", (3, 0, 0))
    assert v30.runs() == {"cosmoflow": 10, "deepcam": 5, "oc20": 5, "openfold": 10}
    assert rounds.parse_round("hpc-1.0").benchmark("openfold") is None
    assert v30.has_rules() and v30.path("rcp") is not None
    # v0.7 HPC predates the official rule files: parse checks only.
    v07 = rounds.parse_round("hpc-0.7")
    assert not v07.has("rules") and set(v07.runs()) == {"cosmoflow", "deepcam"}
    # Training rounds are unchanged by the HPC entries.
    assert rounds.parse_round("3.0").usage == "training"
    assert rounds.parse_round("3.0").ruleset == "training-3.0.0"


def test_content_tells_hpc_from_training() -> None:
    hpc = [_record("submission_benchmark", "openfold")]
    found = rounds.from_records(hpc)
    assert found is not None and found.ruleset == "hpc-3.0.0" and found.source == "content"
    found = rounds.from_records([_record("submission_benchmark", "deepcam")])
    assert found is not None and found.round.is_hpc and found.source == "newest"
    # No benchmark: the syntax alone keeps the log a Training log (the official default).
    found = rounds.from_records([_record("run_start", None)])
    assert found is not None and not found.round.is_hpc


def test_folders_tell_the_round(tmp_path: Path) -> None:
    log = tmp_path / "hpc_results_v2.0" / "Org" / "results" / "s" / "strong" / "oc20" / "r.txt"
    assert rounds.choose(str(log)).ruleset == "hpc-2.0.0"
    assert rounds.choose(str(tmp_path / "hpc-v3.0" / "x" / "r.txt")).ruleset == "hpc-3.0.0"


def _record(key: str, value: object) -> mllog_check.Record:
    text = f':::MLLOG {{"key": "{key}", "value": null, "time_ms": 1, "metadata": {{}}}}\n'
    (rec,) = mllog_check.parse_text(text).records
    return rec._replace(value=value)


# --- rules ------------------------------------------------------------------------------


def _chain(path: Path, ruleset: str) -> list[str]:
    records = mllog_check.parse_file(str(path)).records
    return [s.name for s in engine.chain(load_ruleset(ruleset), records)]


@pytest.mark.corpus
def test_deepcam_applies_its_optimizer_and_scheduler_variants(corpus: Path) -> None:
    chains = {
        tuple(_chain(p, "hpc-3.0.0"))
        for p in sorted((corpus / "hpc-v3.0").rglob("strong/deepcam/result_*.txt"))
    }
    base = ("common", "closed", "closed_deepcam")
    # Clemson: LAMB with cosine annealing; Perlmutter: LAMB with multistep.
    assert {c[:3] for c in chains} == {base}
    assert {frozenset(c[3:]) for c in chains} == {
        frozenset({"closed_deepcam_lamb", "closed_deepcam_cosine_annealing"}),
        frozenset({"closed_deepcam_lamb", "closed_deepcam_multistep"}),
    }


@pytest.mark.corpus
@pytest.mark.parametrize("round_", HPC_ROUNDS)
def test_verdicts_equal_the_official_checker(corpus: Path, oracle: Path, round_: str) -> None:
    rows = read_oracle(oracle, f"compliance_{round_}.csv")
    assert rows
    differing = []
    for row in rows:
        verdict = check_file(str(corpus / round_ / row["file"]), "auto")
        assert verdict.ruleset == rounds.parse_round(round_).version, row["file"]
        assert verdict.benchmark == row["benchmark"], row["file"]
        ours = "pass" if verdict.passed else "fail"
        if ours != row["official_verdict"]:
            differing.append((row["file"], ours, row["official_verdict"]))
    assert differing == []


def _edited(corpus: Path, tmp_path: Path, pattern: str, drop: str = "", swap: tuple = ()) -> Path:
    source = next(iter(sorted(corpus.rglob(pattern))))
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    out = [line for line in lines if not (drop and f'"key": "{drop}"' in line)]
    if swap:
        out = [line.replace(*swap) for line in out]
    target = tmp_path / source.name
    target.write_text("".join(out), encoding="utf-8")
    return target


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("pattern", "ruleset", "drop", "swap", "code", "key"),
    [
        # a weak-scaling model that never stopped (the official v2.0 fails)
        ("hpc-v3.0/*/results/*/weak/cosmoflow/result_1.txt", "hpc-3.0.0", "run_stop", (),
         "MLC010", "run_stop"),
        # OpenFold's fixed settings
        ("hpc-v3.0/TACC/results/*/strong/openfold/result_1.txt", "hpc-3.0.0", "", (
            '"key": "val_every_iters", "value": 40', '"key": "val_every_iters", "value": 41'),
         "MLC020", "val_every_iters"),
        # DeepCAM's LAMB variant requires opt_max_grad_norm
        ("hpc-v3.0/Clemson/results/*/strong/deepcam/result_0.txt", "hpc-3.0.0",
         "opt_max_grad_norm", (), "MLC010", "opt_max_grad_norm"),
        # closed runs log their instance size (weak scaling's S)
        ("hpc-v1.0/LBNL/results/*/strong/oc20/result_1.txt", "hpc-1.0.0", "number_of_nodes", (),
         "MLC010", "number_of_nodes"),
    ],
)  # fmt: skip
def test_edited_real_logs_fail_as_the_official_checker_would(
    corpus: Path, tmp_path: Path, pattern: str, ruleset: str, drop: str, swap: tuple,
    code: str, key: str,
) -> None:  # fmt: skip
    path = _edited(corpus, tmp_path, pattern, drop, swap)
    verdict = check_file(str(path), ruleset)
    errors = [p for p in verdict.problems if p.is_error]
    assert not verdict.passed
    assert {p.rule for p in errors} == {code} and key in errors[0].message


@pytest.mark.corpus
def test_cosmoflow_quality_is_a_loss_below_the_target(corpus: Path, tmp_path: Path) -> None:
    source = next(iter(sorted((corpus / "hpc-v3.0").rglob("strong/cosmoflow/result_1.txt"))))
    records = mllog_check.parse_file(str(source)).records
    assert check_log(mllog_check.parse_file(str(source)), "hpc-3.0.0").passed
    last = max(r.value for r in records if r.key == "eval_error")
    assert last > 0.124  # early evaluations are above the target; the last is below
    lines = [
        line
        for line in source.read_text(encoding="utf-8").splitlines(keepends=True)
        if '"key": "eval_error"' not in line or f'"value": {last}' in line
    ]
    target = tmp_path / "result_1.txt"
    target.write_text("".join(lines), encoding="utf-8")
    verdict = check_file(str(target), "hpc-3.0.0")
    assert [p.rule for p in verdict.problems if p.is_error] == ["MLC040"]


# --- command line -----------------------------------------------------------------------


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (["--usage", "hpc", "--ruleset", "3.0.0"], 0, "closed openfold, hpc-3.0.0"),
        (["--ruleset", "hpc-3.0"], 0, "hpc-3.0.0"),
        ([], 0, "hpc-3.0.0"),  # the folder hpc-v3.0 names the round
        (["--usage", "hpc", "--ruleset", "3.1.0"], 2, "unknown ruleset '3.1.0' for usage 'hpc'"),
        # Training 3.0.0 rules do not know OpenFold (MLC050 names the HPC round)
        (["--ruleset", "3.0.0"], 1, "rounds that have it: hpc-3.0.0"),
    ],
)
def test_check_command_takes_the_official_usage_flags(
    corpus: Path, args: list[str], code: int, said: str
) -> None:
    from click.testing import CliRunner

    from mllog_check.cli import cli

    log = next(iter(sorted((corpus / "hpc-v3.0").rglob("strong/openfold/result_1.txt"))))
    result = CliRunner().invoke(cli, ["check", *args, str(log)])
    assert result.exit_code == code, result.output
    assert said in result.output


# --- scores -----------------------------------------------------------------------------


def _system_of(row: dict[str, str]) -> str:
    """The system folder: the description's file name in the summarizer's details_url."""
    return row["details_url"].rsplit("/", 1)[-1].removesuffix(".json")


@pytest.mark.corpus
@pytest.mark.parametrize("round_", HPC_ROUNDS)
def test_strong_scores_equal_the_official_summarizer(
    corpus: Path, oracle: Path, round_: str
) -> None:
    from mllog_check.results import compute_scores

    report = compute_scores([str(corpus / round_)])
    ours = {(s.org, s.system, s.benchmark): s for s in report.scores}
    rnd = rounds.parse_round(round_)
    assert rnd.benchmarks is not None
    official: dict[tuple[str, str, str], float] = {}
    for row in read_oracle(oracle, f"scores_{round_}.csv"):
        for bench in rnd.benchmarks:
            if row.get(bench):
                official[(row["org_dir"], _system_of(row), bench)] = float(row[bench])
    assert official and set(ours) == set(official)
    for key, minutes in official.items():
        assert ours[key].minutes == pytest.approx(minutes, abs=0.01), key


@pytest.mark.corpus
@pytest.mark.parametrize("round_", HPC_ROUNDS)
def test_weak_tuples_equal_the_official_summarizer(corpus: Path, oracle: Path, round_: str) -> None:
    from mllog_check.results import compute_scores

    report = compute_scores([str(corpus / round_)])
    ours = {(w.org, w.system, w.benchmark): w for w in report.weak}
    rnd = rounds.parse_round(round_)
    assert rnd.benchmarks is not None
    official = {}
    for row in read_oracle(oracle, f"scores_{round_}_weak.csv"):
        for bench in rnd.benchmarks:
            if row.get(f"{bench}:number_of_models"):
                official[(row["org_dir"], _system_of(row), bench)] = (
                    int(float(row[f"{bench}:number_of_models"])),
                    int(float(row[f"{bench}:instance_scale"])),
                    float(row[f"{bench}:time_to_train_all"]),
                    int(row["accelerators_count"]),
                )
    assert set(ours) == set(official)  # v2.0's corpus has no weak-scaling folder
    for key, (models, scale, minutes, accelerators) in official.items():
        weak = ours[key]
        assert (weak.models, weak.instance_scale, weak.accelerators) == (
            models,
            scale,
            accelerators,
        ), key
        assert weak.minutes == pytest.approx(minutes, abs=0.01), key
        assert weak.models_per_minute == pytest.approx(models / minutes)


@pytest.mark.corpus
@needs(has_module("mlperf_logging"), "mlperf-logging not installed (test extras)")
def test_rcp_verdicts_equal_the_official_rcp_checker(corpus: Path) -> None:
    """The official RCP checker (an oracle only) as the summarizer runs it (pruned
    references), on every strong-scaling folder of the HPC corpus."""
    import logging

    from mlperf_logging.rcp_checker import rcp_checker

    from mllog_check.results import compute_scores

    logging.disable(logging.CRITICAL)
    try:
        checked = 0
        for round_ in HPC_ROUNDS:
            release = rounds.parse_round(round_).release
            report = compute_scores([str(corpus / round_)])
            # strong results, and weak ones as the official package checker checks them
            found = [(s.folder, s.rcp_verdict) for s in report.scores]
            found += [(w.folder, w.rcp_verdict) for w in report.weak]
            for folder, verdict in found:
                passed, message, _ = rcp_checker.check_directory(
                    folder, "hpc", release, False, False, rcp_pass="pruned_rcps"
                )
                assert (verdict == "Pass") == passed, (folder, message)
                if not passed:
                    expected = {"RCP found": "Fail", "RCP Interpolation": "Interp. Fail"}
                    assert verdict == expected[message], folder
                checked += 1
    finally:
        logging.disable(logging.NOTSET)
    assert checked >= 17 + 4


def test_weak_scaling_fixtures_say_what_the_summarizer_skips() -> None:
    from conftest import FIXTURES

    from mllog_check.results import compute_scores

    base = FIXTURES / "score" / "hpc-v1.0"
    ok = compute_scores([str(base / "weak_ok")], "hpc-1.0.0")
    (weak,) = ok.weak
    assert (weak.models, weak.instance_scale, weak.accelerators, weak.valid) == (5, 4, 32, True)
    assert weak.minutes == pytest.approx(16.0) and not ok.scores and not ok.problems
    skipped = compute_scores([str(base / "weak_one_skipped")], "hpc-1.0.0")
    assert skipped.weak[0].models == 5 and skipped.weak[0].models_total == 6
    assert [p.rule for p in skipped.problems] == ["MLR052"]
    few = compute_scores([str(base / "weak_too_few")], "hpc-1.0.0")
    assert not few.weak[0].valid and few.weak[0].minutes is None


def test_subfolders_the_official_summarizer_does_not_read_are_named(tmp_path: Path) -> None:
    import shutil

    from conftest import FIXTURES

    from mllog_check.results import compute_scores

    tree = tmp_path / "Example"
    shutil.copytree(FIXTURES / "score" / "hpc-v1.0" / "weak_one_skipped" / "Example", tree)
    folder = tree / "results" / "hpc8" / "weak" / "oc20"
    (folder / "pruned_results").mkdir()
    (folder / "result_5.txt").rename(folder / "pruned_results" / "result_5.txt")
    report = compute_scores([str(tree)], "hpc-1.0.0")
    assert report.weak[0].models_total == 5
    stray = [p for p in report.problems if p.rule == "MLR031"]
    assert len(stray) == 1 and stray[0].path.endswith("pruned_results")
    assert "official summarizer" in stray[0].message


# --- package and audit ------------------------------------------------------------------


@pytest.mark.corpus
@pytest.mark.parametrize("round_", HPC_ROUNDS)
def test_package_verdicts_equal_the_official_package_checker(
    corpus: Path, oracle: Path, round_: str, tmp_path: Path
) -> None:
    from official import verify_script

    from mllog_check.submission.package import check_package

    rows = read_oracle(oracle, f"package_{round_}.csv")
    assert rows
    for row in rows:
        org = corpus / round_ / row["org"]
        report = check_package(org, "auto")
        assert report.ruleset == rounds.parse_round(round_).version
        ours = "pass" if report.official_passed else "fail"
        release = rounds.parse_round(round_).release
        # the official package checker (oracle) plus repo_checker (docs/package.md)
        official = verify_script(row["official_verdict"], org, "hpc", release, tmp_path)
        assert ours == official, (row["org"], row["first_errors"][:300])
        if "logs no seed" in row["first_errors"]:
            assert any(p.rule == "MLP040" for p in report.problems), row["org"]
        if "RCP Test Failed" in row["first_errors"]:
            assert any(p.rule == "MLR010" for p in report.problems), row["org"]


@pytest.mark.corpus
def test_package_reads_the_strong_and_weak_layout(corpus: Path) -> None:
    from mllog_check.submission.package import check_package

    report = check_package(corpus / "hpc-v1.0" / "LBNL", "auto")
    scalings = {(s["system"], s["benchmark"]): s.get("scaling") for s in report.scores}
    assert scalings[("perlmutter_10x128x4_ngc21.09_mxnet", "cosmoflow")] == "weak"
    assert scalings[("perlmutter_256x4_ngc21.09_mxnet", "cosmoflow")] == "strong"
    weak = [s for s in report.scores if s.get("scaling") == "weak"]
    assert {(s["models"], s["instance_scale"]) for s in weak} == {(10, 512)}
    assert not any(p.rule in ("MLP001", "MLP002", "MLP003") for p in report.problems)


def test_package_weak_folder_needs_at_least_the_run_count(tmp_path: Path) -> None:
    import shutil

    from conftest import FIXTURES

    from mllog_check.submission.package import check_package

    org = tmp_path / "hpc_results_v1.0" / "Example"
    shutil.copytree(FIXTURES / "score" / "hpc-v1.0" / "weak_too_few" / "Example", org)
    report = check_package(org, "auto")
    counts = [p for p in report.problems if p.rule == "MLP003"]
    assert len(counts) == 1 and "at least 5" in counts[0].message
    assert not report.official_passed
    more = tmp_path / "more" / "hpc_results_v1.0" / "Example"
    shutil.copytree(FIXTURES / "score" / "hpc-v1.0" / "weak_one_skipped" / "Example", more)
    assert not any(p.rule == "MLP003" for p in check_package(more, "auto").problems)


@pytest.mark.corpus
def test_audit_reads_a_whole_hpc_round(corpus: Path) -> None:
    from mllog_check.submission.audit import run_audit

    result = run_audit(corpus / "hpc-v3.0", "auto", jobs=1)
    assert result.ruleset == "hpc-3.0.0"
    # the official package checker's verdicts (package_hpc-v3.0.csv)
    assert {o["org"]: o["passed"] for o in result.orgs} == {
        "Clemson": True,
        "HPE+LBNL": False,
        "TACC": True,
    }
    assert {s.get("scaling") for s in result.scores} == {"strong", "weak"}


@pytest.mark.corpus
def test_audit_places_hpc_anomalies_in_their_result_sets(corpus: Path) -> None:
    """An anomaly of <system>/<strong|weak>/<benchmark> belongs to that benchmark's result
    (the tree model's ResultSet), never to a result named "strong" or "weak"."""
    from mllog_check.submission.audit import run_audit
    from mllog_check.submission.ranking import result_of

    result = run_audit(corpus / "hpc-v3.0", "auto", jobs=1)
    benchmarks = {"cosmoflow", "deepcam", "oc20", "openfold"}
    assert {row["benchmark"] for row in result.results} <= benchmarks
    assert len(result.results) == len(
        {(s["org"], s["system"], s["benchmark"]) for s in result.scores}
    )
    placed = [a.context.benchmark for a in result.anomalies if a.context.benchmark]
    assert placed and set(placed) <= benchmarks
    # A folder's own problem names its system only, as in Training; its result is the folder's.
    failing = [result_of(a) for a in result.anomalies if a.name == "published-but-failing"]
    assert failing and all(key is not None and key[2] in benchmarks for key in failing)
    folder = "Org/results/sys/weak/cosmoflow"
    for path in (folder, folder + "/result_0.txt"):
        row = {"org": "Org", "system": "sys", "benchmark": "", "path": path, "kind": "x"}
        assert result_of(row) == ("Org", "sys", "cosmoflow")


# --- report -----------------------------------------------------------------------------


@pytest.mark.corpus
def test_report_shows_strong_scaling_and_weak_scaling_charts(
    corpus: Path, oracle: Path, tmp_path: Path
) -> None:
    require(has_module("jinja2"), "jinja2 not installed (report extra)")
    from mllog_check.html_report import build_report

    result = build_report([str(corpus / "hpc-v1.0")], tmp_path / "r.html", jobs=1)
    page = result.page
    rnd = rounds.parse_round("hpc-v1.0")
    assert rnd.benchmarks is not None
    strong = read_oracle(oracle, "scores_hpc-v1.0.csv")
    weak = {
        (_system_of(row), bench): (
            int(float(row[f"{bench}:number_of_models"])),
            float(row[f"{bench}:time_to_train_all"]),
            row["system"],  # the description's system_name, which names a chart's line
        )
        for row in read_oracle(oracle, "scores_hpc-v1.0_weak.csv")
        for bench in rnd.benchmarks
        if row.get(f"{bench}:number_of_models")
    }
    # strong results as Training's: a time-to-train chart per benchmark
    assert {b.name for b in page.benchmarks} == {
        b for row in strong for b in rnd.benchmarks if row.get(b)
    }
    # strong results only (one per oracle cell); weak folders are not result sets
    assert len(page.sets) == sum(1 for row in strong for b in rnd.benchmarks if row.get(b))
    assert {(w["system"], w["benchmark"], w["models"]) for w in page.data.weak} == {
        (system, bench, models) for (system, bench), (models, *_) in weak.items()
    }
    charts = {c.id: c for c in page.weak_charts}
    assert set(charts) == {f"weak-{bench}" for _, bench in weak}
    for (_, bench), (models, minutes, name) in weak.items():
        (series,) = [s for s in charts[f"weak-{bench}"].series if s.name.endswith(f" {name}")]
        # from (0, 0) one step per model to (time to train all, M)
        assert [p.y for p in series.points] == [float(i) for i in range(models + 1)]
        assert series.points[-1].x == pytest.approx(minutes, abs=0.01)
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'id="weak"' in html and "models/min" in html.lower()
    # CosmoFlow's convergence curves read eval_error (a loss)
    curves = [c for s in page.sets if s.benchmark == "cosmoflow" for c in s.curves]
    assert curves and all(c.point_count > 0 for c in curves)


@pytest.mark.corpus
def test_report_prices_weak_scaling_per_model(corpus: Path, tmp_path: Path) -> None:
    require(has_module("jinja2"), "jinja2 not installed (report extra)")
    from conftest import FIXTURES

    from mllog_check.html_report import build_report

    prices = [str(FIXTURES / "prices" / "hypothetical_hpc.csv")]
    page = build_report(
        [str(corpus / "hpc-v1.0" / "LBNL")], tmp_path / "r.html", prices=prices
    ).page
    rows = [r for section in page.cost for r in section["rows"]]
    benchmarks = {r.benchmark for r in rows}
    assert {"cosmoflow", "cosmoflow (weak, per model)", "deepcam (weak, per model)"} <= benchmarks


# --- cost -------------------------------------------------------------------------------


@pytest.mark.corpus
def test_cost_per_strong_result_and_per_weak_scaling_model(corpus: Path) -> None:
    from conftest import FIXTURES

    from mllog_check.cost import cost_report

    prices = str(FIXTURES / "prices" / "hypothetical_hpc.csv")
    report = cost_report([str(corpus / "hpc-v1.0" / "LBNL")], [prices])
    rows = {(r.system, r.benchmark): r for r in report.rows}
    strong = rows[("perlmutter_256x4_ngc21.09_mxnet", "cosmoflow")]
    assert strong.minutes is not None and strong.minutes == pytest.approx(8.0154, abs=0.01)
    # a cloud-hourly price is per instance: the description's 256 nodes (docs/cost.md)
    assert (strong.instances, strong.instances_from) == (256, "number_of_nodes")
    assert strong.cost_per_run == pytest.approx(1000.0 * 256 * strong.minutes / 60.0)
    # weak scaling: the system's time to train all (14.70 min, its 1,280 nodes) shared by
    # its 10 models
    weak = rows[("perlmutter_10x128x4_ngc21.09_mxnet", "cosmoflow (weak, per model)")]
    assert weak.minutes == pytest.approx(14.70215 / 10, abs=1e-6)
    assert (weak.instances, weak.instances_from) == (1280, "number_of_nodes")
    assert weak.cost_per_run == pytest.approx(1000.0 * 1280 * 14.70215 / 10 / 60.0)
    assert weak.accelerators == 5120
    # strong and weak rows are never compared with each other (their own groups)
    groups = {(r.benchmark, r.ruleset) for r in report.rows}
    assert ("cosmoflow", "hpc-1.0.0") in groups
    assert ("cosmoflow (weak, per model)", "hpc-1.0.0") in groups


@pytest.mark.corpus
def test_score_command_writes_weak_scaling_in_every_format(corpus: Path) -> None:
    import csv
    import io
    import json

    from click.testing import CliRunner

    from mllog_check.cli import cli

    org = str(corpus / "hpc-v1.0" / "LBNL")
    runner = CliRunner()
    table = runner.invoke(cli, ["score", org])
    assert table.exit_code == 1  # the strong CosmoFlow result fails its RCP check
    assert "Weak scaling" in table.output and "10/10" in table.output
    as_json = json.loads(runner.invoke(cli, ["score", "--format", "json", org]).stdout)
    weak = {(w["benchmark"], w["models"], w["instance_scale"]) for w in as_json["weak_scaling"]}
    assert weak == {("cosmoflow", 10, 512), ("deepcam", 10, 512)}
    assert len(as_json["scores"]) == 3
    text = runner.invoke(cli, ["score", "--format", "csv", org]).stdout
    header_lines = [line for line in text.splitlines() if line.startswith("org,")]
    assert len(header_lines) == 2  # the strong block, then the weak block with its header
    weak_block = text[text.index(header_lines[1]) :]
    rows = list(csv.DictReader(io.StringIO(weak_block)))
    assert {r["benchmark"] for r in rows} == {"cosmoflow", "deepcam"}
    assert all(float(r["models_per_minute"]) > 0 for r in rows)
    # the official tools' pair names the round for package too
    package = runner.invoke(cli, ["package", "--usage", "hpc", "--ruleset", "1.0.0", org])
    assert package.exit_code == 1 and "FAIL" in package.output


@pytest.mark.parametrize(
    ("nodes", "per_node", "scale"),
    [
        (8, 4, 32),
        (8, 0, 8),  # CPU systems (Fugaku) log 0 accelerators: one per node, as official
        ("16", "4", 64),  # the official int() reads numeric strings
        (2.9, 4, 8),  # and truncates floats
        (True, 4, 4),
        ("abc", 4, None),  # not a number: no size (never an exception)
        (None, 4, None),
        ([1], 4, None),
        (float("nan"), 4, None),
        (float("inf"), 4, None),
        (10**30, 4, 4 * 10**30),
    ],
)
def test_instance_scale_reads_values_as_the_summarizer_or_says_none(
    nodes: object, per_node: object, scale: int | None
) -> None:
    from mllog_check.results.weak import instance_scale

    records = [_record("number_of_nodes", nodes), _record("accelerators_per_node", per_node)]
    assert instance_scale(records) == scale
    assert instance_scale(records[:1]) is None  # a missing key: no size


@pytest.mark.corpus
def test_weak_models_beyond_the_systems_accelerators_are_reported(
    corpus: Path, tmp_path: Path
) -> None:
    """Real hpc-v1.0 LBNL weak-scaling CosmoFlow: 10 models × 512 accelerators as logged
    = 5,120, the system's 1,280 × 4. A description of 1,000 nodes (4,000 accelerators)
    is fewer than the models used: MLR066, the tuple kept as the summarizer gives it."""
    import shutil

    from mllog_check.results import compute_scores

    system = "perlmutter_10x128x4_ngc21.09_mxnet"
    src = corpus / "hpc-v1.0" / "LBNL"
    org = tmp_path / "hpc-v1.0" / "LBNL"
    folder = org / "results" / system / "weak" / "cosmoflow"
    shutil.copytree(src / "results" / system / "weak" / "cosmoflow", folder)
    (org / "systems").mkdir()
    described = org / "systems" / f"{system}.json"
    shutil.copy(src / "systems" / f"{system}.json", described)
    clean = compute_scores([str(org)])
    assert "MLR066" not in {p.rule for p in clean.problems}
    text = described.read_text(encoding="utf-8")
    described.write_text(text.replace('"1280"', '"1000"'), encoding="utf-8")
    report = compute_scores([str(org)])
    (weak,) = report.weak
    assert (weak.models, weak.instance_scale, weak.accelerators) == (10, 512, 4000)
    assert weak.valid and weak.minutes == clean.weak[0].minutes
    (found,) = [p for p in report.problems if p.rule == "MLR066"]
    assert found.message == (
        "10 models × 512 accelerators each (as logged) = 5120, more than the system's 4000"
    )
    assert found.message in weak.reason and not found.is_error


def test_weak_row_states_weak_score_fields() -> None:
    """score's weak-scaling rows (WeakRow) are WeakScore's fields with their types, in
    order: a field renamed or retyped in one and not the other fails here."""
    import dataclasses

    from mllog_check.results.weak import WEAK_COLUMNS, WeakRow, WeakScore

    fields = {f.name: f.type for f in dataclasses.fields(WeakScore)}
    row = {name: ref.__forward_arg__ for name, ref in WeakRow.__annotations__.items()}
    assert tuple(row) == WEAK_COLUMNS == tuple(n for n in fields if n in row)
    assert row == {name: fields[name] for name in row}


@pytest.mark.corpus
def test_weak_logs_naming_the_whole_allocation_are_no_break(corpus: Path) -> None:
    """Real hpc-v2.0 HelmholtzAI HoreKa weak-scaling OC20: every model's log names the
    whole system (number_of_nodes × accelerators_per_node = T), so M × S exceeds T by a
    logging habit, not by models that cannot have run at once. Was MLR066 (false, as on
    NVIDIA's Eos DeepCAM of v2.0 and v3.0 in the published record)."""
    from mllog_check.results import compute_scores

    report = compute_scores([str(corpus / "hpc-v2.0" / "HelmholtzAI")])
    whole = [w for w in report.weak if w.instance_scale == w.accelerators and w.models > 1]
    assert whole, "no weak result of the corpus logs its whole allocation"
    assert "MLR066" not in {p.rule for p in report.problems}
