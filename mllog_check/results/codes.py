"""Result rules (MLR): scores, RCP convergence and seed checks.

Examples are fixture folders (``fixtures/score/...``, relative to the project
root); tests/catalog_examples.py scores them for tests/test_catalog.py. A table of
``catalog.rule`` entries (docs/design.md, "Rule codes").
"""

from __future__ import annotations

from ..catalog import LOGGING, PREVIEW, SUBMISSION_RULES, TRAINING_RULES, rule
from ..problems import Severity

RUN_COUNT = rule(
    "MLR001",
    "wrong-run-count",
    Severity.ERROR,
    "A result needs the round's number of runs (v1.0 exact: 5 resnet/ssd/maskrcnn/dlrm, "
    "10 bert/rnnt/minigo, 40 unet3d; a minimum from v1.1).",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/too_few",
    why=(
        f"A score is an olympic mean over the round's number of runs ({TRAINING_RULES}, "
        "benchmark results); the official package checker and result summarizer "
        f"({LOGGING}) reject another count."
    ),
)
TOO_MANY_FAILED = rule(
    "MLR002",
    "too-many-failed-runs",
    Severity.ERROR,
    "At most one run (four for unet3d) may fail to converge or fail compliance; it then "
    "counts as the dropped slowest. More makes the result invalid.",
    stage="score",
    good="fixtures/score/one_failed",
    bad="fixtures/score/two_failed",
    why=(
        "The rules let one run that does not converge (four for unet3d) stand as the "
        f"dropped slowest; more make the result invalid ({TRAINING_RULES})."
    ),
)
RUN_INCOMPLETE = rule(
    "MLR003",
    "run-not-timed",
    Severity.ERROR,
    "A result file without run_start or run_stop has no time to train; it is dropped.",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/no_run_stop",
    why=(
        "Time to train needs run_start and run_stop; without them a run has no time and "
        f"cannot be scored (result_summarizer of {LOGGING}; docs/scores.md)."
    ),
)
RCP_FAIL = rule(
    "MLR010",
    "rcp-fail",
    Severity.ERROR,
    "Closed division: the olympic mean of epochs (BERT: samples) to converge is below the "
    "minimum the reference convergence points allow (one-sided t-test, p = 0.05).",
    stage="score",
    good="fixtures/score/rcp_pass",
    bad="fixtures/score/rcp_fail",
    why=(
        "Reference convergence points guard against hyperparameters that converge faster "
        f"than the reference allows ({TRAINING_RULES}, RCP section); the official "
        f"rcp_checker ({LOGGING}) fails the result."
    ),
)
RCP_MISSING = rule(
    "MLR011",
    "rcp-missing",
    Severity.ERROR,
    "Closed division: the global batch size is above every reference (the submitter must "
    "provide RCPs), or below every reference while converging faster than the smallest.",
    stage="score",
    good="fixtures/score/rcp_below",
    bad="fixtures/score/rcp_above",
    why=(
        "Without a reference at the batch size convergence cannot be compared, and the "
        f"rules ask the submitter for new RCPs ({TRAINING_RULES}); the official "
        "rcp_checker fails the result."
    ),
)
RCP_UNUSABLE = rule(
    "MLR012",
    "rcp-unusable",
    Severity.ERROR,
    "Closed division: runs disagree on global_batch_size, log none, or too many did not "
    "converge, so no RCP comparison is possible.",
    stage="score",
    good="fixtures/score/rcp_pass",
    bad="fixtures/score/rcp_mixed_batch",
    why=(
        "The RCP comparison takes one batch size per result and enough converged runs; "
        "the official rcp_checker cannot evaluate such a set and fails it "
        "(docs/scores.md)."
    ),
)
NORMALIZATION_PENDING = rule(
    "MLR013",
    "normalization-pending",
    Severity.WARNING,
    "Closed division, v2.1 and later: the result converges faster than the reference mean "
    "and its folder ships no scaling.json. The score is the tree's (as the official "
    "summarizer's first run gives it); the factor the official package checker would "
    "write, and the score that follows, are reported (score_if_normalized).",
    stage="score",
    good=(
        "fixtures/score/v3.0/rcp_faster/Example\n"
        'append results/sys8/resnet/scaling.json: {"scaling_factor": 1.0043}'
    ),
    bad="fixtures/score/v3.0/rcp_faster/Example",
    why=(
        "From v2.1 the RCP check normalizes a result faster than the reference mean by "
        "writing scaling.json into the tree; the official result summarizer scores the "
        "tree as given and applies the file on its next run (rcp_checker and "
        f"result_summarizer of {LOGGING}). Without the file the published score differs."
    ),
)
RCP_NOT_EVALUATED = rule(
    "MLR040",
    "rcp-not-evaluated",
    Severity.WARNING,
    "Closed division: the result set has fewer runs than the round requires (or too few "
    "to drop the fastest and slowest), so the RCP check is not evaluated; the run count "
    "itself is MLR001.",
    stage="score",
    good="fixtures/score/rcp_pass",
    bad="fixtures/score/" + "rcp_pass\ndelete Example/results/sys8/resnet/result_4.txt",
    why=(
        "The RCP check compares olympic means, which need the round's run count; with "
        "fewer runs it is reported as not evaluated rather than passed (docs/scores.md)."
    ),
)
RUN_NOT_COUNTED = rule(
    "MLR041",
    "run-not-counted",
    Severity.WARNING,
    "A timed run that does not count toward the score, and why: run_stop status not "
    "success (aborted), quality target never reached, unparseable lines or failed "
    "compliance. Up to the round's allowance it stands for a dropped slowest run (MLR002 "
    "beyond).",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/one_failed",
    why=(
        "Says which run stands for the dropped slowest and why, so that a reviewer need "
        "not redo the official summarizer's reasoning (docs/scores.md)."
    ),
)
COUNTED_DESPITE_STATUS = rule(
    "MLR043",
    "counted-despite-status",
    Severity.WARNING,
    "A run whose run_stop status is not success still counts toward the score: it passes "
    "compliance (which never reads the status), as in the official summarizer; the RCP "
    "check counts it as not converged.",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/aborted_counted",
    why=(
        "The official summarizer counts such a run, since compliance never reads the "
        "status; the warning says the score includes a run that reported failure "
        "(docs/scores.md)."
    ),
)
DUPLICATE_RUN = rule(
    "MLR042",
    "duplicate-run",
    Severity.WARNING,
    "Two result files with the same run_start and run_stop times: one run submitted twice "
    "(the official tools count both).",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/duplicate_run",
    why=(
        "One run submitted twice counts twice and shifts the olympic mean; the official "
        "tools count both copies (docs/scores.md)."
    ),
)
SEED_REUSED = rule(
    "MLR020",
    "seed-reused",
    Severity.ERROR,
    "Closed division: two runs of one benchmark log the same seed (seeds must differ).",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/seed_reused",
    why=(
        "Closed runs must use different random seeds so that the olympic mean reflects "
        f"run-to-run variance ({TRAINING_RULES}); the official seed check fails a reused "
        "seed (docs/scores.md)."
    ),
)
SEED_REUSED_UNCHECKED = rule(
    "MLR023",
    "seed-reused-unchecked",
    Severity.WARNING,
    "Closed division, before v1.0: two runs of one benchmark log the same seed, which no "
    "official tool of the round checked.",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/v0.7/seed_reused",
    beyond=True,
    lifecycle=PREVIEW,
    why=(
        "Runs sharing a seed show less of the run-to-run variance the olympic mean is "
        "meant to reflect (MLR020), but the official seed check entered the package "
        "checker in March 2021 (v1.0, mlcommons/logging#87; the registry's "
        "seeds_checked): before v1.0 no official tool failed it (docs/differences.md)."
    ),
)
SEED_MISSING = rule(
    "MLR021",
    "seed-missing",
    Severity.WARNING,
    "Closed division: some runs log a seed and others do not.",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/seed_missing",
    why=(
        "The official seed check fails a closed result where some runs log a seed and "
        "others do not; the package verdict is MLP040, the scorer warns (docs/scores.md)."
    ),
)
SEED_SEVERAL = rule(
    "MLR022",
    "seed-several",
    Severity.WARNING,
    "Closed division: a run logs several different seeds; which one drove the run is unclear.",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/seed_several",
    why=(
        "With several seeds in one run, which one drove the run is unclear; the official "
        "seed check warns too."
    ),
)
SYSTEM_UNREADABLE = rule(
    "MLR030",
    "system-description-unreadable",
    Severity.WARNING,
    "systems/<system>.json is not valid JSON (or not an object): scores lack system name, "
    "availability and accelerator count.",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/bad_system_json",
    why=(
        "Scores name the system, its availability and accelerator count from "
        f"systems/<system>.json ({SUBMISSION_RULES}); without it the score table lacks "
        "them."
    ),
)
STRAY_FOLDER = rule(
    "MLR031",
    "stray-result-folder",
    Severity.WARNING,
    "Result files below <org>/results/ but not in a <system>/<benchmark>/ folder (for example "
    "a copy nested inside another benchmark's folder) are not scored, as the official tools do.",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/stray",
    why=(
        "The official tools score only <org>/results/<system>/<benchmark>/ "
        f"({SUBMISSION_RULES}, directory structure); a copy nested elsewhere is not a "
        "result."
    ),
)

# --- MLPerf HPC weak scaling (docs/hpc.md) ---------------------------------------------
WEAK_TOO_FEW_MODELS = rule(
    "MLR050",
    "weak-too-few-models",
    Severity.ERROR,
    "MLPerf HPC weak scaling: fewer models counted (compliant, with run_start and "
    "run_stop) than the benchmark's run count (5 DeepCAM and OC20, 10 CosmoFlow and "
    "OpenFold); the result has no score.",
    stage="score",
    good="fixtures/score/hpc-v1.0/weak_ok",
    bad="fixtures/score/hpc-v1.0/weak_too_few",
    why=(
        "The official result summarizer gives a weak-scaling result its tuple only when at "
        f"least the benchmark's run count of models converged ({LOGGING}, "
        "result_summarizer; docs/hpc.md)."
    ),
)
WEAK_SCALE_DIFFERS = rule(
    "MLR051",
    "weak-instance-scale-differs",
    Severity.ERROR,
    "MLPerf HPC weak scaling: the models log different sizes (number_of_nodes × "
    "accelerators_per_node); the score's S is one size for all.",
    stage="score",
    good="fixtures/score/hpc-v1.0/weak_ok",
    bad="fixtures/score/hpc-v1.0/weak_scale_differs",
    why=(
        "S, the accelerators per model, is one number of the weak-scaling tuple: the "
        f"official result summarizer asserts every counted log agrees and stops otherwise "
        f"({LOGGING}; docs/hpc.md)."
    ),
)
MODEL_NOT_COUNTED = rule(
    "MLR052",
    "weak-model-not-counted",
    Severity.WARNING,
    "MLPerf HPC weak scaling: a model's log does not count toward M (fails compliance, "
    "never reaches the target, or lacks run_start or run_stop), and why.",
    stage="score",
    good="fixtures/score/hpc-v1.0/weak_ok",
    bad="fixtures/score/hpc-v1.0/weak_one_skipped",
    why=(
        "The official result summarizer skips such a log with a line on its console "
        "only; a reviewer should see which models are left out of M (docs/hpc.md)."
    ),
)
SCALING_UNUSABLE = rule(
    "MLR032",
    "scaling-factor-unusable",
    Severity.WARNING,
    "scaling.json is not read (a link leaving the tree, not a regular file, too large) or "
    "its scaling_factor is not a finite number in [1, 10] (published trees: 1.0011 to "
    "1.1667): the result gets no score.",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/olympic\nappend Example/results/sys8/resnet/scaling.json: "
    '{"scaling_factor": -1}',
    why=(
        "The committee's factor multiplies the time to train (result_summarizer of "
        f"{LOGGING}) and only ever lengthens it (RCP normalization); a factor of 0, below 1, "
        "1e300, NaN or infinite turns the score into nonsense that still looks like a "
        "number, and a file from outside the tree is not the submitter's "
        "(docs/security.md)."
    ),
)
RUN_TIME_UNUSABLE = rule(
    "MLR033",
    "run-time-unusable",
    Severity.WARNING,
    "run_start and run_stop are logged but give no time to train: a time that is not a "
    "finite number, or a run_stop before its run_start. The run is not timed.",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/olympic\nreplace Example/results/sys8/resnet/result_0.txt: "
    '"time_ms": 1621118666000, "event_type": "POINT_IN_TIME", "key": "run_start" => '
    '"time_ms": NaN, "event_type": "POINT_IN_TIME", "key": "run_start"',
    why=(
        "A time to train is run_stop minus run_start (result_summarizer of "
        f"{LOGGING}); a negative, NaN or infinite time would still be averaged into the "
        "score as a number (docs/security.md)."
    ),
)
BORROWED_DIFFERS = rule(
    "MLR063",
    "borrowed-hyperparameter-differs",
    Severity.WARNING,
    "A declared hyperparameter borrowing (hparams --borrowing FILE): a constrained "
    "hyperparameter other than the batch size differs from the lender's.",
    stage="hparams",
    good="fixtures/hparams/borrow",
    bad="fixtures/hparams/borrow\nreplace v1.0/Borrower/results/sys-b/bert/result_0.txt: "
    '"opt_base_learning_rate", "value": 0.0015 => "opt_base_learning_rate", "value": 0.002',
    why=(
        'A borrower "may change batch size (local batch size, global batch size, batchnorm '
        'span), but must replace all other hyperparameters as a group" (training_rules.adoc '
        'of mlcommons/training_policies, "Hyperparameter Borrowing"); borrowing is declared '
        "in week 3 of the review (submission_rules.adoc of mlcommons/policies) and no "
        "official tool compares the two results (docs/hparams.md)."
    ),
    beyond=True,
)
BORROWING_UNRESOLVED = rule(
    "MLR064",
    "borrowing-unresolved",
    Severity.WARNING,
    "A declared hyperparameter borrowing names a result (round/org/system/benchmark) that "
    "is not among the result sets read: nothing was compared.",
    stage="hparams",
    good="fixtures/hparams/borrow",
    bad="fixtures/hparams/borrow\nreplace borrowings.yaml: v1.0/Lender/sys-a/bert => "
    "v1.0/Lender/sys-z/bert",
    why=(
        "A declaration that names no result read would otherwise pass unchecked; nothing "
        "checked is never success (docs/hparams.md)."
    ),
    beyond=True,
)
QUALITY_UNREADABLE = rule(
    "MLR065",
    "quality-value-unreadable",
    Severity.WARNING,
    "A run that never reaches the quality target logs a quality value the scorer cannot "
    "read (not a number, a number as text, a list or dict of the target's items, or one "
    "of these wrapped): whether it reached the target is unknown, so the run is not "
    "counted and is not said to miss the target.",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/olympic\nreplace Example/results/sys8/resnet/result_0.txt: "
    '"value": 0.7601 => "value": "n/a"',
    why=(
        "Published logs write the evaluation in several shapes (v0.6 NVIDIA Mask R-CNN a "
        'nested dict, Transformer BLEU as text; docs/scores.md, "Quality values"); a '
        "shape no reading knows is not a missed target (beyond the official tools, "
        "which do not read quality values to score)."
    ),
    beyond=True,
)
WEAK_EXCEEDS_SYSTEM = rule(
    "MLR066",
    "weak-models-exceed-system",
    Severity.WARNING,
    "MLPerf HPC weak scaling: the models counted times the accelerators each logs "
    "(M × S, number_of_nodes × accelerators_per_node) exceed the system's accelerators "
    "(T, its description): models that ran at once cannot have used more than the "
    "system has. The score is kept as the official summarizer gives it.",
    stage="score",
    good="fixtures/score/hpc-v1.0/weak_ok",
    bad="fixtures/score/hpc-v1.0/weak_ok\nreplace Example/systems/hpc8.json: "
    '"number_of_nodes": "8" => "number_of_nodes": "4"',
    why=(
        "The weak-scaling tuple (T, M, S, time to train all) describes M models trained "
        "concurrently on the T accelerators of one system (MLPerf HPC rules, weak "
        "scaling; docs/hpc.md); the official summarizer reports S as logged and never "
        "compares it with T (beyond the official tools)."
    ),
    beyond=True,
)
EVAL_CADENCE = rule(
    "MLR060",
    "eval-cadence",
    Severity.WARNING,
    "A closed run evaluates less often than its round's training rules require: its "
    "first evaluation later than the schedule's first point, or two evaluations further "
    "apart than the schedule's interval (epochs, samples, tokens or steps); or, "
    "converged, it evaluates more often than a sample schedule and stops at a point the "
    "schedule lacks. Compared in the schedule's unit whatever the log counts, by the "
    "run's own round. One per log.",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/olympic\ndelete-line Example/results/sys8/resnet/result_2.txt: "
    '"key": "eval_accuracy", "value": 0.5, "metadata": {"epoch_num": 12}',
    why=(
        f'The training rules ({TRAINING_RULES}, "Quality measure" under "Training '
        'Loop", its "Evaluation frequency" table: ResNet "Every 4 epochs with offset 0 or '
        '1 or 2 or 3", BERT v1.0 eval_interval_samples = FLOOR(0.05*(230.23*GBS+3000000), '
        "25000), Llama 2 70B LoRA every 384 sequences skipping the first FLOOR(0.125*GBS+2), "
        "...) require the quality to be evaluated at least as often as the reference "
        "(v0.7) or at the same frequency (v1.0 on); no official tool checks it "
        "(mlcommons/logging#79). Schedules per round: schemas/cadence/eval_cadence.yaml, "
        'docs/scores.md "Evaluation cadence".'
    ),
    beyond=True,
)
COMPLIANCE_APPROXIMATED = rule(
    "MLR067",
    "compliance-approximated",
    Severity.INFO,
    "A result of a round whose compliance no official rules decide (v0.5 and MLPerf HPC "
    "v0.7 have none; the 0.6.0 rules fail most published v0.6 logs): its runs count when "
    "they converged and parsed cleanly, and the message says why. What is not checked, "
    "said once per result.",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/v0.5/olympic",
    why=(
        "A check that cannot run is never a pass nor a failure: the score is given as the "
        "round scored it (run_start to run_stop, olympic mean) and says which part was "
        "not checked (docs/scores.md, docs/hpc.md)."
    ),
)
HPARAMS_DIFFER = rule(
    "MLR068",
    "hparams-differ-between-runs",
    Severity.WARNING,
    "The runs of one closed result log different values for a hyperparameter the round's "
    "closed rules constrain (the first value of each run): the message names the runs "
    "holding each value. One per result, at the first run off the majority's value.",
    stage="score",
    good="fixtures/score/olympic",
    bad="fixtures/score/olympic\nreplace Example/results/sys8/resnet/result_3.txt: "
    '"lars_opt_base_learning_rate", "value": 10.5 => "lars_opt_base_learning_rate", '
    '"value": 9.5',
    why=(
        "A benchmark result is the olympic mean of one implementation's runs "
        f'({TRAINING_RULES}, "Benchmark Results"), and its hyperparameters are what a '
        'borrower must take "as a group" ("Hyperparameter Borrowing"): runs trained with '
        "another learning rate are another configuration, and which one the result "
        "stands for is unknown. No official tool compares runs' hyperparameters; the "
        "hparams table only marked the key (docs/hparams.md)."
    ),
    beyond=True,
)
