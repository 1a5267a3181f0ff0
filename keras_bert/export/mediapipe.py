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
keeps control characters and splits on ASCII whitespace only. `TOKENIZER_DIFFERENCES` lists
what that changes; the export measures it on real texts and writes it into the folder's README.
"""

import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import tensorflow as tf

from keras_bert.export import verify
from keras_bert.export.serving_module import ID_INPUTS, ServingModule, model_task
from keras_bert.export.verify_reference import SAMPLE_TEXTS
from keras_bert.text.preprocessor import Preprocessor

MODEL_FILE = "model.tflite"
VOCAB_FILE = "vocab.txt"
LABELS_FILE = "labels.txt"
# Metadata names MediaPipe's BertPreprocessorCalculator finds the inputs by, per id input.
METADATA_INPUT_NAMES = {"input_word_ids": "ids", "input_mask": "mask", "input_type_ids": "segment_ids"}
# The served output of an embedder, by what the model is.
EMBEDDER_OUTPUTS = {"encoder": "pooled_output", "embedding": "embeddings"}
CLASSIFIER_TASKS = ("classification",)
# Inputs process units, the BertTokenizer and VOCABULARY files are metadata schema 1.1.0
# (mediapipe/tasks/cc/metadata/metadata_version.cc); the wheel's native module would compute it.
MIN_PARSER_VERSION = "1.1.0"
TOLERANCE = 1e-4  # MediaPipe's scores vs the Keras model on the ids MediaPipe packed
TOKENIZER_DIFFERENCES = (
    "lowercases ASCII letters only: `É`, `Ä`, `Σ` keep their case (the reference lowercases all)",
    "keeps accents (no NFD, no combining-mark removal): `café` is not `cafe`, and Japanese voicing "
    "marks stay (the reference turns `ご` into `こ`, `プ` into `フ`)",
    "keeps Hangul syllables whole (the reference's NFD splits them into jamo) and CJK compatibility "
    "ideographs as they are (NFD maps U+F981 to `女` U+5973)",
    "splits on ASCII whitespace only: a no-break or ideographic space joins its neighbours",
    "keeps control characters (the reference drops them); other symbols and CJK split alike",
)
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
    """"classifier" or "embedder": the MediaPipe Task that serves `model`; one-line error otherwise."""
    task = model_task(model)
    if task in CLASSIFIER_TASKS:
        return "classifier"
    if task in EMBEDDER_OUTPUTS:
        return "embedder"
    raise ValueError(
        f"MediaPipe Tasks serve a single-text classifier (TextClassifier) or an encoder / embedding "
        f"model (TextEmbedder); this model is a {task}. MediaPipe's BERT preprocessor packs one text "
        "(segment ids all 0), so a pair or span task cannot be fed. Export it with --formats "
        "savedmodel,tflite,onnx instead.")


def check_mediapipe_tokenizer(tokenizer):
    """Raises unless MediaPipe's BertTokenizer can stand in for `tokenizer`: an uncased vocabulary (the
    specials MediaPipe hard-codes, `[CLS]`, `[SEP]`, `[UNK]`, every keras_bert `Tokenizer` has)."""
    if tokenizer is None:
        raise ValueError("--formats mediapipe packs the vocabulary into the file: the model needs its "
                         "text contract (vocab.txt); pass --vocab.")
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
                     verify_export=True, raise_on_failure=True, labels=None):
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
        labels: a classifier's label names (default: the ones the model carries; else `0`, `1`, ...).

    Returns:
        `verify.ExportReport`; `report.extra`: `files`, `sizes`, `tokenizer` (the comparison) and
        `notes` (it, in lines to print).

    Example:
        >>> report = export_mediapipe(classifier, "savedmodels/sst2/mediapipe/1", Tokenizer("vocab.txt"))
        >>> text.TextClassifier.create_from_model_path(report.extra["files"]["model"]).classify("A fine film")
    """
    task = mediapipe_task(model)
    check_mediapipe_tokenizer(tokenizer)
    module = ServingModule(model, tokenizer, seq_length=seq_length, runtime_checks=False,
                           string_outputs=False, labels=labels)
    output_dir = os.path.abspath(os.fspath(output_dir))
    files = {"model": os.path.join(output_dir, MODEL_FILE), "readme": os.path.join(output_dir, "README.md")}
    verify.prepare_output_dir(output_dir, files.values(), overwrite)
    output = "probabilities" if task == "classifier" else EMBEDDER_OUTPUTS[module.task]
    names = list(module.labels or range(_num_outputs(module, output))) if task == "classifier" else None
    check_mediapipe_labels(names)
    content = _convert(module, output, module.seq_length)
    content = with_metadata(content, task, output, tokenizer.vocab_path, [str(n) for n in names or []])
    with open(files["model"], "wb") as f:
        f.write(content)
    report = verify.ExportReport(output_dir, extra={"files": files, "sizes": {"model": len(content)}})
    if verify_export:
        texts = list(dict.fromkeys(sample_texts or SAMPLE_TEXTS + PROBE_TEXTS))
        report.rows, report.extra["tokenizer"] = check_mediapipe(module, files["model"], task, output, texts)
    write_readme(files["readme"], task, output, module, report.extra.get("tokenizer"))
    report.extra["notes"] = ["MediaPipe tokenizes with its own BertTokenizer, not the reference (README.md):"]
    report.extra["notes"] += tokenizer_summary(report.extra.get("tokenizer"))
    if verify_export and raise_on_failure:
        report.raise_if_failed()
    return report


def _num_outputs(module, output):
    ids = {name: tf.zeros([1, 2], tf.int32) for name in ID_INPUTS}
    return int(module.outputs_from_ids(ids)[output].shape[-1])


def _convert(module, output, seq_length):
    """The model as TFLite, one output, int32 `[1, seq_length]` inputs (MediaPipe's static shapes)."""
    spec = {name: tf.TensorSpec([1, seq_length], tf.int32, name=name) for name in ID_INPUTS}
    function = tf.function(lambda inputs: {output: module.outputs_from_ids(inputs)[output]},
                           input_signature=[spec]).get_concrete_function()
    converter = tf.lite.TFLiteConverter.from_concrete_functions([function], module)
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]  # MediaPipe runs builtins
    return converter.convert()


def with_metadata(content, task, output, vocab_path, labels=()):
    """`content` (a TFLite model) with MediaPipe's metadata and associated files packed in.

    Args:
        content: the TFLite flatbuffer: three int32 id inputs (names ending in the id input
            names, e.g. `serving_default_input_word_ids:0`), one output.
        task: "classifier" (probabilities, `labels` packed as `labels.txt`) or "embedder".
        output: the output's metadata name.
        vocab_path: the WordPiece vocabulary, packed as `vocab.txt`.
        labels: a classifier's label names, by index.
    """
    # pylint: disable=import-outside-toplevel
    # mediapipe is optional (the test extra): imported only by this export.
    import flatbuffers
    from mediapipe.tasks.metadata import metadata_schema_py_generated as metadata_fb
    from mediapipe.tasks.metadata import schema_py_generated as schema_fb
    from mediapipe.tasks.python.metadata.metadata_writers import metadata_info, writer_utils

    model_inputs = writer_utils.get_input_tensor_names(content)
    by_input = {name: next((t for t in model_inputs if t == name or t.endswith(f"_{name}:0")), None)
                for name in ID_INPUTS}
    if None in by_input.values() or len(model_inputs) != 3:
        raise ValueError(f"A MediaPipe BERT model takes the inputs {list(ID_INPUTS)}; the TFLite model "
                         f"has {model_inputs}.")
    bert = metadata_info.BertInputTensorsMd(content, *by_input.values(),
                                            tokenizer_md=metadata_info.BertTokenizerMd(VOCAB_FILE))
    metadata_by_tensor = {md.tensor_name: md for md in bert.input_md}
    subgraph = metadata_fb.SubGraphMetadataT()
    subgraph.inputTensorMetadata = [metadata_by_tensor[name].create_metadata() for name in model_inputs]
    subgraph.inputProcessUnits = bert.create_input_process_unit_metadata()
    files = {VOCAB_FILE: _read(vocab_path)}
    if task == "classifier":
        output_md = metadata_info.ClassificationTensorMd(
            name=output, description="Probabilities of the labels.",
            label_files=[metadata_info.LabelFileMd(LABELS_FILE)],
            tensor_type=writer_utils.get_output_tensor_types(content)[0])
        files[LABELS_FILE] = "\n".join(labels).encode("utf-8")
        name, description = "TextClassifier", "keras_bert BERT text classifier: probabilities of the labels."
    else:
        output_md = metadata_info.TensorMd(name=output, description="The text's embedding.")
        name, description = "TextEmbedder", f"keras_bert BERT text embedder: the model's {output}."
    subgraph.outputTensorMetadata = [output_md.create_metadata()]
    model_metadata = metadata_info.GeneralMd(name=name, description=description).create_metadata()
    model_metadata.subgraphMetadata = [subgraph]
    model_metadata.minParserVersion = MIN_PARSER_VERSION
    builder = flatbuffers.Builder(0)
    builder.Finish(model_metadata.Pack(builder), b"M001")  # the metadata schema's file identifier
    # The model with the metadata as its TFLITE_METADATA buffer (what MetadataPopulator writes).
    tflite = schema_fb.ModelT.InitFromObj(schema_fb.Model.GetRootAsModel(content, 0))
    buffer = schema_fb.BufferT()
    buffer.data = np.frombuffer(bytes(builder.Output()), np.uint8)
    tflite.buffers.append(buffer)
    entry = schema_fb.MetadataT()
    entry.name, entry.buffer = "TFLITE_METADATA", len(tflite.buffers) - 1
    tflite.metadata = [m for m in tflite.metadata or [] if m.name != b"TFLITE_METADATA"] + [entry]
    builder = flatbuffers.Builder(0)
    builder.Finish(tflite.Pack(builder), b"TFL3")
    # Associated files: a zip archive appended to the flatbuffer (MediaPipe reads it from the end).
    packed = io.BytesIO(bytes(builder.Output()))
    packed.seek(0, io.SEEK_END)
    with zipfile.ZipFile(packed, "a") as archive:
        for file_name, data in files.items():
            archive.writestr(file_name, data)
    return packed.getvalue()


def _read(path):
    with open(path, "rb") as f:
        return f.read()


# ----- checks: MediaPipe's Task in a fresh process

def run_mediapipe(runs, texts, timeout=900):
    """MediaPipe's Tasks on `texts` (one at a time) in one fresh process, without TensorFlow.

    Args:
        runs: `[(task, path)]`: "classifier" (`TextClassifier`: scores `[texts, labels]`, by label
            index) or "embedder" (`TextEmbedder`: embeddings `[texts, dim]`), and a .tflite file.
        texts: the raw texts.

    Returns:
        One array per run.
    """
    worker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mediapipe_worker.py")
    source = _read(worker).decode("utf-8")
    with tempfile.TemporaryDirectory(prefix="keras_bert_mediapipe_") as tmp:
        texts_path = os.path.join(tmp, "texts.jsonl")
        with open(texts_path, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(t) + "\n" for t in texts)
        job = {"texts": texts_path, "runs": [{"task": task, "path": os.path.abspath(path),
                                              "outputs": os.path.join(tmp, f"out{i}.npz")}
                                             for i, (task, path) in enumerate(runs)]}
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", GLOG_minloglevel="2")
        env.pop("PYTHONPATH", None)
        proc = subprocess.run([sys.executable, "-c", source, json.dumps(job)], cwd=tmp, env=env,
                              capture_output=True, text=True, timeout=timeout, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"Running {[path for _, path in runs]} with MediaPipe Tasks in a fresh process "
                               f"failed (exit {proc.returncode}):\n{proc.stderr[-4000:]}")
        results = []
        for run in job["runs"]:
            with np.load(run["outputs"]) as data:
                results.append(data["scores" if run["task"] == "classifier" else "embeddings"])
        return results


def write_probe(path, vocab_path, seq_length):
    """A TextEmbedder model whose embedding is its inputs, `[input_word_ids, input_mask, input_type_ids]`
    concatenated: run through MediaPipe, it shows the ids MediaPipe's BertTokenizer packed."""
    spec = {name: tf.TensorSpec([1, seq_length], tf.int32, name=name) for name in ID_INPUTS}
    probe = tf.function(lambda inputs: {"ids": tf.cast(tf.concat([inputs[n] for n in ID_INPUTS], -1), tf.float32)},
                        input_signature=[spec]).get_concrete_function()
    content = tf.lite.TFLiteConverter.from_concrete_functions([probe], tf.Module()).convert()
    with open(path, "wb") as f:
        f.write(with_metadata(content, "embedder", "ids", vocab_path))


def probe_ids(embeddings):
    """`{input_word_ids, input_mask, input_type_ids}` `[texts, seq_length]` from the probe's embeddings."""
    return dict(zip(ID_INPUTS, np.split(np.rint(embeddings).astype(np.int32), len(ID_INPUTS), axis=-1)))


def compare_tokenizers(tokenizer, seq_length, texts, got_ids):
    """How MediaPipe's packed ids (`got_ids`) differ from `tokenizer`'s (the reference) on `texts`.

    Returns:
        `{"texts": n, "differ": k, "examples": [(text, reference tokens, MediaPipe tokens)], "ids": the
        reference ids}`.
    """
    want = {k: v.numpy() for k, v in Preprocessor(tokenizer, seq_length)(tf.constant(texts)).items()}
    rows = [i for i in range(len(texts))
            if not all(np.array_equal(want[n][i], got_ids[n][i]) for n in ID_INPUTS)]

    def tokens(ids, mask):
        return [tokenizer.id_to_token(int(i)) for i, m in zip(ids, mask) if m]

    examples = [(texts[i], tokens(want["input_word_ids"][i], want["input_mask"][i]),
                 tokens(got_ids["input_word_ids"][i], got_ids["input_mask"][i])) for i in rows]
    return {"texts": len(texts), "differ": len(rows), "examples": examples, "ids": want}


def check_mediapipe(module, path, task, output, texts):
    """Parity rows of MediaPipe's Task on `texts` against Keras, and the tokenizer comparison.

    The check: MediaPipe's outputs equal the Keras model's on the ids MediaPipe packed (1e-4).
    Reported: how many texts MediaPipe tokenizes unlike the reference, and its top-label agreement
    (classifier) or smallest cosine (embedder) against Keras on the reference tokenization.
    """
    with tempfile.TemporaryDirectory(prefix="keras_bert_mediapipe_probe_") as tmp:
        probe = os.path.join(tmp, "probe.tflite")
        write_probe(probe, module.tokenizer.vocab_path, module.seq_length)
        got, packed = run_mediapipe([(task, path), ("embedder", probe)], texts)
    got_ids = probe_ids(packed)
    tokens = compare_tokenizers(module.tokenizer, module.seq_length, texts, got_ids)
    name = "probabilities" if task == "classifier" else output
    signature = f"Text{task.title()}"

    def keras(ids):
        return module.outputs_from_ids({n: tf.constant(ids[n]) for n in ID_INPUTS})[output].numpy()

    rows = verify.compare("mediapipe", f"{signature}[MediaPipe's ids]", {name: keras(got_ids)}, {name: got},
                          TOLERANCE)
    reference = keras(tokens["ids"])
    end_to_end = verify.ParityRow("mediapipe", f"{signature}[reference ids]", name,
                                  max_abs_diff=float(np.max(np.abs(got - reference))))
    if task == "classifier":
        end_to_end.agreement = tokens["end_to_end"] = float(np.mean(np.argmax(got, -1) == np.argmax(reference, -1)))
        end_to_end.note = "report only: top label on the reference tokenization"
    else:
        cosine = np.sum(got * reference, -1) / (np.linalg.norm(got, axis=-1) * np.linalg.norm(reference, axis=-1))
        tokens["end_to_end"] = float(np.min(cosine))
        end_to_end.note = f"report only: min cosine {np.min(cosine):.5f} on the reference tokenization"
    token_row = verify.ParityRow("mediapipe", "BertTokenizer", "input_word_ids",
                                 agreement=1 - tokens["differ"] / len(texts),
                                 note=f"report only: {tokens['differ']} of {len(texts)} texts tokenize unlike "
                                 "the reference, see README.md")
    return rows + [end_to_end, token_row], tokens


def tokenizer_summary(tokens, limit=3):
    """Lines saying how MediaPipe's tokenizer differed from the reference, with up to `limit` examples."""
    if tokens is None:
        return ["(not measured: exported without checks)"]
    lines = [f"{tokens['differ']} of {tokens['texts']} checked texts tokenize differently from the reference."]
    for text, want, got in tokens["examples"][:limit]:
        lines.append(f"  {text[:60]!r}: reference {_short(want)}, MediaPipe {_short(got)}")
    return lines


def _short(tokens, limit=12):
    return " ".join(tokens[:limit]) + (" ..." if len(tokens) > limit else "")


def write_readme(path, task, output, module, tokens):
    """The export folder's README: how to run the file and where its tokenizer differs."""
    kind = "TextClassifier" if task == "classifier" else "TextEmbedder"
    what = (f"the probabilities of the labels {module.labels or '(by index)'}" if task == "classifier"
            else f"the model's `{output}`")
    lines = [
        f"# MediaPipe Tasks {kind}", "",
        f"`{MODEL_FILE}` runs with MediaPipe's `{kind}` (Android, iOS, Web, Python) from raw text: "
        f"MediaPipe's BertTokenizer packs `[CLS] text [SEP]` into `{module.seq_length}` ids (longer text is "
        f"truncated), the model returns {what}. The vocabulary{' and labels are' if task == 'classifier' else ' is'} "
        "packed in the file.", "",
        "```python",
        "from mediapipe.tasks.python import text",
        "from mediapipe.tasks.python.core.base_options import BaseOptions",
        f"options = text.{kind}Options(base_options=BaseOptions(model_asset_path=\"{MODEL_FILE}\"))",
        f"with text.{kind}.create_from_options(options) as task:",
        f"    print(task.{'classify' if task == 'classifier' else 'embed'}(\"To be, or not to be\"))",
        "```", "",
        "## The tokenizer is not the reference's", "",
        "MediaPipe tokenizes in its own C++ BertTokenizer, not BERT's reference (Hugging Face's "
        "`BertTokenizerFast`, keras_bert's `Tokenizer`). It:", ""]
    lines += [f"- {difference}" for difference in TOKENIZER_DIFFERENCES]
    lines += ["", "Measured at export (MediaPipe's own packed ids, read back from a probe model):", ""]
    lines += [f"    {line}" for line in tokenizer_summary(tokens, limit=10)]
    lines += ["", "English ASCII text tokenizes identically (all 102,574 sentences of the Shakespeare corpus, "
              "with MiniLM's vocabulary; 23 of 39 lines of CPython's CJK test texts differ). For accented, "
              "Korean, Japanese or oddly spaced text, serve the SavedModel (the reference tokenizer in its "
              "graph) instead.", ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
