"""The batch memory estimate: Korthikanti et al.'s activation formula, and the refusal it backs."""

import pytest
import tensorflow as tf

from keras_bert import PRESETS
from keras_bert.training.memory_estimate import available_bytes, check_batch_memory, training_bytes

BASE = PRESETS["bert_base_uncased"]


def test_training_bytes_by_hand():
    # Activations: 12 layers * s=128 * b=32 * (34*768 + 5*12*128) bytes, doubled in float32.
    activations = 12 * 128 * 32 * (34 * 768 + 5 * 12 * 128)
    parameters = 30522 * 768 + 12 * 12 * 768 ** 2 + 512 * 768
    mlm_logits = 3 * 4 * 32 * 20 * 30522
    assert training_bytes(BASE, 32, 128, 20, mixed_precision="bf16") == activations + mlm_logits + 16 * parameters
    assert training_bytes(BASE, 32, 128, 20) == 2 * activations + mlm_logits + 16 * parameters


@pytest.mark.skipif(bool(tf.config.list_physical_devices("GPU")), reason="checks host memory only without a GPU")
def test_a_batch_beyond_the_host_memory_is_refused_with_a_smaller_one():
    assert available_bytes() > 0  # Linux: /proc/meminfo
    check_batch_memory(BASE, 8, 128)
    with pytest.raises(ValueError, match=r"--batch_size 1000000 at --seq_length 512 needs about .* GiB .*"
                                         r"use --batch_size \d+ or less"):
        check_batch_memory(BASE, 1_000_000, 512)
