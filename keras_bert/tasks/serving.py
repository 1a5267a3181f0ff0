"""Serving: the object that serves one model, built once from it; export wraps it, names no task and no model kind.

Every model the package exports has a serving class, chosen by what the model is (`serving_for`): an
encoder's (`EncoderServing`), a pretrainer's (`MaskedLMServing`: fill-mask) or its task's (`TaskServing`
subclasses, the `serving` of each `Task` in `TASKS`, beside it in the task's module). Built on the model,
its tokenizer and export's model call, the object owns what serving needs (tokenizer, packer, mask id,
vocabulary table, task options) and offers: the outputs from ids, the raw-text signatures, the answer from
ids, the references the export checks compare with, and, as class data, what each format can carry
(capabilities); the formats filter on those.
"""

from keras_bert.tasks.options import check_option_names
from keras_bert.tasks.task import check_labels


class Serving:
    """Base of every serving object: the model's outputs from ids and from raw text, with the plain defaults.

    Capabilities (class data the formats read):
        tflite_signatures: the `text_signatures` that TFLite can run too (TFLite builtins and
            tensorflow-text ops only).
        plain_text: raw text is tokenized as plain text, so the in-graph tokenizers of the
            TFLite and ONNX text models can serve it (fill-mask keeps a literal `[MASK]` whole).
        text_pairs: the text signatures take a second text (`text_b`).
        pads_text_to_seq_length: raw text packs to `seq_length`, not to the longest text (SQuAD's
            n-best reads the padding positions too).
        single_text_output: `("classifier" | "embedder", output)`: one text in, one output out
            (label probabilities or an embedding), as MediaPipe Tasks serve it; None: not that shape.
        sample_texts: texts for the export checks (None: export's samples).

    Args:
        model: the Keras model served (its `task_config` gives the options; checked here).
        tokenizer: its `keras_bert.text.Tokenizer` (pairs bound to the model's layout), or None (ids only).
        call_model: `call_model(inputs, by_length=False)`: the model's float32 outputs for int32 id
            inputs, traceable (export's `ModelCall`: id checks, the `[CLS]`-only head, length groups);
            `call_model.runtime_checks`: it asserts the ids in the graph (SavedModel only).
        seq_length: the longest packed text of the text signatures (requests pad to their longest).
        top_k: predictions per `[MASK]` (fill-mask).
        mask_id: the `[MASK]` id (fill-mask without a tokenizer).
        string_outputs: token strings among the outputs (fill-mask's `top_k_tokens`; SavedModel only).
        options: options replacing the model's own (export's `--labels`, `--doc_stride`, ...), checked.

    Example:
        >>> serving = serving_for(model)(model, tokenizer, ModelCall(model), seq_length=128)
        >>> serving.serve_text(tf.constant(["a fine film"]), tf.constant([], tf.string))["probabilities"]
    """

    name = ""
    tflite_signatures = ()
    plain_text = True
    text_pairs = True
    pads_text_to_seq_length = False
    single_text_output = None
    sample_texts = None

    def __init__(self, model, tokenizer, call_model, *, seq_length=128, top_k=5, mask_id=None,
                 string_outputs=True, options=None):
        from keras_bert.text.preprocessor import Preprocessor  # pylint: disable=import-outside-toplevel

        self.model = model
        self.tokenizer = tokenizer
        self.call_model = call_model
        self.runtime_checks = call_model.runtime_checks
        self.seq_length = seq_length
        self.top_k = top_k
        self.mask_id = mask_id
        self.string_outputs = string_outputs
        self.task_config = self.checked_options(model, options)
        self._text_functions = None
        self.labels = self.task_config.get("labels")
        # Text requests pad to their longest text (at most seq_length), as a peer pads a batch.
        self.preprocessor = Preprocessor(tokenizer, seq_length, padding="longest") if tokenizer is not None else None

    # ----- options (checked before anything is built: export's early check calls these too)

    @classmethod
    def check_options(cls, options):
        """Refuses, in one line, an option this model does not take."""
        for name, value in options.items():
            raise ValueError(f"Option {name} (--{name} {value}) does not apply to the {cls.name} model: "
                             "it has no task options. Leave it out.")

    @classmethod
    def checked_options(cls, model, overrides=None):
        """The options `model` is served with: its own (`task_config`), with `overrides` (export's
        `--labels`, `--doc_stride`, ...) checked and merged in."""
        overrides = dict(overrides or {})
        cls.check_options(overrides)
        if overrides.get("labels") is not None:
            overrides["labels"] = [str(label) for label in overrides["labels"]]
        config = dict(getattr(model, "task_config", None) or {}, **overrides)
        cls.check_serving(model, config)
        return config

    @classmethod
    def check_serving(cls, model, task_config):
        """Raises a one-line error if `task_config` cannot serve `model`."""

    # ----- what the signatures run (traceable)

    def resources(self):
        """`{name: trackable}`: what the signatures read that a SavedModel must track, under the names its
        object graph keeps: the tokenizer (its vocabulary asset and lookup tables)."""
        return {} if self.tokenizer is None else {"tokenizer": self.tokenizer}

    def outputs_from_ids(self, inputs, by_length=False):
        """The served outputs of id `inputs`; `by_length`: a text request, whose rows may run in groups
        of similar length."""
        return self.serving_outputs(self.call_model(inputs, by_length))

    def serving_outputs(self, outputs):
        """The model's outputs as served from ids (TF ops; runs in the serving graph and eagerly)."""
        return outputs

    def tokenize(self, texts):
        """`[batch]` strings -> int32 ragged `[batch, (pieces)]`, in the serving graph: the first `seq_length`
        pieces of each (what the packer keeps), so one long request costs about what `seq_length` pieces cost."""
        return self.tokenizer.tokenize(texts, max_pieces=self.seq_length)

    def serve_text(self, text_a, text_b):
        """Raw `text_a` (and `text_b` when it is not empty), packed to the request's longest text: the
        served outputs."""
        import tensorflow as tf  # pylint: disable=import-outside-toplevel

        pieces_a = self.tokenize(text_a)  # outside the branches: the tokenizer is traced once

        def single():
            return self.preprocessor.pack([pieces_a])

        def pair():
            checks = [tf.debugging.assert_equal(
                tf.size(text_b), tf.size(text_a),
                message="text_b must hold one string per text_a string, or be left out")]
            with tf.control_dependencies(checks):
                return self.preprocessor.pack([pieces_a, self.tokenize(text_b)])

        inputs = tf.cond(tf.size(text_b) > 0, pair, single)
        return self.outputs_from_ids(inputs, by_length=True)

    def text_signatures(self):
        """`{name: tf.function}`: raw text in, the task's answer out (none here)."""
        return {}

    def text_functions(self):
        """`text_signatures()`, built once: what a SavedModel saves is what its check runs, traced once."""
        if self._text_functions is None:
            self._text_functions = self.text_signatures()
        return self._text_functions

    def answer_from_ids(self, inputs):
        """The served outputs of ids plus the answer computed from them (`answer_outputs`, e.g. the top
        label): what an ids-only graph (`model.onnx`) returns."""
        outputs = self.outputs_from_ids(inputs)
        outputs.update(self.answer_outputs(inputs, outputs))
        return outputs

    def answer_outputs(self, inputs, outputs):
        """Extra outputs computed from ids and the served outputs alone (none here)."""
        return {}

    # ----- what the export checks compare with

    def reference_outputs(self, inputs, keras_model, tokens=True):
        """The served outputs of the Keras model (`keras_model`, run as `predict` runs it), as numpy.
        `tokens=False` leaves out string outputs only the SavedModel has."""
        import numpy as np  # pylint: disable=import-outside-toplevel

        outputs = self.serving_outputs(keras_model(inputs))
        return {name: np.asarray(value) for name, value in outputs.items()}

    def reference_pieces(self, texts):
        """Eager tokenization of `texts` (the Python path a Keras user runs): ragged `[batch, (pieces)]`."""
        import tensorflow as tf  # pylint: disable=import-outside-toplevel

        return self.tokenizer.tokenize(tf.constant(list(texts)))

    def sample_ids(self, ids):
        """Random check ids (numpy `[batch, seq]` word ids) as this model needs them."""
        return ids


class TaskServing(Serving):
    """A task model's serving: its task's options (`Options`, the task's `TaskOptions`) and labels checked;
    logits and their softmax from ids. Each task module has one beside its `Task` (`Task.serving`).

    Example:
        >>> TASKS["classification"].serving(classifier, tokenizer, ModelCall(classifier)).text_signatures()["classify"]
    """

    Options = None  # the task's TaskOptions dataclass

    def __init__(self, model, tokenizer, call_model, **settings):
        super().__init__(model, tokenizer, call_model, **settings)
        self.options = self.options_of(self.task_config)

    @classmethod
    def options_of(cls, task_config, where="task_config"):
        """The checked `Options` of a model's `task_config` (one-line error naming `where`)."""
        return cls.Options.from_task_config(task_config, where)

    @classmethod
    def check_options(cls, options):
        """Refuses, in one line, an option this task does not take (e.g. `max_query_length` for a classifier)."""
        check_option_names(options, cls.name, cls.Options.flags())

    @classmethod
    def check_serving(cls, model, task_config):
        """Label names, when the task has them, must name each output."""
        options = cls.options_of(task_config, f"Model {model.name!r}")
        if getattr(options, "labels", None) is not None:
            check_labels(options.labels, model.output.shape[-1], f"{cls.name} model")

    def serving_outputs(self, outputs):
        import tensorflow as tf  # pylint: disable=import-outside-toplevel

        return {"logits": outputs, "probabilities": tf.nn.softmax(outputs, axis=-1)}
