"""TF Hub reusable SavedModels: an encoder and a preprocessor, in the layout of Model Garden's `export_tfhub`.

They implement TF Hub's "Text embeddings with Transformer Encoders" API
(https://www.tensorflow.org/hub/common_saved_model_apis/text), so the classic workflow
works unchanged in tf-keras::

    preprocess = hub.KerasLayer("<dir>/preprocessor")
    encoder = hub.KerasLayer("<dir>/encoder", trainable=True)
    pooled = encoder(preprocess(sentences))["pooled_output"]

Encoder: callable on the dict of int32 `input_word_ids`/`input_mask`/`input_type_ids`
(`training=True` applies dropout), returns `pooled_output`, `sequence_output`,
`encoder_outputs` (one per layer) and `default` (= `pooled_output`); exposes `variables`,
`trainable_variables` and `regularization_losses` (Reusable SavedModel API), plus
`vocab_file` and `do_lower_case` as Model Garden's encoders do.
Preprocessor: callable on a `[batch]` string tensor (packs to `seq_length`); sub-objects
`tokenize` (strings -> int32 `[batch, (words), (pieces)]`, with `get_special_tokens_dict`)
and `bert_pack_inputs(segments, seq_length=...)`; the vocab is an asset, the casing a variable.
"""

import os

import numpy as np
import tensorflow as tf

from keras_bert.export import verify
from keras_bert.export.serving_checks import check_model
from keras_bert.text.packer import pack_segments
from keras_bert.text.preprocessor import Preprocessor

ENCODER_DIR, PREPROCESSOR_DIR = "encoder", "preprocessor"
_ID_SPEC = tf.TensorSpec([None, None], tf.int32)
SAMPLE_TEXTS = ("The quick brown fox jumps over the lazy dog.", "Héllo, wörld!", "", "a " * 200)


class HubEncoder(tf.train.Checkpoint):  # not tf.Module: its read-only `variables` property
    """A Keras `BertEncoder` as a TF Hub reusable SavedModel object.

    Args:
        encoder: a `BertEncoder` (Keras 3, TensorFlow backend).
        vocab_file: vocab.txt stored as the `vocab_file` asset (optional).
        lower_case: stored as the `do_lower_case` variable (with `vocab_file`).

    Example:
        >>> tf.saved_model.save(HubEncoder(encoder, "vocab.txt", True), "/tmp/hub/encoder")  # doctest: +SKIP
    """

    def __init__(self, encoder, vocab_file=None, lower_case=None):
        super().__init__()
        check_model(encoder)
        self._encoder = encoder
        # Keras 3 variables wrap tf.Variables (`.value`); TF Hub wants the tf.Variables themselves.
        self.variables = [v.value for v in encoder.variables]
        self.trainable_variables = [v.value for v in encoder.trainable_variables]
        self.regularization_losses = []
        if vocab_file:
            self.vocab_file = tf.saved_model.Asset(vocab_file)
            self.do_lower_case = tf.Variable(bool(lower_case), trainable=False, name="do_lower_case")

    @tf.function
    def __call__(self, inputs, training=False):
        inputs = {name: inputs[name] for name in ("input_word_ids", "input_mask", "input_type_ids")}
        limit = self._encoder.config.max_position_embeddings
        if limit:  # a longer input fails as one line naming the limit, not as a shape error deep inside
            length = tf.shape(inputs["input_word_ids"])[1]
            check = tf.debugging.Assert(length <= limit, [
                "TF Hub encoder: the inputs have", length, f"positions (seq_length), more than the encoder "
                f"maximum of {limit} (max_position_embeddings); pack them with seq_length <= {limit}"])
            with tf.control_dependencies([check]):  # unknown static length: the check runs first
                inputs = {k: tf.compat.v1.placeholder_with_default(v, [None, None]) for k, v in inputs.items()}
        outputs = self._encoder(inputs, training=training)
        return {"pooled_output": outputs["pooled_output"], "default": outputs["pooled_output"],
                "sequence_output": outputs["sequence_output"],
                "encoder_outputs": list(outputs["encoder_outputs"])}

    def trace(self):
        """Traces `__call__` for inference and training (both become concrete functions in the SavedModel)."""
        spec = {name: _ID_SPEC for name in ("input_word_ids", "input_mask", "input_type_ids")}
        for training in (False, True):
            self.__call__.get_concrete_function(spec, training=training)
        return self


class HubTokenize(tf.Module):
    """The preprocessor's `tokenize` sub-object: strings -> int32 `[batch, (words), (pieces)]`."""

    def __init__(self, tokenizer):
        super().__init__(name="tokenize")
        self._tokenizer = tokenizer
        ids = {"vocab_size": tokenizer.vocab_size, "start_of_sequence_id": tokenizer.cls_id,
               "end_of_segment_id": tokenizer.sep_id, "padding_id": tokenizer.pad_id,
               "mask_id": tokenizer.mask_id}
        self.get_special_tokens_dict = tf.function(
            lambda: {k: tf.constant(v, tf.int32) for k, v in ids.items()}, autograph=False, input_signature=[])

    @tf.function(autograph=False, input_signature=[tf.TensorSpec([None], tf.string)])
    def __call__(self, sentences):
        return self._tokenizer.tokenize_words(sentences)


class HubPackInputs(tf.Module):
    """The preprocessor's `bert_pack_inputs`: 1 or 2 ragged id tensors (ragged rank 1 or 2) -> encoder inputs."""

    def __init__(self, preprocessor, max_seq_length=None):
        super().__init__(name="bert_pack_inputs")
        self._preprocessor = preprocessor
        self._max_seq_length = max_seq_length  # the encoder's max_position_embeddings
        for ragged_rank in (1, 2):
            for num_segments in (1, 2):
                segments = [tf.RaggedTensorSpec([None] * (ragged_rank + 1), tf.int32)] * num_segments
                self.__call__.get_concrete_function(segments)  # the preprocessor's seq_length
                self.__call__.get_concrete_function(segments, seq_length=tf.TensorSpec([], tf.int32))

    @tf.function(autograph=False)
    def __call__(self, inputs, seq_length=None):
        flat = [s.merge_dims(1, -1) if s.ragged_rank > 1 else s for s in inputs]  # [b, (pieces)]
        if seq_length is None:
            return self._preprocessor.pack(flat)
        tokenizer = self._preprocessor.tokenizer  # the one packer, at the caller's length
        seq_length = tf.convert_to_tensor(seq_length, tf.int32)
        with tf.control_dependencies(self._seq_length_checks(seq_length, len(flat))):
            seq_length = tf.identity(seq_length)
        return pack_segments(flat, seq_length, tokenizer.cls_id, tokenizer.sep_id, tokenizer.pad_id,
                             self._preprocessor.truncation, layout=getattr(tokenizer, "pair_layout", "bert"))

    def _seq_length_checks(self, seq_length, num_segments):
        """`seq_length` leaves a piece of each text ([CLS], one [SEP] and a piece per segment) and fits the encoder."""
        least = 2 * num_segments + 1
        layout = "[CLS] A [SEP] B [SEP]" if num_segments == 2 else "[CLS] A [SEP]"
        checks = [tf.debugging.Assert(seq_length >= least, [
            "bert_pack_inputs: seq_length", seq_length, f"leaves no room for the text of {layout}; "
            f"pass seq_length >= {least}"])]
        if self._max_seq_length:
            checks.append(tf.debugging.Assert(seq_length <= self._max_seq_length, [
                "bert_pack_inputs: seq_length", seq_length, f"is more than the encoder maximum of "
                f"{self._max_seq_length} positions (max_position_embeddings); pass seq_length <= "
                f"{self._max_seq_length}"]))
        return checks


class HubPreprocessor(tf.Module):
    """Raw text -> encoder inputs, as a TF Hub preprocessor SavedModel object.

    Args:
        tokenizer: a `keras_bert.text.Tokenizer` (its vocab becomes an asset).
        seq_length: the root call's packed length and `bert_pack_inputs`' default.
        max_seq_length: the encoder's `max_position_embeddings`: `bert_pack_inputs` refuses a
            longer `seq_length` in one line (as it refuses one that leaves no room for the texts).

    Example:
        >>> tf.saved_model.save(HubPreprocessor(tokenizer, 128), "/tmp/hub/preprocessor")  # doctest: +SKIP
    """

    def __init__(self, tokenizer, seq_length=128, max_seq_length=None):
        super().__init__(name="hub_preprocessor")
        if max_seq_length and seq_length > max_seq_length:
            raise ValueError(f"seq_length={seq_length} (--seq_length) is more than the encoder's maximum of "
                             f"{max_seq_length} positions (max_position_embeddings); use seq_length <= "
                             f"{max_seq_length}.")
        self._preprocessor = Preprocessor(tokenizer, seq_length=seq_length)
        self.tokenize = HubTokenize(tokenizer)
        self.bert_pack_inputs = HubPackInputs(self._preprocessor, max_seq_length)
        self.vocab_file = tokenizer.vocab_asset
        self.do_lower_case = tf.Variable(tokenizer.lower_case, trainable=False, name="do_lower_case")

    @tf.function(autograph=False, input_signature=[tf.TensorSpec([None], tf.string)])
    def __call__(self, sentences):
        return self._preprocessor(sentences)


def check_tfhub(encoder, tokenizer, paths, sample_texts=None):
    """Parity rows: the reloaded SavedModels (preprocessor + encoder) against the Keras encoder."""
    hub_encoder = tf.saved_model.load(paths[ENCODER_DIR])
    if tokenizer is not None:
        texts = tf.constant(list(sample_texts or SAMPLE_TEXTS))
        inputs = tf.saved_model.load(paths[PREPROCESSOR_DIR])(texts)
        reference = Preprocessor(tokenizer, inputs["input_word_ids"].shape[1])(texts)
        rows = verify.compare("tfhub", "preprocessor", reference, inputs, tolerance=None)
    else:
        ids = np.random.default_rng(0).integers(1, encoder.config.vocab_size, (4, 16)).astype("int32")
        inputs = {"input_word_ids": ids, "input_mask": np.ones_like(ids), "input_type_ids": np.zeros_like(ids)}
        rows = []
    want = {k: v for k, v in encoder(inputs).items() if k != "encoder_outputs"}
    got = hub_encoder(inputs)
    return rows + verify.compare("tfhub", "encoder", want, got, tolerance=1e-5,
                                 input_mask=inputs["input_mask"])


def export_tfhub(model, export_dir, tokenizer=None, seq_length=128, overwrite=False, sample_texts=None,
          verify_export=True, raise_on_failure=True):
    """Writes `<export_dir>/encoder` and (with a tokenizer) `<export_dir>/preprocessor` as TF Hub SavedModels.

    Both are reloaded and compared with the Keras encoder (tolerance 1e-5).

    Args:
        model: a `BertEncoder` or any model nesting one (only the encoder is exported).
        export_dir: output directory.
        tokenizer: `keras_bert.text.Tokenizer`; its vocab and casing go into both models.
        seq_length: the preprocessor's default packed length.
        overwrite: replace existing SavedModels.
        sample_texts: texts for the parity check.
        verify_export: reload and compare with Keras.
        raise_on_failure: raise `verify.ParityError` when a check fails.

    Returns:
        `verify.ExportReport`; `extra` holds the `encoder` and `preprocessor` paths.

    Example:
        >>> encoder = keras_bert.load_checkpoint(minilm_dir, model="encoder")  # doctest: +SKIP
        >>> report = export_tfhub(encoder, "/tmp/minilm_hub", tokenizer)  # doctest: +SKIP
    """
    from keras_bert.models.model_operations import find_encoder  # pylint: disable=import-outside-toplevel

    from keras_bert.models.families import bind_pair_layout  # pylint: disable=import-outside-toplevel

    encoder = find_encoder(model)
    bind_pair_layout(tokenizer, encoder.config)  # text pairs packed as the model's family reads them
    paths = {ENCODER_DIR: os.path.join(export_dir, ENCODER_DIR),  # report.extra: TF Hub folder -> path
             PREPROCESSOR_DIR: os.path.join(export_dir, PREPROCESSOR_DIR) if tokenizer is not None else None}
    verify.prepare_output_dir(export_dir, [p for p in paths.values() if p], overwrite)
    hub_encoder = HubEncoder(encoder, getattr(tokenizer, "vocab_path", None), getattr(tokenizer, "lower_case", None))
    tf.saved_model.save(hub_encoder.trace(), paths[ENCODER_DIR])
    if tokenizer is not None:
        tf.saved_model.save(HubPreprocessor(tokenizer, seq_length, encoder.config.max_position_embeddings),
                            paths[PREPROCESSOR_DIR])
    report = verify.ExportReport(export_dir, extra=dict(paths))
    if verify_export:
        report.rows += check_tfhub(encoder, tokenizer, paths, sample_texts)
        if raise_on_failure:
            report.raise_if_failed()
    return report
