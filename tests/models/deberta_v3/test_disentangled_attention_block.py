"""DisentangledAttentionBlock: config round trip; its own position projections where keys are not shared, none
without relative attention; real tokens' outputs unchanged by more padding; one training step changes it."""

import keras
import numpy as np

from keras_bert.models.deberta_v3.disentangled_attention_block import DisentangledAttentionBlock
from tests.layers.layer_checks import to_numpy

X = np.random.default_rng(0).normal(size=(2, 6, 8)).astype("float32")
MASK = np.array([[1] * 6, [1] * 4 + [0] * 2], "int32")
TABLE = np.random.default_rng(1).normal(size=(8, 8)).astype("float32")


def block(**options):
    return DisentangledAttentionBlock(8, 2, 16, span=4, position_buckets=4, max_distance=16, **options)


def test_config_round_trip_projections_and_padding_invariance():
    shared = block(dropout_rate=0.0, attention_dropout_rate=0.0)
    assert DisentangledAttentionBlock.from_config(shared.get_config()).get_config() == shared.get_config()
    out = to_numpy(shared(X, MASK, TABLE))
    more = to_numpy(shared(np.pad(X, ((0, 0), (0, 3), (0, 0))), np.pad(MASK, ((0, 0), (0, 3))), TABLE))
    np.testing.assert_allclose(more[1, :4], out[1, :4], atol=1e-5)
    own = block(share_att_key=False)
    own(X, MASK, TABLE)
    assert own.pos_key_proj is not None and own.pos_query_proj is not None and len(own.weights) == len(
        shared.weights) + 4
    content = block(relative_attention=False)
    assert content.pos_att_type == [] and content.scale == np.sqrt(4)
    np.testing.assert_allclose(to_numpy(content(X, MASK, None)), to_numpy(content(X, MASK, TABLE * 0)), atol=1e-6)


def test_one_training_step_changes_the_block():
    layer = block()
    inputs = [keras.Input((6, 8)), keras.Input((6,), dtype="int32")]
    model = keras.Model(inputs, layer(inputs[0], inputs[1], keras.ops.convert_to_tensor(TABLE)))
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    before = [to_numpy(w) for w in model.trainable_weights]
    history = model.fit([X, MASK], X, epochs=1, batch_size=2, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    assert any(not np.allclose(a, to_numpy(b)) for a, b in zip(before, model.trainable_weights))
