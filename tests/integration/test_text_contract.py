"""The text contract travels: a cased model pretrained with --cased --build_vocab, fine-tuned and
exported with default flags, tokenizes cased text into the cased pieces in every artifact."""

import os

import numpy as np
import pytest
import tensorflow as tf

import keras_bert
from tests.conftest import run_tool

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SENTIMENT = os.path.join(ROOT, "tests", "data", "fixtures", "sentiment.csv")
TEXT = "Google BertConfig Serving"
pytestmark = pytest.mark.slow


def _ok(result):
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def test_cased_pretrain_finetune_export_keeps_the_case_everywhere(tmp_path, shakespeare_files):
    """Each tool a fresh `python tools/...` process, chained as a user chains them."""
    run, finetuned, base = tmp_path / "pretrain", tmp_path / "finetune", tmp_path / "savedmodels"
    _ok(run_tool(
        "pretrain", "--files", *shakespeare_files[:2], "--cased", "--build_vocab", "500", "--seq_length", "32",
        "--batch_size", "4", "--train_steps", "2", "--steps_per_epoch", "2", "--no_demo",
        "--no_export", "--strategy", "cpu", "--jit_compile", "off", "--output_dir", run))
    vocab = str(run / "vocab.txt")
    cased = keras_bert.Tokenizer(vocab, lower_case=False).tokenize(TEXT).numpy().tolist()
    uncased = keras_bert.Tokenizer(vocab, lower_case=True).tokenize(TEXT).numpy().tolist()
    assert cased != uncased  # the learnt vocabulary has capitals, so case shows in the ids

    _ok(run_tool(
        "finetune", "--checkpoint", run / "final", "--task", "classification", "--train_file", SENTIMENT,
        "--labels", "negative", "positive", "--epochs", "1", "--batch_size", "4", "--seq_length",
        "32", "--strategy", "default", "--jit_compile", "off", "--output_dir", finetuned))
    # The model file carries its contract (nothing beside it).
    assert keras_bert.load_checkpoint(str(finetuned / "model.keras")).text_config.lower_case is False

    # Default flags: vocabulary, casing and length (32) all come from the fine-tuned model's contract.
    result = run_tool("export", finetuned / "model.keras", "--base_dir", base)
    failed = [line for line in result.stdout.splitlines() if line.endswith("FAIL")]
    # A 2-step model's two logits are near ties, so int8's top-1 agreement is noise here; every
    # float artifact (and the tokenizer-in-graph ids) must match.
    assert result.returncode == (1 if failed else 0), result.stdout[-3000:] + result.stderr[-3000:]
    assert all(line.startswith("tflite_int8 ") for line in failed), failed
    folders = {"savedmodel": base / "model" / "1", "tflite": base / "model" / "tflite" / "1",
               "onnx": base / "model" / "onnx" / "1"}
    for fmt, folder in folders.items():
        contract = keras_bert.TextConfig.from_dir(folder)
        assert contract.lower_case is False and contract.max_seq_length == 32, fmt
        assert contract.tokenizer().tokenize(TEXT).numpy().tolist() == cased, fmt

    # SavedModel: the text signature's in-graph tokenizer gives the cased ids' logits.
    import tensorflow_text  # noqa: F401  (registers the ops the SavedModel uses)

    loaded = tf.saved_model.load(str(folders["savedmodel"]))
    from_text = loaded.signatures["serving_default"](text_a=tf.constant([TEXT]),
                                                     text_b=tf.constant([], tf.string))["logits"]

    def from_ids(ids):
        word_ids = tf.constant([[2] + ids + [3]], tf.int32)  # [CLS] ids [SEP]; both at these rows
        return loaded.signatures["serve_ids"](
            input_word_ids=word_ids, input_mask=tf.ones_like(word_ids),
            input_type_ids=tf.zeros_like(word_ids))["logits"]

    np.testing.assert_allclose(from_text.numpy(), from_ids(cased).numpy(), atol=1e-5)
    assert not np.allclose(from_text.numpy(), from_ids(uncased).numpy(), atol=1e-5)

    # TFLite: the tokenizer-in-graph model returns the packed ids.
    from ai_edge_litert.interpreter import InterpreterWithCustomOps

    interpreter = InterpreterWithCustomOps(
        model_path=str(folders["tflite"] / "text_float32.tflite"),
        custom_op_registerers=tensorflow_text.tflite_registrar.SELECT_TFTEXT_OPS)
    ids = interpreter.get_signature_runner("serve_text")(text_a=np.array([TEXT], object))["input_word_ids"]
    assert ids[0][1:1 + len(cased)].tolist() == cased
