"""The ModernBERT encoder as a functional Keras model, with BertEncoder's inputs and outputs."""

import os
from collections.abc import Mapping

import keras

from keras_bert.config import read_json
from keras_bert.layers.modernbert_block import ModernBertBlock
from keras_bert.layers.modernbert_embeddings import ModernBertEmbeddings
from keras_bert.layers.modernbert_prediction_head import ModernBertPredictionHead
from keras_bert.layers.sentence_pooling import SentencePooling
from keras_bert.models.bert_encoder import EncoderState, encoder_inputs
from keras_bert.models.modernbert.modernbert_config import ModernBertConfig
from keras_bert.models.modernbert.modernbert_weights import encoder_variable_names, load_encoder_weights

def as_modernbert_config(config):
    """Accepts a ModernBertConfig or its dict."""
    if isinstance(config, ModernBertConfig):
        return config
    if isinstance(config, dict):
        return ModernBertConfig.from_dict(config)
    raise TypeError(f"Expected a ModernBertConfig or a dict, got {type(config).__name__}.")


@keras.saving.register_keras_serializable(package="keras_bert")
class ModernBertEncoder(EncoderState, keras.Model):
    """ModernBERT (`ModernBertModel`): embeddings + LayerNorm, pre-LN GeGLU blocks with rotary
    attention (global every `global_attn_every_n_layers`-th layer, a sliding window between), the
    final LayerNorm; and, as the family's pooler, Hugging Face's prediction `head` on the pooled vector.

    Inputs: dict of int32 `[batch, seq]` `input_word_ids`, `input_mask`, `input_type_ids` (accepted
    and ignored: ModernBERT has no token types), padding on the right. Outputs: dict with
    `sequence_output` `[b, s, h]` (= HF `last_hidden_state`), `pooled_output` `[b, h]` =
    `head(pool(sequence_output))` (pool: `classifier_pooling`, "cls" or masked "mean"; what
    `ModernBertForSequenceClassification` feeds its `classifier`) and `encoder_outputs` (each
    block's output before the final norm, = HF `hidden_states[1:]`), and `head_sequence_output` `[b, s, h]` =
    `head(sequence_output)` (what `ModernBertFor{TokenClassification,QuestionAnswering}` and the masked LM
    read per token; `TaskHead`s read it in place of `sequence_output`).
    With `packed=True` (rows holding several examples, `keras_bert.data.packing`: `pretrain --pack_sequences`)
    it also takes BertEncoder's `input_example_ids` (1..k per example, 0 on padding) and `input_position_ids`
    (restarting per example): every layer, global and local, attends within an example only and rotates by
    those positions, so each example's `sequence_output` is the one it has alone; `pooled_output` then pools
    the whole row (its pretrainer reads the masked LM only). The weights are the same either way.

    Args:
        config: a `ModernBertConfig` or its dict.
        dtype: optional dtype policy for every layer (e.g. "mixed_bfloat16").
        text_config: the model's text contract or None (kept as `.text_config`).
        packed: take the two packed-row inputs as well.

    Example:
        >>> encoder = ModernBertEncoder(ModernBertConfig(vocab_size=100, hidden_size=16, num_layers=2,
        ...                                              num_heads=2, intermediate_size=24))
        >>> ids = keras.ops.ones((2, 5), "int32")
        >>> out = encoder({"input_word_ids": ids, "input_mask": ids, "input_type_ids": ids * 0})
        >>> out["pooled_output"].shape
        (2, 16)
    """

    def __init__(self, config, dtype=None, name="modernbert_encoder", text_config=None, packed=False, **kwargs):
        config = as_modernbert_config(config)
        inputs = encoder_inputs(packed)  # + input_example_ids, input_position_ids where packed
        embeddings = ModernBertEmbeddings(
            config.vocab_size, config.hidden_size, norm_eps=config.norm_eps, norm_bias=config.norm_bias,
            dropout_rate=config.embedding_dropout, initializer_range=config.initializer_range,
            dtype=dtype, name="embeddings")
        blocks = [ModernBertBlock(
            config.hidden_size, config.num_heads, config.intermediate_size, hidden_act=config.hidden_act,
            half_window=config.half_window if kind == "local" else None,
            rope_theta=config.local_rope_theta if kind == "local" else config.global_rope_theta,
            norm_eps=config.norm_eps, norm_bias=config.norm_bias, attention_bias=config.attention_bias,
            mlp_bias=config.mlp_bias, attention_dropout=config.attention_dropout,
            mlp_dropout=config.mlp_dropout, initializer_range=config.initializer_range,
            attention_norm=index > 0, dtype=dtype, name=f"layers_{index}")
            for index, kind in enumerate(config.layer_types)]
        final_norm = keras.layers.LayerNormalization(epsilon=config.norm_eps, center=config.norm_bias,
                                                     dtype=dtype, name="final_norm")
        head = ModernBertPredictionHead(
            config.hidden_size, activation=config.classifier_activation, norm_eps=config.norm_eps,
            norm_bias=config.norm_bias, use_bias=config.classifier_bias,
            initializer_range=config.initializer_range, dtype=dtype, name="head")
        pooling = SentencePooling(config.classifier_pooling, name="pooling")
        x = embeddings(inputs["input_word_ids"])
        encoder_outputs = []
        for block in blocks:
            x = block(x, inputs["input_mask"], inputs.get("input_example_ids"), inputs.get("input_position_ids"))
            encoder_outputs.append(x)
        sequence_output = final_norm(x)
        pooled = pooling(sequence_output, inputs["input_mask"])
        if dtype is not None:  # the pooling runs in float32; the head in the policy's compute dtype
            pooled = keras.ops.cast(pooled, keras.dtype_policies.get(dtype).compute_dtype)
        outputs = {"sequence_output": sequence_output, "pooled_output": head(pooled),
                   "encoder_outputs": encoder_outputs,
                   "head_sequence_output": head(sequence_output)}  # what token/span heads read
        super().__init__(inputs=inputs, outputs=outputs, name=name, **kwargs)
        self.embeddings, self.blocks, self.final_norm, self.head = embeddings, blocks, final_norm, head
        self._keep(config, packed, dtype, text_config)

    def named_variables(self):
        """`(canonical_name, variable, transposed)` for every encoder weight; canonical names are Hugging
        Face's without the `model.` prefix (`embeddings.tok_embeddings.weight`, `head.dense.weight`);
        `transposed`: PyTorch stores the transpose of the Keras variable (dense kernels)."""
        layers = {"embeddings.tok_embeddings": self.embeddings.tok_embeddings,
                  "embeddings.norm": self.embeddings.norm, "final_norm": self.final_norm,
                  "head.dense": self.head.dense, "head.norm": self.head.norm}
        for index, block in enumerate(self.blocks):
            layers.update({f"layers.{index}.attn_norm": block.attn_norm, f"layers.{index}.attn.Wqkv": block.wqkv,
                           f"layers.{index}.attn.Wo": block.attn_wo, f"layers.{index}.mlp_norm": block.mlp_norm,
                           f"layers.{index}.mlp.Wi": block.wi, f"layers.{index}.mlp.Wo": block.mlp_wo})
        found = {}
        for prefix, layer in layers.items():
            for variable in (layer.weights if layer is not None else []):
                suffix = {"kernel": "weight", "gamma": "weight", "embeddings": "weight"}.get(
                    variable.name, "bias")  # kernel/gamma/embeddings; bias/beta
                found[f"{prefix}.{suffix}"] = (variable, variable.name == "kernel")
        names = encoder_variable_names(self.config)
        missing = sorted(set(names) ^ set(found))
        if missing:  # the layer graph and the name list disagree: a bug, not bad input
            raise AssertionError(f"ModernBertEncoder variables and encoder_variable_names differ: {missing}")
        return [(name, found[name][0], found[name][1]) for name in names]


class SafetensorsFile(Mapping):
    """A `.safetensors` file as a read-only name -> numpy mapping, each tensor read when asked for: loading
    holds one tensor beside the variables, not a copy of all (ModernBERT-base on TensorFlow: the process's
    peak resident memory 2,624 -> 2,227 MiB, tools/benchmark.py family)."""

    def __init__(self, path):
        from safetensors import safe_open

        self._file = safe_open(path, framework="np")
        self._names = tuple(self._file.keys())

    def __getitem__(self, name):
        if name not in self._names:
            raise KeyError(name)
        return self._file.get_tensor(name)

    def __iter__(self):
        return iter(self._names)

    def __len__(self):
        return len(self._names)


def encoder_from_huggingface(folder, dtype=None):
    """A `ModernBertEncoder` with the weights of a Hugging Face ModernBERT folder (`config.json` +
    `model.safetensors`, any `ModernBertModel` / `ModernBertFor*`); returns `(encoder, tensors)` so a
    caller can read the heads' weights (`decoder.bias`, `classifier.*`) from the same file.

    Example:
        >>> encoder, tensors = encoder_from_huggingface("modernbert-folder")  # doctest: +SKIP
    """
    config_path, weights_path = (os.path.join(folder, n) for n in ("config.json", "model.safetensors"))
    for path in (config_path, weights_path):
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{folder} has no {os.path.basename(path)}; a Hugging Face ModernBERT "
                                    "folder holds config.json and model.safetensors (save_pretrained writes both).")
    config = ModernBertConfig.from_huggingface_dict(read_json(config_path, "a ModernBERT config"),
                                                    source=config_path)
    encoder = ModernBertEncoder(config, dtype=dtype)
    tensors = SafetensorsFile(weights_path)
    load_encoder_weights(encoder, tensors, source=weights_path)
    return encoder, tensors
