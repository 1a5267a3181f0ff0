"""The DeBERTa-v3 encoder as a functional Keras model, with BertEncoder's inputs and outputs."""

import keras

from keras_bert.layers.pooler import Pooler
from keras_bert.models.bert_encoder import EncoderState, dense_variables, encoder_inputs, layer_norm_variables
from keras_bert.models.deberta_v3.deberta_v3_config import DebertaV3Config
from keras_bert.models.deberta_v3.deberta_v3_embeddings import DebertaV3Embeddings
from keras_bert.models.deberta_v3.disentangled_attention_block import DisentangledAttentionBlock
from keras_bert.models.deberta_v3.relative_embeddings import RelativeEmbeddings

# One block's sub-layers: (its attribute, its canonical (Google-style) name, which BERT's rule maps to HF's
# `encoder.layer.{i}.<name with dots>`).
BLOCK_PARTS = (("query_proj", "attention/self/query_proj"), ("key_proj", "attention/self/key_proj"),
               ("value_proj", "attention/self/value_proj"), ("pos_key_proj", "attention/self/pos_key_proj"),
               ("pos_query_proj", "attention/self/pos_query_proj"), ("attention_output", "attention/output/dense"),
               ("attention_layer_norm", "attention/output/LayerNorm"), ("intermediate", "intermediate/dense"),
               ("output_dense", "output/dense"), ("output_layer_norm", "output/LayerNorm"))


@keras.saving.register_keras_serializable(package="keras_bert")
class DebertaV3Encoder(EncoderState, keras.Model):
    """DeBERTa-v3 (`DebertaV2Model`): embeddings + LayerNorm (zero on padding), `num_layers` disentangled
    attention blocks sharing one table of relative position embeddings (through its LayerNorm), and, as
    its pooler, `ContextPooler` (a dense layer and `pooler_activation` on the first token), which the
    sequence and multiple-choice heads read.

    Inputs: dict of int32 `[batch, seq]` `input_word_ids`, `input_mask`, `input_type_ids` (read only where
    `type_vocab_size` > 0), padding on the right. Outputs: dict with `sequence_output` `[b, s, h]` (= HF
    `last_hidden_state`), `pooled_output` `[b, h]` and `encoder_outputs` (= HF `hidden_states[1:]`).

    Args:
        config: a `DebertaV3Config` or its dict.
        dtype: optional dtype policy for every layer.
        text_config: the model's text contract or None (kept as `.text_config`).
        packed: must be False (packed rows are not built for DeBERTa).

    Example:
        >>> encoder = DebertaV3Encoder(DebertaV3Config(vocab_size=100, hidden_size=16, num_layers=2, num_heads=2,
        ...                                            intermediate_size=32, position_buckets=8))
        >>> ids = keras.ops.ones((2, 5), "int32")
        >>> encoder({"input_word_ids": ids, "input_mask": ids, "input_type_ids": ids * 0})["pooled_output"].shape
        (2, 16)
    """

    def __init__(self, config, dtype=None, name="deberta_v3_encoder", text_config=None, packed=False, **kwargs):
        config = DebertaV3Config.from_dict(config) if isinstance(config, dict) else config  # a saved one
        if packed:
            raise ValueError("DebertaV3Encoder does not take packed rows; pretrain DeBERTa without "
                             "--pack_sequences.")
        inputs = encoder_inputs()
        embeddings = DebertaV3Embeddings(
            config.vocab_size, config.hidden_size, max_position_embeddings=config.max_position_embeddings,
            type_vocab_size=config.type_vocab_size, position_biased_input=config.position_biased_input,
            dropout_rate=config.dropout_rate, initializer_range=config.initializer_range,
            layer_norm_eps=config.layer_norm_eps, dtype=dtype, name="embeddings")
        relative = RelativeEmbeddings(
            config.relative_span, config.hidden_size, layer_norm=config.norm_rel_ebd == "layer_norm",
            layer_norm_eps=config.layer_norm_eps, initializer_range=config.initializer_range, dtype=dtype,
            name="relative_embeddings") if config.relative_attention else None
        blocks = [DisentangledAttentionBlock(
            config.hidden_size, config.num_heads, config.intermediate_size, hidden_act=config.hidden_act,
            span=config.relative_span, position_buckets=config.position_buckets, max_distance=config.max_distance,
            pos_att_type=config.pos_att_type, share_att_key=config.share_att_key,
            relative_attention=config.relative_attention, dropout_rate=config.dropout_rate,
            attention_dropout_rate=config.attention_dropout_rate, initializer_range=config.initializer_range,
            layer_norm_eps=config.layer_norm_eps, dtype=dtype, name=f"layer_{index}")
            for index in range(config.num_layers)]
        pooler = Pooler(config.hidden_size, config.initializer_range, config.pooler_activation, dtype=dtype,
                        name="pooler")
        x = embeddings(inputs["input_word_ids"], inputs["input_mask"], inputs["input_type_ids"])
        table = relative(x) if relative is not None else None
        encoder_outputs = []
        for block in blocks:
            x = block(x, inputs["input_mask"], table)
            encoder_outputs.append(x)
        outputs = {"sequence_output": x, "pooled_output": pooler(x), "encoder_outputs": encoder_outputs}
        super().__init__(inputs=inputs, outputs=outputs, name=name, **kwargs)
        self.embeddings, self.relative_embeddings, self.blocks, self.pooler = embeddings, relative, blocks, pooler
        self._keep(config, False, dtype, text_config)

    def named_variables(self):
        """`(canonical name, variable, False)` for every weight: Google-style names, which BERT's rule maps
        onto HF's (`bert/encoder/layer_0/attention/self/query_proj/kernel` is `deberta.encoder.layer.0.
        attention.self.query_proj.weight`, transposed; `bert/encoder/rel_embeddings` its
        `encoder.rel_embeddings.weight`; `bert/pooler/dense` the heads' `pooler.dense`)."""
        embeddings = self.embeddings
        entries = [("bert/embeddings/word_embeddings", embeddings.word_embeddings.embeddings, False)]
        for table in ("position_embeddings", "token_type_embeddings"):
            if getattr(embeddings, table) is not None:
                entries.append((f"bert/embeddings/{table}", getattr(embeddings, table).embeddings, False))
        entries += layer_norm_variables("bert/embeddings/LayerNorm", embeddings.layer_norm)
        if self.relative_embeddings is not None:
            entries.append(("bert/encoder/rel_embeddings", self.relative_embeddings.rel_embeddings.embeddings,
                            False))
            if self.relative_embeddings.norm is not None:
                entries += layer_norm_variables("bert/encoder/LayerNorm", self.relative_embeddings.norm)
        for index, block in enumerate(self.blocks):
            for attribute, part in BLOCK_PARTS:
                layer = getattr(block, attribute)
                if layer is not None:
                    names = layer_norm_variables if part.endswith("LayerNorm") else dense_variables
                    entries += names(f"bert/encoder/layer_{index}/{part}", layer)
        return entries + dense_variables("bert/pooler/dense", self.pooler.dense)
