"""Every op of every exported raw-text signature, against the op sets of the TF Serving releases
users run (tests/export/serving_ops_data.py: the servers' workspace.bzl pins and TF Text's
registrations at those tags; core_ops_data.py: TensorFlow 2.10.1's and 2.12.0's). Prints the table
signature x custom op x server release and the oldest release that serves each signature."""

import os
import subprocess

import pytest

import keras_bert
from keras_bert.export import export_saved_model
from keras_bert.models.builders import build_embedder
from tests.export.core_ops_data import CHECKED_FROM, CORE_OPS
from tests.export.helpers import randomize
from tests.export.serving_ops_data import SERVER_PINS, TEXT_OPS
from tests.export.signature_ops import is_custom, signature_ops

pytestmark = pytest.mark.slow
ALL_TEXT_OPS = frozenset().union(*TEXT_OPS.values())
MUST_SERVE = ("2.19.1", "2.20.0")  # issue 30: the newest TF Text 2.12.1 server and the newest
OLDEST = "2.10.1"  # the oldest release whose server links every op of every raw-text signature


def version(tag):
    return tuple(int(p) for p in tag.split("."))


def models(config):
    """One tiny model per kind that exports raw-text signatures, with its export options."""
    encoder = lambda: keras_bert.build_encoder(config)  # noqa: E731
    windows = {"seq_length": 32, "text_a": "text", "text_b": None, "label": "score", "doc_stride": 8,
               "aggregate": "max"}
    return {
        "classifier": (keras_bert.build_classifier(config, 2, task_config={"labels": ["no", "yes"]}), {}),
        "regression_windows": (keras_bert.build_classifier(config, 1, task="regression", task_config=windows), {}),
        "token_classifier": (keras_bert.build_token_classifier(encoder(), 3),
                             {"options": {"labels": ["O", "B-X", "I-X"]}}),  # export's task overrides
        "span_labeler": (keras_bert.build_span_labeler(encoder()), {}),  # task "squad": its answer signature
        "fill_mask": (keras_bert.build_pretrainer(config), {}),
        "embedder": (build_embedder(encoder()), {}),
    }


@pytest.fixture(scope="module")
def export_dirs(tiny_config, tokenizer, tmp_path_factory):
    """Each model exported as a user exports it (`export_saved_model`; the parity check is
    elsewhere): `{name: SavedModel folder}`."""
    dirs = {}
    for name, (model, options) in models(tiny_config).items():
        dirs[name] = tmp_path_factory.mktemp("serving_ops") / name / "1"
        export_saved_model(randomize(model), dirs[name], tokenizer=tokenizer, seq_length=32,
                           verify_export=False, **options)
    return dirs


@pytest.fixture(scope="module")
def exported_ops(export_dirs):
    """`{"<model>/<signature>": ops}` for every raw-text signature (not `serve_ids`)."""
    return {f"{name}/{signature}": ops for name, export_dir in export_dirs.items()
            for signature, ops in signature_ops(str(export_dir)).items()
            if signature not in ("serve_ids", "__saved_model_init_op")}


def oldest_server(custom_ops, core_proven=True):
    """The oldest release in SERVER_PINS whose TF Text registers every op in `custom_ops` (and,
    with `core_proven`, whose TensorFlow is one the core ops were checked against), with every
    later release serving it too; None if none does."""
    oldest = None
    for tag in sorted(SERVER_PINS, key=version, reverse=True):
        text, _, links = SERVER_PINS[tag]
        core_unchecked = core_proven and version(tag) < version(CHECKED_FROM)
        if not links or not set(custom_ops) <= TEXT_OPS[text] or core_unchecked:
            break
        oldest = tag
    return oldest


def test_every_raw_text_signature_uses_only_ops_the_servers_link(exported_ops):
    assert len(exported_ops) >= 11, sorted(exported_ops)
    problems = []
    for signature, ops in sorted(exported_ops.items()):
        custom = [op for op in ops if is_custom(op, ALL_TEXT_OPS)]
        core = [op for op in ops if not is_custom(op, ALL_TEXT_OPS)]
        for tag in MUST_SERVE:
            missing = set(custom) - TEXT_OPS[SERVER_PINS[tag][0]]
            if missing:
                problems.append(f"{signature}: TF Serving {tag} (TF Text {SERVER_PINS[tag][0]}) "
                                f"lacks {sorted(missing)}")
        unknown = set(core) - CORE_OPS
        if unknown:
            problems.append(f"{signature}: core ops not checked in TensorFlow {CHECKED_FROM}: {sorted(unknown)} "
                            "(check them as core_ops_data.py says, then add them there)")
        if oldest_server(custom) != OLDEST:
            problems.append(f"{signature}: the oldest server linking its ops is {oldest_server(custom)}, "
                            f"not {OLDEST}")
    assert not problems, "\n".join(problems)


def test_table_signature_custom_op_server_release(exported_ops):
    """The table (printed: `pytest -s`); the raw-text signatures need no trimmer kernel."""
    groups = []  # consecutive releases linking the same TF Text: (first, last, text)
    for tag in sorted(SERVER_PINS, key=version):
        if groups and groups[-1][2] == SERVER_PINS[tag][0]:
            groups[-1][1] = tag
        else:
            groups.append([tag, tag, SERVER_PINS[tag][0]])
    texts = [text for _, _, text in groups]
    header = " | ".join(f"{first}..{last} (text {text})" if first != last else f"{first} (text {text})"
                        for first, last, text in groups)
    lines = [f"| signature | custom op | {header} |", "|---|---|" + "---|" * len(texts)]
    for signature, ops in sorted(exported_ops.items()):
        custom = [op for op in ops if is_custom(op, ALL_TEXT_OPS)]
        assert not any("Trim" in op for op in custom), (signature, custom)
        for op in custom:
            lines.append(f"| {signature} | {op} | " + " | ".join("yes" if op in TEXT_OPS[t] else "NO"
                                                                 for t in texts) + " |")
        lines.append(f"| {signature} | (oldest server: all ops / custom ops only) | "
                     f"{oldest_server(custom)} / {oldest_server(custom, core_proven=False)} |")
    print("\n" + "\n".join(lines))
    assert "TFText>RoundRobinTrim" in TEXT_OPS["2.20.0"] and "TFText>RoundRobinTrim" not in TEXT_OPS["2.12.1"]


@pytest.mark.skipif(not os.environ.get("KERAS_BERT_TF212_PYTHON"),
                    reason="set KERAS_BERT_TF212_PYTHON to a python with tensorflow 2.12.0 + tensorflow-text 2.12.1")
def test_signatures_load_and_run_in_tensorflow_2_12(export_dirs):
    """The exports load and every raw-text signature runs in TensorFlow 2.12 with TF Text 2.12.1, the
    TF Text that TF Serving 2.12 to 2.19.1 link (loads the SavedModel as the server does: no Keras)."""
    python = os.environ["KERAS_BERT_TF212_PYTHON"]
    proc = subprocess.run([python, "-c", RUN_IN_OLD_TENSORFLOW, *map(str, export_dirs.values())],
                          capture_output=True, text=True, check=False, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ran = proc.stdout.split()
    assert "2.12.0/2.12.1" in ran and len(ran) >= 12, proc.stdout


RUN_IN_OLD_TENSORFLOW = """
import sys
import tensorflow as tf, tensorflow_text
print(f"{tf.__version__}/{tensorflow_text.__version__}")
for export_dir in sys.argv[1:]:
    model = tf.saved_model.load(export_dir)
    for name, function in model.signatures.items():
        specs = function.structured_input_signature[1]
        if name == "serve_ids" or any(spec.dtype != tf.string for spec in specs.values()):
            continue
        texts = tf.constant(["The king is dead; long live the king! " * 8, "Hello [MASK] world."])
        inputs = {key: tf.constant([], tf.string) if key == "text_b" and name == "serving_default" else
                  tf.constant(["Who is dead?", "Where?"]) if key == "question" else texts for key in specs}
        outputs = function(**inputs)
        assert all(value.shape[0] == 2 for value in outputs.values()), (export_dir, name)
        print(export_dir.split("/")[-2] + "/" + name)
"""
