"""ServingModule: a Keras BERT model plus its tokenizer as a `tf.Module` with serving signatures."""

import dataclasses

import keras
import numpy as np
import tensorflow as tf

from keras_bert.checkpoints.weight_map import find_encoder, task_head
from keras_bert.text.mask_token import tokenize_keeping_masks
from keras_bert.text.preprocessor import Preprocessor

ID_INPUTS = ("input_word_ids", "input_mask", "input_type_ids")
# A text request of this many rows or more runs in this many groups of similar length (less padding).
LENGTH_GROUPS = 4


def model_task(model):
    """What `model` serves, as it says itself: "pretrainer", "encoder", or its task's name
    (`BertTaskModel.task`, an entry of `keras_bert.tasks.TASKS`). Nothing is guessed from shapes."""
    from keras_bert.models import BertEncoder, BertPretrainer  # pylint: disable=import-outside-toplevel

    if isinstance(model, BertPretrainer):
        return "pretrainer"
    if isinstance(model, BertEncoder):
        return "encoder"
    task = getattr(model, "task", None)
    if task is None:
        raise ValueError(
            f"Model {model.name!r} does not say what it is: export serves a keras_bert encoder, "
            "pretrainer or task model (a BertTaskModel with `task`, from build_classifier, "
            "build_token_classifier, build_span_labeler or tools/finetune.py).")
    return task


def _task_class(task):
    from keras_bert.tasks import TASKS  # pylint: disable=import-outside-toplevel

    if task not in TASKS:
        raise ValueError(f"The model's task {task!r} is not one of keras_bert's tasks {tuple(TASKS)}; "
                         "is it from a newer keras_bert?")
    return TASKS[task]


def check_model(model):
    """Raises a clear error unless `model` is a built Keras model with BERT's id inputs."""
    if not isinstance(model, keras.Model):
        raise TypeError(
            f"Expected a keras.Model (e.g. from keras_bert.build_classifier), got {type(model).__name__}.")
    if not model.built or not model.variables:
        raise ValueError(
            f"Model {model.name!r} is not built (it has no weights yet), so there is nothing to "
            "export. Build it first: call it once on a batch, or use keras_bert's functional "
            "builders (build_encoder, build_classifier, ...), which are built on creation.")
    try:
        inputs = model.input
    except (AttributeError, ValueError):
        inputs = None
    missing = [n for n in ID_INPUTS if not isinstance(inputs, dict) or n not in inputs]
    if missing:
        raise ValueError(
            f"Model {model.name!r} lacks the input(s) {missing}; exported models take a dict of "
            f"int32 [batch, seq] {list(ID_INPUTS)} (the keras_bert / TF Hub convention).")


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
        labels: label names replacing the model's own (`task_config["labels"]`, saved by
            fine-tuning) for a task that takes them; with a tokenizer, the task's signatures
            use them (`classify`, `entities`).
        squad: `answer_signature.SquadOptions` replacing a squad model's own options (True: the
            model's); its `answer` signature windows and picks spans with them.

    The model says what it serves (`model_task`); a task model's outputs and raw-text
    signatures come from its task (`keras_bert.tasks.TASKS[model.task]`).

    Example:
        >>> module = ServingModule(build_classifier(config, 2), Tokenizer("vocab.txt"))
        >>> module.serve_text(tf.constant(["a fine film"]), tf.constant([], tf.string))["probabilities"]
    """

    def __init__(self, model, tokenizer=None, seq_length=128, top_k=5, mask_id=None,
                 runtime_checks=True, string_outputs=True, labels=None, squad=None):
        super().__init__(name="keras_bert_serving")
        check_model(model)
        self.task = model_task(model)
        self.task_class = None if self.task in ("pretrainer", "encoder") else _task_class(self.task)
        config = find_encoder(model).config
        self.vocab_size = config.vocab_size
        self.type_vocab_size = getattr(config, "type_vocab_size", None)
        self.max_length = config.max_position_embeddings
        seq_length = _checked_seq_length(config, tokenizer, seq_length)
        if self.task == "pretrainer":
            if mask_id is None and tokenizer is None:
                raise ValueError(
                    "Exporting a pretrainer needs the id of [MASK]: pass tokenizer= (or mask_id=).")
            mask_id = tokenizer.mask_id if mask_id is None else int(mask_id)
        self.mask_id = mask_id
        self.seq_length = seq_length
        self.top_k = min(int(top_k), self.vocab_size or int(top_k))
        self.runtime_checks = runtime_checks
        # Track the raw tf.Variables, not the Keras model: a SavedModel that tracks Keras 3
        # objects loads in Python but fails in C++ (TF Serving's loader) with "Could not
        # find variable ..." (keras-team/keras#20095). The model is called via a closure.
        self.model_variables = _unique_tf_variables(model)
        model = model.row_model() if hasattr(model, "row_model") else model  # on [rows, seq] ids (BertTaskModel)
        # Outputs in float32 even for a mixed-precision model (serving clients expect float32).
        self.call_keras_model = lambda inputs: tf.nest.map_structure(_as_float32, model(inputs, training=False))
        # A head on the pooled [CLS] is served with the last layer computed for [CLS] only.
        self._call_model = _pooled_head_call(model) or self.call_keras_model
        # Which outputs are per token ([batch, seq, ...]: the model declares seq dynamic).
        self.per_token = tf.nest.map_structure(lambda t: len(t.shape) >= 2 and t.shape[1] is None, model.output)
        self.tokenizer = tokenizer
        # Text requests pad to their longest text (at most seq_length), as a peer pads a batch.
        self.preprocessor = Preprocessor(tokenizer, seq_length, padding="longest") if tokenizer is not None else None
        if tokenizer is not None and self.task == "pretrainer" and string_outputs:
            # From the tokenizer's own list, not the file's raw lines: a file's BOM or "\r\n"
            # line ends (load_vocab drops them) would reach the token strings.
            vocab = tokenizer.vocab
            self.vocab_table = tf.lookup.StaticHashTable(
                tf.lookup.KeyValueTensorInitializer(tf.range(len(vocab), dtype=tf.int64), tf.constant(vocab)),
                default_value="[UNK]")
        self.task_config = self._task_config(model, labels, squad)
        self.labels = self.task_config.get("labels")
        ids_spec = {name: tf.TensorSpec([None, None], tf.int32, name=name) for name in ID_INPUTS}
        self.serve_ids = tf.function(self.outputs_from_ids, input_signature=[ids_spec])
        if tokenizer is not None:
            self.serve_text = tf.function(self._serve_text, input_signature=[
                tf.TensorSpec([None], tf.string, name="text_a"),
                tf.TensorSpec([None], tf.string, name="text_b")])

    def _task_config(self, model, labels, squad):
        """The model's task options, with `labels` / `squad` (caller overrides) checked and merged in."""
        task_config = dict(getattr(model, "task_config", None) or {})
        if labels is not None:
            if self.task_class is None or "labels" not in self.task_class.options():
                raise ValueError(f"labels= names the outputs of a classifier or token classifier; "
                                 f"this model is a {self.task}. Leave labels out.")
            task_config["labels"] = [str(label) for label in labels]
        if squad is not None:
            if not getattr(self.task_class, "takes_squad_options", False):
                raise ValueError(f"squad= configures a span labeler's answer signature; this model is a "
                                 f"{self.task}. Leave squad out.")
            if squad is not True:
                task_config.update(dataclasses.asdict(squad))
        if self.task_class is not None:
            self.task_class.check_serving(model, task_config)
        return task_config
    def signatures(self):
        """`{"serving_default": raw text (if a tokenizer was given), "serve_ids": ids}`."""
        signatures = {"serve_ids": self.serve_ids.get_concrete_function()}
        if self.tokenizer is not None:
            # text_b defaults to an empty vector: TF Serving fills it in when a request omits it.
            def serving_default(text_a, text_b=tf.constant([], tf.string)):
                return self.serve_text(text_a, text_b)

            signatures["serving_default"] = tf.function(serving_default, input_signature=[
                tf.TensorSpec([None], tf.string, name="text_a"),
                tf.TensorSpec([None], tf.string, name="text_b")])
        else:
            signatures["serving_default"] = signatures["serve_ids"]
        signatures.update(self.task_signatures())
        return signatures

    def task_signatures(self):
        """Raw text in, the task's answer out (e.g. `classify`, `entities`, `answer`): the task's own."""
        if self.tokenizer is None or self.task_class is None:
            return {}
        return self.task_class.text_signatures(self, self.task_config)

    # ----- ids -> task outputs

    def outputs_from_ids(self, inputs, by_length=False):
        """Task outputs for a dict of int32 `[batch, seq]` ids (traceable, no tf.function);
        `by_length`: a text request's rows run in groups of similar length (`text_outputs`)."""
        inputs = {name: tf.cast(inputs[name], tf.int32) for name in ID_INPUTS}
        if self.runtime_checks:
            inputs = self._checked(inputs)
        if self.task == "pretrainer":
            return self._fill_mask(inputs)
        if not by_length:
            return self.served_outputs(self._call_model(inputs))
        batch = tf.shape(inputs["input_mask"])[0]
        return self.served_outputs(tf.cond(batch < LENGTH_GROUPS, lambda: self._call_model(inputs),
                                           lambda: self._call_by_length(inputs)))

    def served_outputs(self, outputs):
        """The model's outputs (encoder / task) as served; TF ops, in the graph or eagerly."""
        if self.task == "encoder":
            return {"pooled_output": outputs["pooled_output"],
                    "sequence_output": outputs["sequence_output"]}
        return self.task_class.serving_outputs(outputs, self.task_config)

    def _checked(self, inputs):
        """Graph asserts on the id inputs; each message names the input and what it must be."""
        ids = inputs["input_word_ids"]
        checks = [tf.debugging.assert_equal(
            tf.shape(inputs[name]), tf.shape(ids),
            message=f"{name} must have the shape of input_word_ids [batch, seq] "
                    f"(the same batch size and sequence length)")
            for name in ("input_mask", "input_type_ids")]
        if self.max_length is not None:
            checks.append(tf.debugging.assert_less_equal(
                tf.shape(ids)[1], self.max_length,
                message=f"sequence longer than the model's max_position_embeddings={self.max_length}"))
        ranges = [("input_word_ids", self.vocab_size, f"[0, vocab_size={self.vocab_size})"),
                  ("input_type_ids", self.type_vocab_size, f"[0, type_vocab_size={self.type_vocab_size})"),
                  ("input_mask", 2, "{0, 1}")]
        for name, size, bounds in ranges:
            if size is None:
                continue
            allowed = f"{name} values must be in {bounds}"
            checks.append(tf.debugging.assert_non_negative(inputs[name], message=allowed))
            checks.append(tf.debugging.assert_less(inputs[name], size, message=allowed))
        with tf.control_dependencies(checks):
            return {name: tf.identity(value) for name, value in inputs.items()}

    def _fill_mask(self, inputs):
        ids, mask = inputs["input_word_ids"], inputs["input_mask"]
        seq = tf.shape(ids)[1]
        is_mask = tf.logical_and(tf.equal(ids, self.mask_id), tf.not_equal(mask, 0))  # (batch, seq)
        counts = tf.reduce_sum(tf.cast(is_mask, tf.int32), axis=1)  # (batch,)
        num_slots = tf.reduce_max(tf.concat([counts, [0]], axis=0))
        # Masked positions first, in order: sort keys position (masked) or seq + position.
        order = tf.range(seq)[tf.newaxis, :] + tf.where(is_mask, 0, seq)  # (batch, seq)
        positions = -tf.math.top_k(-order, k=seq).values[:, :num_slots]  # (batch, slots)
        valid = tf.range(num_slots)[tf.newaxis, :] < counts[:, tf.newaxis]  # (batch, slots)
        positions = tf.where(valid, positions, 0)  # padded slots read [CLS]; masked out below
        model_inputs = dict(inputs, masked_lm_positions=positions)
        logits = self._call_model(model_inputs)["mlm_logits"]  # (batch, slots, vocab)
        probabilities = tf.nn.softmax(logits, axis=-1)
        top = tf.math.top_k(probabilities, k=self.top_k)  # (batch, slots, k)
        valid_k = tf.broadcast_to(tf.expand_dims(valid, -1), tf.shape(top.indices))  # not valid[..., None]: TFLite has no bool StridedSlice
        outputs = {
            "masked_lm_positions": tf.where(valid, positions, -1),
            "top_k_ids": tf.where(valid_k, top.indices, -1),
            "top_k_probabilities": tf.where(valid_k, top.values, 0.0),
        }
        if hasattr(self, "vocab_table"):
            tokens = self.vocab_table.lookup(tf.cast(top.indices, tf.int64))
            outputs["top_k_tokens"] = tf.where(valid_k, tokens, "")
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
        return self.text_outputs(inputs)

    def text_outputs(self, inputs):
        """`outputs_from_ids` for a text request: a batch of `LENGTH_GROUPS` rows or more runs as
        that many groups of similar length (rows sorted by length), each padded to its own longest
        row; per-token outputs come back padded with zeros to the request's longest row, in order.
        The same numbers at every real position: a group only drops columns that all its rows pad."""
        return self.outputs_from_ids(inputs, by_length=True)

    def _call_by_length(self, inputs):
        lengths = tf.reduce_sum(inputs["input_mask"], axis=1)  # (batch,)
        order = tf.argsort(lengths, stable=True)
        batch, width = tf.shape(order)[0], tf.shape(inputs["input_mask"])[1]
        groups = []
        for group in range(LENGTH_GROUPS):
            rows = order[batch * group // LENGTH_GROUPS:batch * (group + 1) // LENGTH_GROUPS]
            longest = tf.reduce_max(tf.gather(lengths, rows))
            outputs = self._call_model({name: tf.gather(value, rows)[:, :longest] for name, value in inputs.items()})
            groups.append(tf.nest.map_structure(
                lambda value, per_token: _padded(value, width) if per_token and value.shape.rank >= 2 else value,
                outputs, self.per_token))  # rank 1: one value per row, whatever the model's own inputs
        restore = tf.argsort(order)  # sorted position of each request row
        return tf.nest.map_structure(lambda *values: tf.gather(tf.concat(values, axis=0), restore), *groups)

    def tokenize(self, texts):
        """`[batch]` strings -> int32 ragged `[batch, (pieces)]`; a pretrainer keeps `[MASK]` as one id."""
        if self.task != "pretrainer":
            return self.tokenizer.tokenize(texts)
        return tokenize_keeping_masks(self.tokenizer, texts, self.mask_id)


def _padded(value, width):
    """`value` `[rows, seq, ...]` right-padded with zeros to `[rows, width, ...]`."""
    padding = tf.concat([[[0, 0], [0, width - tf.shape(value)[1]]], tf.zeros([tf.rank(value) - 2, 2], tf.int32)], 0)
    return tf.pad(value, padding)


def _pooled_head_call(model):
    """`inputs -> logits` of a builder-made task model whose head reads only `pooled_output`, with
    the encoder's last layer computed for `[CLS]` alone (`BertEncoder.pooled_output_only`: ~1.15x
    a MiniLM forward at batch 32, 1 thread); None for any other model, or if it disagrees with the
    model on a probe batch (a head assembled by hand that only looks like the builder's)."""
    head = task_head(model)
    encoder = getattr(model, "encoder", None)
    if head is None or not head.pooled_only or encoder is None or encoder.packed or not isinstance(model.output, keras.KerasTensor):
        return None

    def call(inputs):
        pooled = encoder.pooled_output_only({name: inputs[name] for name in ID_INPUTS})
        return _as_float32(head(pooled))

    probe = {"input_word_ids": tf.constant([[1, 2, 3, 0], [3, 2, 1, 2]], tf.int32),
             "input_mask": tf.constant([[1, 1, 1, 0], [1, 1, 1, 1]], tf.int32),
             "input_type_ids": tf.constant([[0, 0, 1, 0], [0, 0, 0, 1]], tf.int32)}
    expected = np.asarray(_as_float32(model(probe, training=False)))
    got = np.asarray(call(probe))
    return call if got.shape == expected.shape and np.allclose(got, expected, atol=1e-5, rtol=1e-4) else None


def _as_float32(tensor):
    return tf.cast(tensor, tf.float32) if tensor.dtype.is_floating else tensor


def _checked_seq_length(config, tokenizer, seq_length):
    """`seq_length` as an int, or a one-line error when it or the tokenizer's vocab does not fit."""
    if tokenizer is not None and config.vocab_size is not None and tokenizer.vocab_size != config.vocab_size:
        raise ValueError(
            f"The tokenizer's vocabulary ({tokenizer.vocab_path}) has {tokenizer.vocab_size} "
            f"tokens but the model's word embeddings have {config.vocab_size} rows. Use the "
            "vocab.txt the model was trained with.")
    seq_length = int(seq_length)
    if config.max_position_embeddings is not None and seq_length > config.max_position_embeddings:
        raise ValueError(
            f"seq_length={seq_length} exceeds the model's max_position_embeddings="
            f"{config.max_position_embeddings}; use seq_length <= {config.max_position_embeddings}.")
    return seq_length


def _unique_tf_variables(model):
    """The model's tf.Variables (each once), unwrapped from their Keras 3 variables."""
    seen, variables = set(), []
    for variable in model.variables:
        value = getattr(variable, "value", variable)
        if id(value) not in seen:
            seen.add(id(value))
            variables.append(value)
    return variables
