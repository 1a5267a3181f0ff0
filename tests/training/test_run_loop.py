"""The run loop's parts: batch-size check, compile in scope, fit from a restored step, data sharding."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from keras_bert.training.run_loop import (
    check_batch_size, compile_model, fit_from, split_batches, tensorboard_callback)


def _model(strategy):
    with strategy.scope():
        model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    return compile_model(model, strategy, keras.optimizers.SGD(0.1), jit_compile="off", loss="mse")


def test_batch_size_must_split_into_replicas_and_micro_batches():
    strategy = tf.distribute.get_strategy()
    check_batch_size(32, strategy, gradient_accumulation_steps=4)
    with pytest.raises(ValueError, match=r"global_batch_size=30 cannot be split evenly across 1 replicas x "
                                         r"4 micro-batches; use a multiple of 4, e.g. 28"):
        check_batch_size(30, strategy, gradient_accumulation_steps=4)
    with pytest.raises(ValueError, match="gradient_accumulation_steps must be a positive integer, got 0"):
        check_batch_size(32, strategy, gradient_accumulation_steps=0)


def test_fit_from_a_restored_step_runs_only_the_steps_left(capsys):
    strategy = tf.distribute.get_strategy()
    model = _model(strategy)
    assert model.jit_compile is False
    model.optimizer.build(model.trainable_variables)
    model.optimizer.iterations.assign(4)  # as a restored checkpoint leaves it
    dataset = tf.data.Dataset.from_tensor_slices((np.ones((8, 2), "float32"), np.ones((8, 1), "float32")))
    history = fit_from(model, strategy, dataset.batch(2).repeat(), 4, 7, 3, verbose=0)
    assert "Resuming training from step 4 of 7 (epoch 2 of 3)." in capsys.readouterr().out
    assert int(model.optimizer.iterations.numpy()) == 7 and history.start_step == 4
    assert history.epoch == [1]  # epochs count on from step 4 // 3: one of the 3 steps left
    again = fit_from(model, strategy, dataset.batch(2).repeat(), 7, 7, 3, output_dir="run")
    assert "run holds a finished run (step 7 of 7); not training again." in capsys.readouterr().out
    assert again.epoch == [] and int(model.optimizer.iterations.numpy()) == 7


def test_split_batches_shards_by_data_and_tensorboard_writes_under_logs(tmp_path):
    dataset = split_batches(tf.data.Dataset.range(4))
    assert dataset.options().experimental_distribute.auto_shard_policy == \
        tf.data.experimental.AutoShardPolicy.DATA
    assert list(dataset.as_numpy_iterator()) == [0, 1, 2, 3]
    assert tensorboard_callback(str(tmp_path)).log_dir == str(tmp_path / "logs")


_SHORT_FITS = """
import sys
import keras
import tensorflow as tf
import keras_bert
from keras_bert.data.pretraining import pretraining_dataset
from keras_bert.training.run_loop import compile_model, fit_from

data = pretraining_dataset(sys.argv[2:], keras_bert.Tokenizer(sys.argv[1]), seq_length=32,
                           max_predictions_per_seq=5, batch_size=4, shuffle_buffer=1000)
data = data.map(lambda features, labels: (tf.cast(features["input_word_ids"], tf.float32) / 30522.0,
                                          tf.cast(labels["next_sentence_labels"], tf.float32)))
strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
with strategy.scope():
    model = keras.Sequential([keras.Input((32,)), keras.layers.Dense(1)])
model = compile_model(model, strategy, keras.optimizers.SGD(1e-6), jit_compile="off", loss="mse")
for fit in range(40):
    fit_from(model, strategy, data, fit * 2, fit * 2 + 2, 2, verbose=0, resumed=False)
print("steps", int(model.optimizer.iterations.numpy()))
"""


@pytest.mark.slow
def test_short_fits_on_a_busy_pipeline_under_a_strategy_never_crash(minilm_dir, shakespeare_files):
    """TF 2.21 crashes (SIGSEGV) when a strategy's iterator is dropped while its prefetch thread
    pulls: fit_from's data ends with its last step and Keras's throwaway first iterator is skipped.
    Without that, one run of these 40 fits in two crashed; with it, 0 in 160 fits (and 150 more).
    The pipeline reads, tokenizes and masks two plays behind a 1,000-example shuffle buffer, so each
    iterator's prefetch thread is still pulling when a fit ends (the default 10,000 refilled on every
    fit: 36 s alone, 22.6 s now). TensorFlow's thread pools run one thread each here: beside another
    TensorFlow process training (test_pretraining's tiny BERT) the 40 fits took 127 s with the default
    pools, 53 s with these, on the same ~25 CPU-seconds, and the training beside it was unchanged (95-97 s):
    the time was waiting between threads, not work (in the full suite: 88-296 s)."""
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    result = subprocess.run(
        [sys.executable, "-c", _SHORT_FITS, os.path.join(minilm_dir, "vocab.txt"), *shakespeare_files[:2]],
        capture_output=True, text=True, timeout=600,
        env=dict(os.environ, PYTHONPATH=root, PYTHONFAULTHANDLER="1", TF_CPP_MIN_LOG_LEVEL="2",
                 TF_NUM_INTEROP_THREADS="1", TF_NUM_INTRAOP_THREADS="1"))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "steps 80" in result.stdout
