"""relative_positions equals transformers' build_relative_position (log buckets and exact); RelativeEmbeddings
gives the shared table, through its LayerNorm where configured, and its config round trip."""

import numpy as np
import pytest

from keras_bert.models.deberta_v3.relative_embeddings import RelativeEmbeddings, relative_positions
from tests.layers.layer_checks import to_numpy


@pytest.mark.parametrize("buckets, max_distance", [(256, 512), (16, 64), (-1, 32)])
def test_relative_positions_equal_transformers(buckets, max_distance):
    torch = pytest.importorskip("torch")
    from transformers.models.deberta_v2.modeling_deberta_v2 import build_relative_position

    states = torch.zeros(1, 600, 4)
    theirs = build_relative_position(states, states, bucket_size=buckets, max_position=max_distance)[0].numpy()
    np.testing.assert_array_equal(to_numpy(relative_positions(600, 0, buckets, max_distance)), theirs)


def test_the_table_passes_its_layer_norm_where_configured():
    layer = RelativeEmbeddings(4, 8)
    table = to_numpy(layer(np.ones((2, 3, 8), "float32")))
    assert table.shape == (8, 8)
    np.testing.assert_allclose(table.mean(-1), 0, atol=1e-5)  # LayerNorm: gamma 1, beta 0
    plain = RelativeEmbeddings(4, 8, layer_norm=False)
    np.testing.assert_array_equal(to_numpy(plain(np.ones((1, 2, 8), "float32"))),
                                  to_numpy(plain.rel_embeddings.embeddings))
    assert RelativeEmbeddings.from_config(layer.get_config()).get_config() == layer.get_config()
