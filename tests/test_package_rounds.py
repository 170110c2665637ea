"""`package` on every v2.1-v5.1 org folder of the corpus gives the verify script's verdict:
the official package checker's (mlperf-logging 4.1.68, run here on a copy: it writes into
the tree; a traceback is a failure) and repo_checker's, or the difference is documented
(docs/differences.md, "Package")."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mllog_check.submission.package import check_package

ROUNDS = ("v2.1", "v3.0", "v3.1", "v4.0", "v4.1", "v5.0", "v5.1")
# 4.1.68 applies rules written after these rounds were published (docs/differences.md).
LATER_RULES = {
    ("v2.1", "ASUSTeK"): "every closed run logs a seed: a v5.0 rule (minigo)",
    ("v2.1", "Intel"): "closed BERT renamed opt_epsilon to opt_lamb_epsilon after v2.1",
    ("v3.0", "GIGABYTE"): "every closed run logs a seed: a v5.0 rule (dlrm_dcnv2)",
    ("v3.1", "GigaComputing"): "every closed run logs a seed: a v5.0 rule (dlrm_dcnv2)",
    ("v3.1", "Intel-HabanaLabs"): "every closed run logs a seed: a v5.0 rule (resnet, bert)",
    ("v4.0", "GigaComputing"): "status value tested from v4.1; seeds always from v5.0",
}


def _orgs(corpus: Path | None) -> list[tuple[str, str]]:
    if corpus is None:
        return []
    return [
        (r, org.name)
        for r in ROUNDS
        for org in sorted((corpus / r).iterdir())
        if (org / "results").is_dir()
    ]


def _corpus() -> Path | None:
    from conftest import corpus_dir

    return corpus_dir()


@pytest.fixture(scope="module")
def official(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], str]:
    """Verdicts of 4.1.68's package checker, one call per org, filled on demand."""
    from conftest import has_module, require

    require(has_module("mlperf_logging"), "the official mlperf-logging package is not installed")
    return {}


def _run_official(tmp: Path, corpus: Path, round_name: str, org: str) -> str:
    """The verify script's verdict: the package checker (a traceback is a failure: it
    never prints its success line) and then repo_checker, on a clean copy."""
    from official import repo_checker

    copy = tmp / round_name / org
    shutil.copytree(corpus / round_name / org, copy, symlinks=True)
    log = tmp / round_name / f"{org}.log"
    ruleset = round_name[1:] + ".0"
    cmd = [sys.executable, "-m", "mlperf_logging.package_checker", str(copy), "training"]
    cmd += [ruleset, "--log_output", str(log)]
    subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, check=False, timeout=900)
    text = log.read_text(errors="replace") if log.exists() else ""
    package = "pass" if "PACKAGE CHECKER FOUND NO ERRORS" in text else "fail"
    # repo_checker on the published tree (the package checker wrote scaling.json files
    # into the copy, names repo_checker accepts).
    repo = repo_checker(corpus / round_name / org, "training", ruleset, tmp)
    return "pass" if (package, repo) == ("pass", "pass") else "fail"


@pytest.mark.corpus
@pytest.mark.parametrize(("round_name", "org"), _orgs(_corpus()))
def test_package_verdict_equals_the_official_checker(
    corpus: Path,
    official: dict[tuple[str, str], str],
    tmp_path_factory: pytest.TempPathFactory,
    round_name: str,
    org: str,
) -> None:
    key = (round_name, org)
    if key not in official:
        official[key] = _run_official(tmp_path_factory.mktemp("official"), corpus, *key)
    report = check_package(corpus / round_name / org, round_name[1:] + ".0")
    ours = "pass" if report.official_passed else "fail"
    errors = sorted({f"{p.rule} {p.path}" for p in report.problems if p.is_error})
    if key in LATER_RULES:
        assert (official[key], ours) == ("fail", "pass"), (LATER_RULES[key], errors)
    else:
        assert ours == official[key], errors
