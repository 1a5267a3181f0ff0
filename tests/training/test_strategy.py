"""Strategy selection: auto, named strategies, TF_CONFIG, their errors."""

import json

import pytest
import tensorflow as tf

from keras_bert.training import get_strategy, is_chief


def test_auto_on_one_cpu_is_the_default_strategy(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    monkeypatch.delenv("TPU_NAME", raising=False)
    strategy = get_strategy("auto")
    assert strategy.num_replicas_in_sync == 1
    assert is_chief(strategy)


def test_named_strategies():
    assert isinstance(get_strategy("cpu"), tf.distribute.OneDeviceStrategy)
    mirrored = get_strategy("mirrored")
    assert isinstance(mirrored, tf.distribute.MirroredStrategy)
    assert is_chief(mirrored)


def test_bad_strategy_requests_explain_themselves(monkeypatch):
    with pytest.raises(ValueError, match="Unknown strategy 'gpu'"):
        get_strategy("gpu")
    monkeypatch.delenv("TF_CONFIG", raising=False)
    with pytest.raises(ValueError, match="TF_CONFIG"):
        get_strategy("multi_worker")
    monkeypatch.setenv("TF_CONFIG", "{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        get_strategy("auto")


def test_auto_does_not_probe_for_a_tpu_where_none_can_be(monkeypatch):
    from keras_bert.training.strategy import _tpu_resolver

    monkeypatch.delenv("TPU_NAME", raising=False)
    monkeypatch.delenv("COLAB_TPU_ADDR", raising=False)
    assert _tpu_resolver(None) is None


def test_tf_config_with_two_workers_picks_multi_worker(monkeypatch):
    from keras_bert.training.strategy import _tf_config_workers

    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"worker": ["a:1", "b:2"]},
                                                "task": {"type": "worker", "index": 0}}))
    assert _tf_config_workers() == 2
