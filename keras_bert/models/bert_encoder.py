"""The BERT encoder as a functional Keras model."""

import os
import shutil

import keras

from keras_bert.config import BertConfig
from keras_bert.layers.bert_embeddings import BertEmbeddings
from keras_bert.layers.pooler import Pooler
from keras_bert.layers.transformer_encoder_block import TransformerEncoderBlock


ENCODER_INPUTS = ("input_word_ids", "input_mask", "input_type_ids")
PACKED_INPUTS = ("input_example_ids", "input_position_ids")


def forward(embeddings, blocks, inputs, query_positions=None, project=None):
    """Every block's output for the id inputs (symbolic or concrete); with `query_positions`
    (int `[batch, q]`) the last block computes only those rows (`[batch, q, hidden]`). `project`: the
    Dense embedding_size -> hidden_size after the embeddings (ELECTRA's `embeddings_project`), or None."""
    x = embeddings(inputs["input_word_ids"], inputs["input_type_ids"], inputs.get("input_position_ids"))
    x = project(x) if project is not None else x  # (batch, seq, hidden)
    outputs = []
    for index, block in enumerate(blocks):
        last = index == len(blocks) - 1
        x = block(x, inputs["input_mask"], inputs.get("input_example_ids"),
                  query_positions=query_positions if last else None)
        outputs.append(x)
    return outputs


def dense_variables(prefix, layer):
    """Google's names of a Dense layer's kernel and bias: `(name, variable, False)` each."""
    return [(prefix + "/kernel", layer.kernel, False), (prefix + "/bias", layer.bias, False)]


def layer_norm_variables(prefix, layer):
    """Google's names of a LayerNorm's gamma and beta."""
    return [(prefix + "/gamma", layer.gamma, False), (prefix + "/beta", layer.beta, False)]


# The sub-layers of one transformer block, in Google's names; a Dense or a LayerNorm each.
BLOCK_PARTS = ("attention/self/query", "attention/self/key", "attention/self/value",
               "attention/output/dense", "attention/output/LayerNorm", "intermediate/dense",
               "output/dense", "output/LayerNorm")


def block_variables(prefix, sublayers):
    """(Google name, variable, False) for one block's sub-layers, given in `BLOCK_PARTS` order."""
    entries = []
    for part, layer in zip(BLOCK_PARTS, sublayers, strict=True):
        names = layer_norm_variables if part.endswith("LayerNorm") else dense_variables
        entries += names(f"{prefix}/{part}", layer)
    return entries


def encoder_inputs(packed=False):
    """The three int32 `[batch, seq]` inputs of the TF Hub BERT convention (+ packed rows')."""
    names = ENCODER_INPUTS + (PACKED_INPUTS if packed else ())
    return {name: keras.Input(shape=(None,), dtype="int32", name=name) for name in names}


def as_config(config):
    """Accepts a BertConfig, a preset name or a config dict."""
    if isinstance(config, BertConfig):
        return config
    if isinstance(config, str):
        return BertConfig.from_preset(config)
    if isinstance(config, dict):
        return BertConfig.from_dict(config)
    raise TypeError(f"Expected a BertConfig, a preset name or a dict, got {type(config).__name__}.")


class EncoderTextConfig:
    """Mixin of the models that hold a `BertEncoder` as `.encoder`: `text_config` is the encoder's
    (the contract is saved once, with the encoder)."""

    @property
    def text_config(self):
        """The encoder's text contract (`keras_bert.TextConfig`) or None."""
        return self.encoder.text_config

    @text_config.setter
    def text_config(self, value):
        self.encoder.text_config = value


class EncoderState:
    """Mixin of every family's encoder: its config, `packed`, dtype policy and text contract (`text_config`),
    kept beside the graph and saved with it (`get_config`; the contract's files as the `.keras` file's assets)."""

    def _keep(self, config, packed, dtype, text_config):
        self.config = config
        self.packed = bool(packed)
        self.layer_dtype = keras.dtype_policies.get(dtype).name if dtype is not None else None
        # A dict is a saved contract whose files arrive with the file's assets (load_assets).
        object.__setattr__(self, "_saved_text_config", text_config if isinstance(text_config, dict) else None)
        self.text_config = None if isinstance(text_config, dict) else text_config

    @property
    def text_config(self):
        """The text contract (`keras_bert.TextConfig`) or None."""
        return self._text_config

    @text_config.setter
    def text_config(self, value):
        object.__setattr__(self, "_text_config", value)  # a dataclass, not a Keras-tracked state

    def get_config(self):
        return {"config": self.config.to_dict(), "dtype": self.layer_dtype,
                "name": self.name, "trainable": self.trainable, "packed": self.packed,
                "text_config": self.text_config.to_dict() if self.text_config else None}

    def with_dtype(self, dtype):
        """This encoder rebuilt under the dtype policy `dtype` (e.g. "mixed_bfloat16"), holding its weights
        and text contract."""
        model = type(self)(self.config, dtype=dtype, name=self.name, packed=self.packed, text_config=self.text_config)
        model.set_weights(self.get_weights())
        return model

    def save_assets(self, dir_path):
        if self.text_config is not None:
            from keras_bert.text.tokenizer_kinds import contract_files  # imports no TensorFlow

            for name, path in contract_files(self.text_config):  # vocab.txt; vocab.json + merges.txt; ...
                shutil.copyfile(path, os.path.join(dir_path, name))

    def load_assets(self, dir_path):
        if self._saved_text_config is not None:
            from keras_bert.text.text_config import from_saved_assets  # imports no TensorFlow

            self.text_config = from_saved_assets(self._saved_text_config, dir_path, "the model file's text contract")


@keras.saving.register_keras_serializable(package="keras_bert")
class BertEncoder(EncoderState, keras.Model):
    """BERT: embeddings, `num_layers` transformer blocks and the tanh pooler.

    Inputs: dict of int32 `[batch, seq]` `input_word_ids`, `input_mask`,
    `input_type_ids`. Outputs: dict with `sequence_output` `[b, s, h]`,
    `pooled_output` `[b, h]` and `encoder_outputs` (one `[b, s, h]` per layer).
    With `packed=True` (rows holding several examples, `keras_bert.data.packing`) it also
    takes `input_example_ids` (1..k per example, 0 on padding; attention stays within an
    example) and `input_position_ids` (restarting per example); `pooled_output` then reads
    the row's first `[CLS]` only. The weights are the same either way.

    Args:
        config: a `BertConfig`, a preset name or a config dict.
        dtype: optional dtype policy for every layer (e.g. "mixed_bfloat16").
        packed: take the two packed-row inputs as well.
        text_config: the model's text contract (`keras_bert.TextConfig`: vocab, casing,
            normalization, special tokens, max length) or None. It is saved with the model:
            in `get_config()` and, for its vocab.txt, as the `.keras` file's asset; so any
            model holding this encoder carries it (`model.text_config`).

    Example:
        >>> encoder = BertEncoder(BertConfig(vocab_size=100, hidden_size=16, num_layers=1,
        ...                                  num_heads=2, intermediate_size=32))
        >>> ids = keras.ops.ones((2, 5), "int32")
        >>> out = encoder({"input_word_ids": ids, "input_mask": ids,
        ...                "input_type_ids": keras.ops.zeros_like(ids)})
        >>> out["pooled_output"].shape
        (2, 16)
    """

    def __init__(self, config, dtype=None, name="bert_encoder", packed=False, text_config=None, **kwargs):
        config = as_config(config)
        inputs = encoder_inputs(packed)
        embeddings = BertEmbeddings(  # embedding_width wide; `project` maps it to hidden_size where they differ
            vocab_size=config.vocab_size, hidden_size=config.embedding_width,
            max_position_embeddings=config.max_position_embeddings,
            type_vocab_size=config.type_vocab_size, dropout_rate=config.dropout_rate,
            initializer_range=config.initializer_range, layer_norm_eps=config.layer_norm_eps,
            position_offset=config.position_offset, dtype=dtype, name="embeddings")
        blocks = [TransformerEncoderBlock(
            hidden_size=config.hidden_size, num_heads=config.num_heads,
            intermediate_size=config.intermediate_size, hidden_act=config.hidden_act,
            dropout_rate=config.dropout_rate, attention_dropout_rate=config.attention_dropout_rate,
            initializer_range=config.initializer_range, layer_norm_eps=config.layer_norm_eps,
            dtype=dtype, name=f"transformer_layer_{index}") for index in range(config.num_layers)]
        pooler = Pooler(config.hidden_size, config.initializer_range, config.pooler_activation, dtype=dtype,
                        name="pooler")
        project = keras.layers.Dense(
            config.hidden_size, kernel_initializer=keras.initializers.TruncatedNormal(stddev=config.initializer_range),
            dtype=dtype, name="embeddings_project") if config.embedding_width != config.hidden_size else None
        encoder_outputs = forward(embeddings, blocks, inputs, project=project)
        outputs = {"sequence_output": encoder_outputs[-1], "pooled_output": pooler(encoder_outputs[-1]),
                   "encoder_outputs": encoder_outputs}
        super().__init__(inputs=inputs, outputs=outputs, name=name, **kwargs)
        self._blocks, self._pooler, self._project = blocks, pooler, project
        self.embeddings = embeddings
        self._keep(config, packed, dtype, text_config)

    def sequence_output_at(self, inputs, positions):
        """`sequence_output` at int `positions` `[batch, q]` only, `[batch, q, hidden]`, for a dict of the
        id inputs: the last layer computes just those rows (`TransformerEncoderBlock(query_positions=)`).
        Equal to gathering them from `self(inputs)["sequence_output"]`, to float rounding."""
        return forward(self.embeddings, self._blocks, inputs, query_positions=positions, project=self._project)[-1]

    def pooled_output_only(self, inputs):
        """`pooled_output` for a dict of the three id inputs (inference, unpacked rows), with the last
        layer computed for `[CLS]` only: what a head on the pooled output serves from (equal to
        `self(inputs)["pooled_output"]` to float rounding; ~1.15x faster on MiniLM)."""
        first_token = keras.ops.zeros((keras.ops.shape(inputs["input_word_ids"])[0], 1), "int32")
        return self._pooler(self.sequence_output_at(inputs, first_token))

    def named_variables(self):
        """`(canonical name, variable, transposed)` of the encoder's weights; canonical names are Google's
        TF1 names (`bert/embeddings/word_embeddings`, ...), which every checkpoint format maps to its own.
        `transposed` is True where that format stores the transpose of the Keras variable (never here)."""
        embeddings = self.embeddings
        entries = [
            ("bert/embeddings/word_embeddings", embeddings.word_embeddings.embeddings, False),
            ("bert/embeddings/token_type_embeddings", embeddings.token_type_embeddings.embeddings, False),
            ("bert/embeddings/position_embeddings", embeddings.position_embeddings.embeddings, False),
        ] + layer_norm_variables("bert/embeddings/LayerNorm", embeddings.layer_norm)
        if self._project is not None:  # Google ELECTRA's electra/embeddings_project, HF's embeddings_project
            entries += dense_variables("bert/embeddings_project", self._project)
        for index, block in enumerate(self._blocks):
            entries += block_variables(f"bert/encoder/layer_{index}", (
                block.query, block.key, block.value, block.attention_output, block.attention_layer_norm,
                block.intermediate, block.output_dense, block.output_layer_norm))
        return entries + dense_variables("bert/pooler/dense", self._pooler.dense)
