"""ServingModule: a Keras BERT model plus its tokenizer as a `tf.Module` with serving signatures."""

import tensorflow as tf

from keras_bert.checkpoints.weight_map import find_encoder
from keras_bert.export.pooled_head import as_float32, pooled_head_call
from keras_bert.export.serving_checks import ID_INPUTS, check_model, checked_ids, checked_seq_length
from keras_bert.models.families import bind_pair_layout
from keras_bert.tasks.model_serving import serving_for
from keras_bert.tasks.task import Task
from keras_bert.text.preprocessor import Preprocessor

# A text request of this many rows or more runs in this many groups of similar length (less padding).
LENGTH_GROUPS = 4


def model_task(model):
    """What `model` is, in words for messages: its serving object's name ("encoder", "pretrainer" or
    its task's, `keras_bert.tasks.TASKS`). Nothing is guessed from shapes."""
    return serving_for(model).name


def serves_a_task(model):
    """Whether `model` is a task model (a head on the encoder, served by its `Task`)."""
    return issubclass(serving_for(model), Task)


class ServingModule(tf.Module):
    """Wraps a Keras BERT model and (optionally) its tokenizer with `serve_ids` and `serve_text`.

    `serve_ids` takes int32 `[batch, seq]` ids (dynamic batch and sequence);
    `serve_text` takes raw strings `text_a` and optional `text_b` (`[batch]`), tokenizes
    and packs them in the graph, padded to the request's longest text (at most `seq_length`:
    longer text is truncated, pairs share the budget round-robin; an empty string gives
    `[CLS] [SEP]`) and runs the model; sequence outputs are `[batch, longest, ...]`.
    Both return the task's outputs: classifier `logits`, `probabilities`; encoder
    `pooled_output`, `sequence_output`; span labeler `start_logits`, `end_logits`;
    pretrainer the top-k tokens at every `[MASK]`: `masked_lm_positions` `[b, p]` (-1 on
    padded slots), `top_k_ids` `[b, p, k]` (-1 on padded slots), `top_k_probabilities`
    and (SavedModel only) `top_k_tokens`.

    Args:
        model: a built Keras model with the three id inputs.
        tokenizer: optional `keras_bert.text.Tokenizer`; its vocab size must equal the model's.
        seq_length: the longest packed text of the text signatures (requests pad to their longest).
        top_k: predictions per `[MASK]` (pretrainer).
        mask_id: id of `[MASK]` for a pretrainer exported without a tokenizer.
        runtime_checks: add graph asserts with readable messages (SavedModel only; TFLite and
            ONNX drop assert ops).
        string_outputs: include the pretrainer's `top_k_tokens` (a vocabulary lookup table;
            SavedModel only).
        options: task options replacing the model's own (`task_config`), e.g. `{"labels": [...]}`
            (the task's signatures use them: `classify`, `entities`) or a SQuAD model's
            `{"doc_stride": 64}` (its `answer` signature windows with it); checked by the task's
            options (`check_options`), one line naming an option the model does not take.

    What serves the model comes from the model (`keras_bert.tasks.serving_for`): the encoder's,
    the pretrainer's (fill-mask) or its task's serving object; it computes the outputs, adds the
    raw-text signatures and declares what each format can carry.

    Example:
        >>> module = ServingModule(build_classifier(config, 2), Tokenizer("vocab.txt"))
        >>> module.serve_text(tf.constant(["a fine film"]), tf.constant([], tf.string))["probabilities"]
    """

    def __init__(self, model, tokenizer=None, seq_length=128, top_k=5, mask_id=None,
                 runtime_checks=True, string_outputs=True, options=None):
        super().__init__(name="keras_bert_serving")
        check_model(model)
        self.serving = serving_for(model)
        self.task = self.serving.name  # for messages
        config = find_encoder(model).config
        self.vocab_size = config.vocab_size
        self.type_vocab_size = getattr(config, "type_vocab_size", None) or None  # 0 (DeBERTa-v3): ids unread
        self.max_length = config.max_sequence_length  # RoBERTa: the rows after its offset
        self.seq_length = seq_length = checked_seq_length(config, tokenizer, seq_length)
        self.top_k = min(int(top_k), self.vocab_size or int(top_k))
        self.runtime_checks = runtime_checks
        # Track the raw tf.Variables, not the Keras model: a SavedModel that tracks Keras 3
        # objects loads in Python but fails in C++ (TF Serving's loader) with "Could not
        # find variable ..." (keras-team/keras#20095). The model is called via a closure.
        self.model_variables = list({id(value): value  # each tf.Variable once, unwrapped from its Keras 3 variable
                                     for value in (getattr(v, "value", v) for v in model.variables)}.values())
        model = model.row_model() if hasattr(model, "row_model") else model  # on [rows, seq] ids (BertTaskModel)
        # Outputs in float32 even for a mixed-precision model (serving clients expect float32).
        self.call_keras_model = lambda inputs: tf.nest.map_structure(as_float32, model(inputs, training=False))
        # The model's outputs (float32) for id inputs (traceable); a head on the pooled [CLS] is served with the
        # last layer computed for [CLS] only.
        self.call_model = pooled_head_call(model) or self.call_keras_model
        # Which outputs are per token ([batch, seq, ...]: the model declares seq dynamic).
        self.per_token = tf.nest.map_structure(lambda t: len(t.shape) >= 2 and t.shape[1] is None, model.output)
        self.tokenizer = bind_pair_layout(tokenizer, config)  # pairs packed as the model's family reads them
        # Text requests pad to their longest text (at most seq_length), as a peer pads a batch.
        self.preprocessor = Preprocessor(tokenizer, seq_length, padding="longest") if tokenizer is not None else None
        self.mask_id = mask_id
        self.serving.prepare(self, mask_id=mask_id, string_outputs=string_outputs)
        self.task_config = self.serving.serving_config(model, options)
        self.labels = self.task_config.get("labels")
        ids_spec = {name: tf.TensorSpec([None, None], tf.int32, name=name) for name in ID_INPUTS}
        self.serve_ids = tf.function(self.outputs_from_ids, autograph=False, input_signature=[ids_spec])
        if tokenizer is not None:
            self.serve_text = tf.function(self._serve_text, autograph=False, input_signature=[
                tf.TensorSpec([None], tf.string, name="text_a"),
                tf.TensorSpec([None], tf.string, name="text_b")])

    def signatures(self):
        """`{"serving_default": raw text (if a tokenizer was given), "serve_ids": ids}`."""
        signatures = {"serve_ids": self.serve_ids.get_concrete_function()}
        if self.tokenizer is not None:
            # text_b defaults to an empty vector: TF Serving fills it in when a request omits it.
            def serving_default(text_a, text_b=tf.constant([], tf.string)):
                return self.serve_text(text_a, text_b)

            signatures["serving_default"] = tf.function(serving_default, autograph=False, input_signature=[
                tf.TensorSpec([None], tf.string, name="text_a"),
                tf.TensorSpec([None], tf.string, name="text_b")])
        else:
            signatures["serving_default"] = signatures["serve_ids"]
        signatures.update(self.task_signatures())
        return signatures

    def task_signatures(self):
        """Raw text in, the task's answer out (e.g. `classify`, `entities`, `answer`): the task's own."""
        if self.tokenizer is None:
            return {}
        return self.serving.text_signatures(self, self.task_config)

    # ----- ids -> task outputs

    def outputs_from_ids(self, inputs, by_length=False):
        """Task outputs for a dict of int32 `[batch, seq]` ids (traceable, no tf.function);
        `by_length`: a text request's rows run in groups of similar length (`_call_by_length`)."""
        inputs = {name: tf.cast(inputs[name], tf.int32) for name in ID_INPUTS}
        if self.runtime_checks:
            inputs = checked_ids(inputs, self.max_length, self.vocab_size, self.type_vocab_size)
        return self.serving.ids_outputs(self, inputs, by_length)

    def call_in_length_groups(self, inputs):
        """`call_model` on a text request: `LENGTH_GROUPS` rows or more run in groups of similar length."""
        batch = tf.shape(inputs["input_mask"])[0]
        return tf.cond(batch < LENGTH_GROUPS, lambda: self.call_model(inputs), lambda: self._call_by_length(inputs))

    def answer_from_ids(self, inputs):
        """The served outputs of ids plus the answer computed from them (e.g. `top_label`): what an
        ids-only graph (`model.onnx`) returns."""
        outputs = self.outputs_from_ids(inputs)
        outputs.update(self.serving.answer_from_ids(self, inputs, outputs, self.task_config))
        return outputs

    # ----- text -> task outputs

    def _serve_text(self, text_a, text_b):
        def single():
            return self.preprocessor.pack([self.tokenize(text_a)])

        def pair():
            checks = [tf.debugging.assert_equal(
                tf.size(text_b), tf.size(text_a),
                message="text_b must hold one string per text_a string, or be left out")]
            with tf.control_dependencies(checks):
                return self.preprocessor.pack([self.tokenize(text_a), self.tokenize(text_b)])

        inputs = tf.cond(tf.size(text_b) > 0, pair, single)
        return self.outputs_from_ids(inputs, by_length=True)

    def _call_by_length(self, inputs):
        """`call_model` on a text request as `LENGTH_GROUPS` groups of similar length (rows sorted by length),
        each padded to its own longest row; per-token outputs come back padded with zeros to the request's
        longest row, in order. The same numbers at every real position: a group only drops columns that all
        its rows pad."""
        lengths = tf.reduce_sum(inputs["input_mask"], axis=1)  # (batch,)
        order = tf.argsort(lengths, stable=True)
        batch, width = tf.shape(order)[0], tf.shape(inputs["input_mask"])[1]
        groups = []
        for group in range(LENGTH_GROUPS):
            rows = order[batch * group // LENGTH_GROUPS:batch * (group + 1) // LENGTH_GROUPS]
            longest = tf.reduce_max(tf.gather(lengths, rows))
            outputs = self.call_model({name: tf.gather(value, rows)[:, :longest] for name, value in inputs.items()})
            groups.append(tf.nest.map_structure(
                lambda value, per_token: _padded(value, width) if per_token and value.shape.rank >= 2 else value,
                outputs, self.per_token))  # rank 1: one value per row, whatever the model's own inputs
        restore = tf.argsort(order)  # sorted position of each request row
        return tf.nest.map_structure(lambda *values: tf.gather(tf.concat(values, axis=0), restore), *groups)

    def tokenize(self, texts):
        """`[batch]` strings -> int32 ragged `[batch, (pieces)]` (fill-mask keeps `[MASK]` as one id)."""
        return self.serving.tokenize(self, texts)


def _padded(value, width):
    """`value` `[rows, seq, ...]` right-padded with zeros to `[rows, width, ...]`."""
    padding = tf.concat([[[0, 0], [0, width - tf.shape(value)[1]]], tf.zeros([tf.rank(value) - 2, 2], tf.int32)], 0)
    return tf.pad(value, padding)
