"""MaskedLMServing: a pretrainer served as fill-mask, the top-k tokens at every `[MASK]` of the text."""

import re

import numpy as np

from keras_bert.tasks.serving import Serving
from keras_bert.text.mask_token import SPACES_AT_END, mask_token_of

SAMPLE_MASK_TEXTS = (
    "The capital of France is [MASK].",
    "To be, or not to [MASK], that is the [MASK].",
    "A sentence without any mask token.",
    "[MASK]",
)


class MaskedLMServing(Serving):
    """A `BertPretrainer`'s serving (fill-mask): `masked_lm_positions` `[b, p]` (-1 on padded slots),
    `top_k_ids` `[b, p, k]` (-1 on padded slots), `top_k_probabilities` and (SavedModel only)
    `top_k_tokens`. Raw text keeps each literal `[MASK]` as the mask id, so the plain in-graph
    tokenizers of the TFLite and ONNX text models cannot serve it.

    Example:
        >>> ServingModule(pretrainer, tokenizer).serving.serve_text(tf.constant(["Paris is the [MASK]."]), ...)
    """

    name = "pretrainer"
    plain_text = False
    text_pairs = False
    sample_texts = SAMPLE_MASK_TEXTS

    def __init__(self, model, tokenizer, call_model, **settings):
        super().__init__(model, tokenizer, call_model, **settings)
        if self.mask_id is None and tokenizer is None:
            raise ValueError("Exporting a pretrainer needs the id of [MASK]: pass tokenizer= (or mask_id=).")
        self.mask_id = tokenizer.mask_id if self.mask_id is None else int(self.mask_id)
        self.vocab_table = None  # the token strings of `top_k_tokens` (with a tokenizer and string_outputs)
        if tokenizer is not None and self.string_outputs:
            import tensorflow as tf  # pylint: disable=import-outside-toplevel

            # From the tokenizer's own list, not the file's raw lines: a file's BOM or "\r\n"
            # line ends (load_vocab drops them) would reach the token strings.
            vocab = tokenizer.vocab
            self.vocab_table = tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(tf.range(len(vocab), dtype=tf.int64), tf.constant(vocab)),
                default_value="[UNK]")

    def resources(self):
        return dict(super().resources(), **({} if self.vocab_table is None else {"vocab_table": self.vocab_table}))

    def outputs_from_ids(self, inputs, by_length=False):
        import tensorflow as tf  # pylint: disable=import-outside-toplevel

        ids, mask = tf.cast(inputs["input_word_ids"], tf.int32), tf.cast(inputs["input_mask"], tf.int32)
        seq = tf.shape(ids)[1]
        is_mask = tf.logical_and(tf.equal(ids, self.mask_id), tf.not_equal(mask, 0))  # (batch, seq)
        counts = tf.reduce_sum(tf.cast(is_mask, tf.int32), axis=1)  # (batch,)
        num_slots = tf.reduce_max(tf.concat([counts, [0]], axis=0))
        # Masked positions first, in order: sort keys position (masked) or seq + position.
        order = tf.range(seq)[tf.newaxis, :] + tf.where(is_mask, 0, seq)  # (batch, seq)
        positions = -tf.math.top_k(-order, k=seq).values[:, :num_slots]  # (batch, slots)
        valid = tf.range(num_slots)[tf.newaxis, :] < counts[:, tf.newaxis]  # (batch, slots)
        positions = tf.where(valid, positions, 0)  # padded slots read [CLS]; masked out below
        logits = self.call_model(inputs, masked_lm_positions=positions)["mlm_logits"]  # (batch, slots, vocab)
        probabilities = tf.nn.softmax(logits, axis=-1)
        top = tf.math.top_k(probabilities, k=self.top_k)  # (batch, slots, k)
        valid_k = tf.broadcast_to(tf.expand_dims(valid, -1), tf.shape(top.indices))  # not valid[..., None]: TFLite has no bool StridedSlice
        outputs = {
            "masked_lm_positions": tf.where(valid, positions, -1),
            "top_k_ids": tf.where(valid_k, top.indices, -1),
            "top_k_probabilities": tf.where(valid_k, top.values, 0.0),
        }
        if self.vocab_table is not None:
            tokens = self.vocab_table.lookup(tf.cast(top.indices, tf.int64))
            outputs["top_k_tokens"] = tf.where(valid_k, tokens, "")
        return outputs

    def tokenize(self, texts):
        from keras_bert.text.mask_token import tokenize_keeping_masks  # pylint: disable=import-outside-toplevel

        return tokenize_keeping_masks(self.tokenizer, texts, self.mask_id)

    def reference_outputs(self, inputs, keras_model, tokens=True):
        """The top-k of the Keras model's `mlm_logits`, computed in numpy."""
        import tensorflow as tf  # pylint: disable=import-outside-toplevel

        ids, mask = inputs["input_word_ids"].numpy(), inputs["input_mask"].numpy()
        is_mask = (ids == self.mask_id) & (mask != 0)
        counts = is_mask.sum(axis=1)
        valid = np.arange(int(counts.max(initial=0)))[None, :] < counts[:, None]  # (batch, slots)
        positions = np.zeros(valid.shape, np.int32)
        positions[valid] = np.nonzero(is_mask)[1]  # row-major: each row's masked positions in order, then zeros
        logits = keras_model(dict(inputs, masked_lm_positions=tf.constant(positions)))["mlm_logits"]
        probabilities = _softmax(np.asarray(logits))
        top_ids = np.argsort(-probabilities, axis=-1, kind="stable")[..., :self.top_k].astype(np.int32)
        top_p = np.take_along_axis(probabilities, top_ids, axis=-1)
        outputs = {"masked_lm_positions": np.where(valid, positions, -1),
                   "top_k_ids": np.where(valid[..., None], top_ids, -1),
                   "top_k_probabilities": np.where(valid[..., None], top_p, 0.0).astype(np.float32)}
        if tokens and self.tokenizer is not None:
            vocab = np.array([t.encode("utf-8") for t in self.tokenizer.vocab], dtype=object)
            outputs["top_k_tokens"] = np.where(valid[..., None], vocab[top_ids], b"").astype(object)
        return outputs

    def reference_pieces(self, texts):
        return tokenize_keeping_masks_eager(self.tokenizer, list(texts), self.mask_id)

    def sample_ids(self, ids):
        ids[:, 1] = self.mask_id
        ids[0, 4] = self.mask_id
        return ids


def _softmax(x):
    x = np.asarray(x, np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)


def tokenize_keeping_masks_eager(tokenizer, texts, mask_id):
    """Python reference for the graph's `[MASK]`-aware tokenization: ragged int32 `[batch, (pieces)]`."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    rows = []
    for text in texts:
        parts = text.split(mask_token_of(tokenizer))
        parts = [re.sub(SPACES_AT_END, "", p) for p in parts[:-1]] + parts[-1:]  # the mask takes the spaces before it
        pieces = tokenizer.tokenize(tf.constant(parts)).to_list()
        rows.append([i for part in pieces[:-1] for i in part + [mask_id]] + pieces[-1])  # the mask between the parts
    return tf.ragged.constant(rows, dtype=tf.int32, ragged_rank=1)
