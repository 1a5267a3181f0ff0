"""SentencePooling: the standard layer checks, and every mode against sentence-transformers' own Pooling."""

import numpy as np
import pytest

from keras_bert.layers import SentencePooling
from keras_bert.layers.sentence_pooling import POOLING_MODES, pooling_modes
from tests.layers.layer_checks import to_numpy


def _batch():
    rng = np.random.default_rng(0)
    tokens = rng.normal(size=(3, 6, 8)).astype("float32")
    mask = np.array([[1, 1, 1, 1, 1, 1], [1, 1, 1, 0, 0, 0], [1, 1, 0, 0, 0, 0]], "int32")
    return tokens, mask


def test_config_round_trip_and_symbolic_call():
    """The standard checks but the fit step (`check_layer`'s): the layer has no weights."""
    import keras

    layer = SentencePooling("cls,mean", normalize=True)
    assert SentencePooling.from_config(layer.get_config()).get_config() == layer.get_config()
    output = layer(keras.Input((None, 8)), keras.Input((None,), dtype="int32"))
    assert tuple(output.shape) == (None, 16)
    tokens, mask = _batch()
    assert to_numpy(layer(tokens, mask)).shape == (3, 16)


@pytest.mark.parametrize("modes", list(POOLING_MODES) + [["cls", "mean"], ["max", "mean_sqrt_len_tokens"]])
@pytest.mark.parametrize("normalize", [False, True])
def test_equals_sentence_transformers_pooling(modes, normalize):
    torch = pytest.importorskip("torch")
    from sentence_transformers.models import Normalize, Pooling

    tokens, mask = _batch()
    features = {"token_embeddings": torch.tensor(tokens), "attention_mask": torch.tensor(mask)}
    reference = Pooling(8, pooling_mode=modes if isinstance(modes, str) else tuple(modes))(features)
    if normalize:
        reference = Normalize()(reference)
    ours = to_numpy(SentencePooling(modes, normalize)(tokens, mask))
    np.testing.assert_allclose(ours, reference["sentence_embedding"].numpy(), atol=1e-6)


def test_bad_modes_are_refused_in_one_line():
    assert pooling_modes("cls, mean") == ("cls", "mean")
    with pytest.raises(ValueError, match=r"pooling='weightedmean' \(--pooling\): expected one or more of"):
        SentencePooling("weightedmean")
