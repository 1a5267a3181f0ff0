"""Serving: what `keras_bert.export` asks of a model, so export names no task and no model kind.

Every model the package exports has a serving object, chosen by what the model is (`serving_for`):
an encoder's (`EncoderServing`), a pretrainer's (`MaskedLMServing`: fill-mask) or its task's (a
`Task` subclass, one per entry of `TASKS`). It says how the model's outputs are served from ids,
which raw-text signatures it adds, and, as class data, what each format can carry (capabilities);
the formats filter on those.
"""


class Serving:
    """Base of every serving object: the hooks export calls, with the plain defaults.

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
    """

    name = ""
    tflite_signatures = ()
    plain_text = True
    text_pairs = True
    pads_text_to_seq_length = False
    single_text_output = None
    sample_texts = None

    @classmethod
    def options(cls):
        """`{name: (type, default, help)}`: the options an export may override (none here)."""
        return {}

    @classmethod
    def check_options(cls, options, tasks=()):
        """Refuses, in one line, an option this model does not take."""
        for name, value in options.items():
            raise ValueError(f"Option {name} (--{name} {value}) does not apply to the {cls.name} model: "
                             "it has no task options. Leave it out.")

    @classmethod
    def serving_config(cls, model, overrides=None):
        """The options `model` is served with: its own (`task_config`), with `overrides` (export's
        `--labels`, `--doc_stride`, ...: options of this serving object) checked and merged in."""
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

    @classmethod
    def prepare(cls, module, mask_id=None, string_outputs=True):
        """Sets what the serving module needs beyond the model (fill-mask: the `[MASK]` id)."""

    @classmethod
    def ids_outputs(cls, module, inputs, by_length=False):
        """The served outputs of id `inputs` (traceable); `by_length`: a text request, whose rows
        may run in groups of similar length (`ServingModule.call_in_length_groups`)."""
        call = module.call_in_length_groups if by_length else module.call_model
        return cls.serving_outputs(call(inputs), module.task_config)

    @classmethod
    def serving_outputs(cls, outputs, task_config):
        """The model's outputs as served from ids (TF ops; runs in the serving graph and eagerly)."""
        return outputs

    @classmethod
    def tokenize(cls, module, texts):
        """`[batch]` strings -> int32 ragged `[batch, (pieces)]`, in the serving graph: the first `seq_length`
        pieces of each (what the packer keeps), so one long request costs about what `seq_length` pieces cost."""
        return module.tokenizer.tokenize(texts, max_pieces=module.seq_length)

    @classmethod
    def text_signatures(cls, module, task_config):
        """`{name: tf.function}`: raw text in, the task's answer out (`module`: export's ServingModule)."""
        return {}

    @classmethod
    def answer_from_ids(cls, module, inputs, outputs, task_config):
        """Extra outputs computed from ids alone (e.g. the top label), for formats whose graph takes ids."""
        return {}

    # ----- what the export checks compare with

    @classmethod
    def reference_outputs(cls, module, inputs, keras_model, tokens=True):
        """The served outputs of the Keras model (`keras_model`, run as `predict` runs it), as numpy.
        `tokens=False` leaves out string outputs only the SavedModel has."""
        import numpy as np  # pylint: disable=import-outside-toplevel

        outputs = cls.serving_outputs(keras_model(inputs), module.task_config)
        return {name: np.asarray(value) for name, value in outputs.items()}

    @classmethod
    def reference_pieces(cls, module, texts):
        """Eager tokenization of `texts` (the Python path a Keras user runs): ragged `[batch, (pieces)]`."""
        import tensorflow as tf  # pylint: disable=import-outside-toplevel

        return module.tokenizer.tokenize(tf.constant(list(texts)))

    @classmethod
    def sample_ids(cls, module, ids):
        """Random check ids (numpy `[batch, seq]` word ids) as this model needs them."""
        return ids
