"""Severity (impact) of audit anomalies: every kind has one, each habit is recognized on
the real logs that show it and not on an edited copy that breaks it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mllog_check import parse_file, parse_text
from mllog_check.problems import Context
from mllog_check.submission import codes
from mllog_check.submission.anomalies import detect
from mllog_check.submission.impact import DEFAULTS, HABITS, IMPACTS, impact_of, worst
from mllog_check.submission.package import check_package
from mllog_check.submission.ranking import roll_up_power


def _found(path: Path | str, kind: str, text: str | None = None) -> list[str]:
    records = parse_text(text, str(path)).records if text else parse_file(path).records
    return [impact_of(a) for a in detect(records, str(path)) if a.name == kind]


def test_every_kind_has_a_default_and_every_habit_a_kind() -> None:
    assert set(DEFAULTS) == set(codes.ANOMALY_KINDS)
    assert set(DEFAULTS.values()) <= set(IMPACTS)
    assert {h.kind for h in HABITS} <= set(codes.ANOMALY_KINDS)
    assert worst(["info", "rules"]) == "rules" and worst(["rules", "score"]) == "score"


@pytest.mark.corpus
def test_evaluation_out_of_order_is_info_a_training_step_back_is_rules(corpus: Path) -> None:
    # v5.0 stable diffusion: offline evaluation logged before a back-dated run_stop
    sd = corpus / "v5.0/GigaComputing/results/G893-SD1_pytorch/stable_diffusion/result_0.txt"
    assert _found(sd, "time-backwards") == ["info"]
    # v0.7 ssd: records before run_start stamped later (rank clocks at start-up)
    ssd = corpus / "v0.7/Google/results/tpu-v3-8192-TF/ssd/result_0.txt"
    assert _found(ssd, "time-backwards") == ["info"]
    # the same SD log with a training block moved 100 s back: the timed run is in doubt
    text = sd.read_text()
    block = re.findall(
        r'"time_ms": (\d+), "event_type": "INTERVAL_START", "key": "block_start"', text
    )
    edited = text.replace(f'"time_ms": {block[2]}', f'"time_ms": {int(block[2]) - 100_000}', 1)
    assert _found(sd, "time-backwards", edited) == ["rules"]


@pytest.mark.corpus
def test_train_samples_at_the_run_stop_millisecond_is_info(corpus: Path) -> None:
    llama = corpus / "v5.1/AMD/results/MI350X_EPYC_9575F_pytorch/llama31_8b"
    assert _found(llama / "result_0.txt", "lines-after-run-stop") == ["info"]
    # a millisecond later: another moment, the rule is bent
    assert _found(llama.parent.parent / "MI355X_EPYC_9575F_pytorch/llama31_8b/result_3.txt",
                  "lines-after-run-stop") == ["rules"]  # fmt: skip
    # evaluations after run_stop change the result whatever their time
    ssd = corpus / "v0.7/Google/results/tpu-v3-4096-JAX/ssd/result_0.txt"
    assert _found(ssd, "lines-after-run-stop") == ["rules"]


@pytest.mark.corpus
def test_header_at_time_zero_is_info_another_record_is_rules(corpus: Path) -> None:
    google = corpus / "v1.0/Google/results/tpu-v4-1024-JAX/unet3d/result_4.txt"
    assert _found(google, "time-ms-zero") == ["info"]
    text = (
        google.read_text().rstrip("\n")
        + "\n"
        + (
            ':::MLLOG {"namespace": "", "time_ms": 0, "event_type": "POINT_IN_TIME", '
            '"key": "global_batch_size", "value": 8, "metadata": {"file": "a.py", "lineno": 1}}\n'
        )
    )
    assert _found(google, "time-ms-zero", text) == ["rules"]


@pytest.mark.corpus
def test_placeholder_org_is_info_another_org_is_rules(corpus: Path) -> None:
    nebius = check_package(corpus / "v5.0/Nebius", "5.0.0", audit=True)
    mismatch = [impact_of(a) for a in nebius.anomalies if a.name == "org-mismatch"]
    assert mismatch and set(mismatch) == {"info"}
    habana = check_package(corpus / "v3.1/Intel-HabanaLabs", "3.1.0", audit=True)
    found = [a for a in habana.anomalies if a.name == "org-mismatch"]
    # 'Habana' is a part of the folder's name Intel-HabanaLabs (the org spelled as its
    # framework writes it); 'reference_implementation' is the reference code's default
    assert any("'Habana'" in a.message for a in found)
    assert {impact_of(a) for a in found} == {"info"}
    # another org's name, or a vendor's under a partner's folder, as planted
    other = [a.replace(message=a.message.replace("'Habana'", "'Globex'")) for a in found]
    assert {impact_of(a) for a in other if "'Globex'" in a.message} == {"rules"}
    vendor = [a.replace(message=a.message.replace("'Habana'", "'NVIDIA'")) for a in found]
    assert {impact_of(a) for a in vendor} == {"info"}


@pytest.mark.corpus
def test_listed_software_stack_is_info(corpus: Path) -> None:
    lenovo = check_package(corpus / "v5.0/Lenovo", "5.0.0", audit=True)
    found = [a for a in lenovo.anomalies if a.name == "system-description-format"]
    assert found and {impact_of(a) for a in found} == {"info"}
    other = found[0].replace(message="'status' is ['available']: expected a string")
    assert impact_of(other) == "rules"


def test_power_window_off_by_seconds_is_info() -> None:
    info = codes.ANOMALY_KINDS["power-window-not-covering-run"]
    msg = "the measurement window does not cover the run: it "
    for tail, expected in (
        ("starts 1.5 s after run_start", "info"),
        ("stops 2 s before run_stop", "info"),
        ("starts 0.2 s after run_start and stops 1 s before run_stop", "info"),
        ("starts 59.999 s after run_start", "rules"),
        ("starts 1 s after run_start and stops 12 s before run_stop", "rules"),
    ):
        assert impact_of(info.problem("p", msg + tail)) == expected, tail


def test_power_anomalies_roll_up_per_cause_per_result() -> None:
    info = codes.ANOMALY_KINDS["power-gap"]
    where = Context("Acme", "acme-8x", "resnet")
    folder = "Acme/results/acme-8x/resnet/power/result_0"
    found = [
        info.problem(f"{folder}/node_{n}.txt", f"1 sampling gap(s) over 10 s; the longest {n}1 s",
                     context=where)
        for n in range(3)
    ]  # fmt: skip
    other = codes.ANOMALY_KINDS["not-converged"].problem("Acme/x/result_0.txt", "m", context=where)
    (kept, rolled) = sorted(roll_up_power([*found, other]), key=lambda p: p.name)
    assert kept == other
    assert rolled.path == f"{folder}/node_0.txt"
    assert rolled.message.endswith("(the same in 3 power log files of this result)")


@pytest.mark.corpus
def test_a_round_with_only_habits_is_clean(corpus: Path) -> None:
    """v4.0: habits only (stable diffusion's offline evaluation, GPT-3's train_samples at
    the run_stop millisecond), nothing a reviewer files."""
    from mllog_check.submission.audit import run_audit

    result = run_audit(corpus / "v4.0", jobs=1)
    assert result.anomalies and {a.impact for a in result.anomalies} == {"info"}
    assert result.clean  # exit 0: no score or rules anomaly, every org passed
    assert {r["worst"] for r in result.results if r["anomalies"]} == {"info"}
