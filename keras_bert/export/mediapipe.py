"""MediaPipe Tasks export: a TFLite file with the metadata `TextClassifier` / `TextEmbedder` read.

MediaPipe's BERT text models (the Model Maker convention) take three int32 `[1, seq_length]`
inputs whose metadata names are `ids`, `mask`, `segment_ids`; a `BertTokenizer` input process
unit points at the vocabulary packed in the file; a classifier's one output holds the
probabilities with a `TENSOR_AXIS_LABELS` label file, an embedder's one output the embedding.
Static input shapes make MediaPipe pack `[CLS] text [SEP]` to `seq_length` (truncating longer
text as BERT does); dynamic ones would pass any length to the position embeddings.

The metadata is written with the flatbuffer schema the `mediapipe` wheel ships
(`mediapipe.tasks.metadata.*_py_generated`) and its pure-Python `metadata_info` builders;
the wheel's `MetadataPopulator` (`metadata_writers.metadata_writer`) imports a native module
(`mediapipe.tasks.cc.metadata.python._pywrap_metadata_version`) that the 1.2.x wheel lacks, so
its two steps are done here: the metadata buffer is added to the model as the `TFLITE_METADATA`
entry and the associated files are appended to the file as a zip archive. (`tflite-support`'s
writers are no way out: its last release, 0.4.4, requires protobuf<4, which TensorFlow 2.21's
protobuf 7 rules out.)

MediaPipe tokenizes in C++ (`mediapipe/tasks/cc/text/tokenizers/bert_tokenizer.cc`), not as
BERT's reference does: it lowercases ASCII letters only, neither applies NFD nor strips accents,
keeps control characters and splits on ASCII whitespace only. `mediapipe_check.TOKENIZER_DIFFERENCES` lists
what that changes; the export measures it on real texts and writes it into the folder's README.
"""

import os

import tensorflow as tf

from keras_bert.export import verify
from keras_bert.export.mediapipe_check import MODEL_FILE, check_mediapipe, tokenizer_summary, write_readme
from keras_bert.export.mediapipe_metadata import with_metadata
from keras_bert.export.serving_module import ID_INPUTS, ServingModule
from keras_bert.export.verify_reference import SAMPLE_TEXTS
from keras_bert.tasks.registry import serving_for

# Texts that show each difference (beside the sample texts and the caller's).
PROBE_TEXTS = (
    "Héllo wörld: naïve café owners in Zürich said déjà vu!",
    "ÉCOLE NORMALE SUPÉRIEURE",
    "서울은 한국의 수도이다.",
    "東京は日本の首都です。",
    "non\u00a0breaking\u3000spaces",
    "a bell\x07 rang",
)


def mediapipe_task(model):
    """`("classifier" | "embedder", output)`: the MediaPipe Task that serves `model` and the output it
    reads, as the model's serving object declares (`single_text_output`); one-line error otherwise."""
    serving = serving_for(model)
    if serving.single_text_output is not None:
        return serving.single_text_output
    raise ValueError(
        f"MediaPipe Tasks serve a single-text classifier (TextClassifier) or an encoder / embedding "
        f"model (TextEmbedder); this model is a {serving.name}. MediaPipe's BERT preprocessor packs one text "
        "(segment ids all 0), so a pair or span task cannot be fed. Export it with --formats "
        "savedmodel,tflite,onnx instead.")


def check_mediapipe_tokenizer(tokenizer):
    """Raises unless MediaPipe's BertTokenizer can stand in for `tokenizer`: an uncased vocabulary (the
    specials MediaPipe hard-codes, `[CLS]`, `[SEP]`, `[UNK]`, every keras_bert `Tokenizer` has)."""
    if tokenizer is None:
        raise ValueError("--formats mediapipe packs the vocabulary into the file: the model needs its "
                         "text contract (vocab.txt); pass --vocab.")
    if not getattr(tokenizer, "portable_text_ops", True):
        raise ValueError(f"MediaPipe's BertTokenizer runs WordPiece only, not {tokenizer.vocab_path}'s tokenizer; "
                         "export with --formats savedmodel (raw text) or tflite,onnx (token ids).")
    if not tokenizer.lower_case:
        raise ValueError(
            f"MediaPipe's BertTokenizer lowercases ASCII text, but {tokenizer.vocab_path} is a cased "
            "vocabulary (lower_case=False): a MediaPipe model would read other tokens than it was "
            "trained on. Export a cased model with --formats savedmodel,tflite,onnx.")


def check_mediapipe_labels(labels):
    """Raises unless every label fits one line of MediaPipe's labels.txt (the one label-name rule,
    `keras_bert.text.label_names`: a line break would shift every later label onto the wrong output,
    and MediaPipe's own check only fires at load, with a traceback)."""
    from keras_bert.text.label_names import label_name

    for i, name in enumerate(labels or ()):
        label_name(name, f"label {i} ({str(name)!r}): MediaPipe's labels.txt holds one label per line (--labels)")


def export_mediapipe(model, output_dir, tokenizer, seq_length=128, overwrite=False, sample_texts=None,
                     verify_export=True, raise_on_failure=True, options=None):
    """Writes `model.tflite` for MediaPipe Tasks (`TextClassifier` or `TextEmbedder`) and a README.

    The file holds the model (float32, TFLite builtins only), its metadata (BERT tokenizer with
    the vocabulary, the `ids` / `mask` / `segment_ids` inputs, `[1, seq_length]`) and, for a
    classifier, the label names; an embedder's output is the encoder's `pooled_output` (an
    `embedding` model: its `embeddings`). It is checked in a fresh process that runs MediaPipe's
    own Task on raw text, against the Keras model on the ids MediaPipe packed (1e-4). Reported
    (not checked): MediaPipe's tokens against the reference tokenizer's (also written into
    `README.md` with examples), and the top label / cosine against Keras on the reference
    tokenization.

    Args:
        model: a keras_bert classifier (task "classification"), encoder or embedding model.
        output_dir: folder for `model.tflite` and `README.md` (created).
        tokenizer: the model's `keras_bert.text.Tokenizer` (uncased: MediaPipe lowercases).
        seq_length: the packed length (MediaPipe truncates longer text to it).
        overwrite: replace existing files.
        sample_texts: texts for the checks (default: `SAMPLE_TEXTS` and `PROBE_TEXTS`).
        verify_export: run the checks.
        raise_on_failure: raise `verify.ParityError` when a check fails.
        options: task options replacing the model's (`ServingModule`): a classifier's
            `{"labels": [...]}` (default: the names the model carries; else `0`, `1`, ...).

    Returns:
        `verify.ExportReport`; `report.extra`: `files`, `sizes`, `tokenizer` (the comparison) and
        `notes` (it, in lines to print).

    Example:
        >>> report = export_mediapipe(classifier, "savedmodels/sst2/mediapipe/1", Tokenizer("vocab.txt"))
        >>> text.TextClassifier.create_from_model_path(report.extra["files"]["model"]).classify("A fine film")
    """
    task, output = mediapipe_task(model)
    check_mediapipe_tokenizer(tokenizer)
    module = ServingModule(model, tokenizer, seq_length=seq_length, runtime_checks=False,
                           string_outputs=False, options=options)
    output_dir = os.path.abspath(os.fspath(output_dir))
    files = {"model": os.path.join(output_dir, MODEL_FILE), "readme": os.path.join(output_dir, "README.md")}
    verify.prepare_output_dir(output_dir, files.values(), overwrite)
    names = list(module.serving.labels or range(_num_outputs(module.serving, output))) if task == "classifier" else None
    check_mediapipe_labels(names)
    content = _convert(module, output, module.serving.seq_length)
    content = with_metadata(content, task, output, tokenizer.vocab_path, [str(n) for n in names or []])
    with open(files["model"], "wb") as f:
        f.write(content)
    report = verify.ExportReport(output_dir, extra={"files": files, "sizes": {"model": len(content)}})
    if verify_export:
        texts = list(dict.fromkeys(sample_texts or SAMPLE_TEXTS + PROBE_TEXTS))
        report.rows, report.extra["tokenizer"] = check_mediapipe(module.serving, files["model"], task, output, texts)
    write_readme(files["readme"], task, output, module.serving, report.extra.get("tokenizer"))
    report.extra["notes"] = ["MediaPipe tokenizes with its own BertTokenizer, not the reference (README.md):"]
    report.extra["notes"] += tokenizer_summary(report.extra.get("tokenizer"))
    if verify_export and raise_on_failure:
        report.raise_if_failed()
    return report


def _num_outputs(serving, output):
    ids = {name: tf.zeros([1, 2], tf.int32) for name in ID_INPUTS}
    return int(serving.outputs_from_ids(ids)[output].shape[-1])


def _convert(module, output, seq_length):
    """The model as TFLite, one output, int32 `[1, seq_length]` inputs (MediaPipe's static shapes)."""
    spec = {name: tf.TensorSpec([1, seq_length], tf.int32, name=name) for name in ID_INPUTS}
    function = tf.function(lambda inputs: {output: module.serving.outputs_from_ids(inputs)[output]},
                           autograph=False, input_signature=[spec]).get_concrete_function()
    converter = tf.lite.TFLiteConverter.from_concrete_functions([function], module)
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]  # MediaPipe runs builtins
    return converter.convert()
