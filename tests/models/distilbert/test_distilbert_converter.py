"""models/distilbert/distilbert_converter.py: DistilBERT's one token type row, folded into the positions exactly."""

import numpy as np

from keras_bert.models.distilbert.distilbert_converter import DISTILBERT_CONVERTER as CONVERTER

from tests.models.tiny_bert import TINY

POSITIONS, TOKEN_TYPES = "bert/embeddings/position_embeddings", "bert/embeddings/token_type_embeddings"


def test_the_token_type_row_folds_into_the_positions_and_reads_back_as_zero():
    rng = np.random.default_rng(0)
    weights = {POSITIONS: rng.normal(size=(4, 16)), TOKEN_TYPES: rng.normal(size=(1, 16))}
    written = CONVERTER.write_weights(weights, TINY)
    np.testing.assert_allclose(written[POSITIONS], weights[POSITIONS] + weights[TOKEN_TYPES][0])
    assert CONVERTER.hf_name(TOKEN_TYPES) is None  # DistilBERT's files have no token types
    read = CONVERTER.read_weights({POSITIONS: written[POSITIONS]}, TINY)
    assert read[TOKEN_TYPES].shape == (1, 16) and not read[TOKEN_TYPES].any()
    raw = {"dim": 32, "n_layers": 2, "n_heads": 4, "hidden_dim": 37, "activation": "gelu", "vocab_size": 99}
    config = CONVERTER.read_config(raw, "config.json")
    assert (config.hidden_size, config.intermediate_size, config.type_vocab_size, config.pooler_activation) == (
        32, 37, 1, "relu")
    assert CONVERTER.write_config(config)["dim"] == 32
