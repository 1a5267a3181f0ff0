"""TaskHead: the base of the head layers a `BertTaskModel` puts on its encoder (one class per head shape)."""

import keras

from keras_bert.layers.bert_layer import BertLayer
from keras_bert.models.bert_encoder import encoder_inputs


class TaskHead(BertLayer):
    """A head shape: dropout + one dense layer on an encoder output, knowing its names elsewhere.

    A head is a Keras layer that carries its behaviour, so nothing below `keras_bert.tasks` needs a
    task's name: it wires itself onto an encoder (`connect`), serializes its own config (outputs,
    dropout, options), rebuilds under another dtype policy from that config, and declares, as class
    data, the names its weights have in Google's TF1 checkpoints and the Hugging Face architecture
    that holds the same layers. The task's name stays data on the model (`BertTaskModel.task`).

    Args:
        num_outputs: width of the dense layer (classes, labels, 1 for a score).
        dropout_rate: dropout before the dense layer; None: none.
        initializer_range: stddev of the dense kernel's truncated-normal initializer.

    Example:
        >>> head = SequenceHead(3, dropout_rate=0.1)
        >>> head(keras.ops.ones((2, 16))).shape
        (2, 3)
    """

    # Google's names: PREFIX + "output_weights" ([outputs, hidden], transposed) and + "output_bias",
    # as run_classifier.py (prefix "") and run_squad.py ("cls/squad/") name them.
    GOOGLE_PREFIX = ""
    ENCODER_OUTPUT = "pooled_output"  # what the head reads
    HF_ARCHITECTURE = None  # the transformers class holding the same layers (None: none does)
    HF_PREFIX = "classifier"  # its Hugging Face weight names: PREFIX.weight ([outputs, hidden]), PREFIX.bias
    HF_TASK = None  # the task a folder transformers wrote with this head loads as (None: keras_bert.tasks names it)
    problem_type = None  # Hugging Face's config.json problem_type (SequenceHead's own; None: none written)
    HF_LABELS = True  # config.json's id2label names the outputs
    MODEL_NAME = "bert_task_model"  # the model's name when built from a checkpoint that names none
    NAME = "head"  # the layer's name

    def __init__(self, num_outputs, dropout_rate=None, initializer_range=0.02, **kwargs):
        kwargs.setdefault("name", self.NAME)
        super().__init__(**kwargs)
        if isinstance(num_outputs, bool) or not float(num_outputs).is_integer() or num_outputs < 1:
            raise ValueError(f"{self.name}: the number of classes/labels must be a positive integer, "
                             f"got {num_outputs!r}.")
        self.store_arguments(num_outputs=int(num_outputs), dropout_rate=dropout_rate,
                             initializer_range=initializer_range)
        self.dropout = keras.layers.Dropout(dropout_rate, name="dropout") if dropout_rate is not None else None
        self.dense = keras.layers.Dense(
            self.num_outputs, kernel_initializer=keras.initializers.TruncatedNormal(stddev=initializer_range),
            dtype=self.dtype_policy, name="dense")

    def build(self, features_shape):
        self.dense.build(features_shape)
        self.built = True

    def call(self, features, training=None):
        if self.dropout is not None:
            features = self.dropout(features, training=training)
        return self.dense(features)

    def compute_output_shape(self, features_shape):
        return tuple(features_shape[:-1]) + (self.num_outputs,)

    def connect(self, encoder):
        """`(inputs, outputs)` of the functional model of this head on `encoder`. The head reads the family's
        per-token head input where its encoder gives one (`head_sequence_output`: ModernBERT's prediction head
        on every token), else `ENCODER_OUTPUT`."""
        inputs = encoder_inputs()
        outputs = encoder(inputs)
        return inputs, self(outputs.get("head_" + self.ENCODER_OUTPUT, outputs[self.ENCODER_OUTPUT]))

    def row_model(self, model):
        """`model` (this head's `BertTaskModel`) as called on `[rows, seq]` ids: the model itself,
        except for a head whose inputs group rows (multiple choice: one score per row)."""
        return model

    @property
    def reads_pooler(self):
        """Whether the head reads the pooler (a head that does not leaves it out of HF folders)."""
        return self.ENCODER_OUTPUT == "pooled_output"

    @property
    def pooled_only(self):
        """Whether the model is `head(encoder(ids)["pooled_output"])` (served from `[CLS]` alone)."""
        return self.reads_pooler and type(self).connect is TaskHead.connect

    def google_variables(self):
        """(Google name, Keras variable, transposed) of the head's weights."""
        return [(self.GOOGLE_PREFIX + "output_weights", self.dense.kernel, True),
                (self.GOOGLE_PREFIX + "output_bias", self.dense.bias, False)]

    def embedding_options(self):
        """A sentence embedder's pooling options (`build_embedder`'s), else None."""
        return None

    @classmethod
    def from_weights(cls, weights, dropout_rate=None, initializer_range=0.02, dtype=None, **options):
        """The head sized from its Google-named `weights` (a checkpoint's), fresh weights; `options`: its own
        constructor options (`hf_options`)."""
        return cls(weights[cls.GOOGLE_PREFIX + "output_bias"].shape[0], dropout_rate, initializer_range,
                   dtype=dtype, **options)

    @classmethod
    def hf_options(cls, hf_config):
        """The head's own constructor options a Hugging Face config.json gives (here: none)."""
        return {}

    @classmethod
    def hf_task(cls, hf_config, config_file):
        """(task, whether id2label names the outputs) of a folder transformers wrote with this head."""
        return cls.HF_TASK, cls.HF_LABELS

    @property
    def carries(self):
        """Whether a Hugging Face folder holds this head (`HF_ARCHITECTURE`), its task's name saved beside it."""
        return self.HF_ARCHITECTURE is not None
