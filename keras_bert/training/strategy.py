"""Picks the strategy: on TensorFlow a tf.distribute one (TPU, several workers, several GPUs, one device),
on JAX a keras.distribution (`jax_strategy`)."""

import json
import os

import keras

from keras_bert.compat import in_multi_worker_mode
from keras_bert.choices import JAX_STRATEGIES, STRATEGIES, TF_STRATEGIES
from keras_bert.training.jax_strategy import JaxStrategy, jax_strategy


def _tf_config_workers():
    """Number of tasks TF_CONFIG describes (0 when TF_CONFIG is unset)."""
    raw = os.environ.get("TF_CONFIG")
    if not raw:
        return 0
    try:
        cluster = json.loads(raw).get("cluster", {})
    except json.JSONDecodeError as e:
        raise ValueError(f"TF_CONFIG is not valid JSON ({e}); expected e.g. "
                         '{"cluster": {"worker": ["host1:port", "host2:port"]}, '
                         '"task": {"type": "worker", "index": 0}}.') from None
    return sum(len(cluster.get(kind, [])) for kind in ("chief", "worker"))


def _tpu_resolver(tpu):
    """A connected TPUClusterResolver, or None when no TPU is reachable."""
    # Only look for a TPU where one can exist: probing elsewhere waits on the GCE
    # metadata server.
    if tpu is None and not (os.environ.get("TPU_NAME") or os.environ.get("COLAB_TPU_ADDR")
                            or os.path.exists("/dev/accel0") or os.path.exists("/dev/vfio/0")):
        return None
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    try:
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=tpu or "")
        tf.config.experimental_connect_to_cluster(resolver)
        tf.tpu.experimental.initialize_tpu_system(resolver)
        return resolver
    except (ValueError, tf.errors.OpError):
        return None


def _mirrored(devices):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    if devices:
        return tf.distribute.MirroredStrategy(devices=list(devices))
    gpus = tf.config.list_logical_devices("GPU")
    if gpus:
        return tf.distribute.MirroredStrategy([d.name for d in gpus])
    # No GPU: mirror over the logical CPU devices (several only if configured with
    # tf.config.set_logical_device_configuration, e.g. for testing).
    return tf.distribute.MirroredStrategy([d.name for d in tf.config.list_logical_devices("CPU")])


def get_strategy(name="auto", devices=None, tpu=None, model_parallel_size=None):
    """Returns a `tf.distribute.Strategy` (TensorFlow) or a `JaxStrategy` (JAX); build, compile and fit
    the model in its `scope()`.

    `"auto"` picks, on TensorFlow, in order: a TPU if a TPU resolver finds one; MultiWorkerMirrored
    when `TF_CONFIG` names several workers; Mirrored over several GPUs; else the
    default (one device) strategy. On JAX: `data_parallel` over every device when there are several,
    else one device. It prints one line saying what it picked.

    MultiWorkerMirroredStrategy must be created when the program starts, before
    other TensorFlow ops run.

    Args:
        name: "auto", "default" (one device: TF's default strategy, or JAX with no distribution);
            TensorFlow: "cpu" (OneDevice on the CPU), "mirrored" (all local GPUs, else all logical CPU
            devices), "multi_worker" (from `TF_CONFIG`) or "tpu"; JAX: "data_parallel" (a
            `keras.distribution.DataParallel` over every device) or "model_parallel" (`ModelParallel`
            sharding the kernels, `jax_strategy.LAYOUT_RULES`). Several JAX processes join through
            `keras.distribution.initialize` when `KERAS_DISTRIBUTION_NUM_PROCESSES` is over 1.
        devices: explicit device list for "mirrored" (TensorFlow names) or the JAX strategies (JAX devices).
        tpu: TPU name or address for "tpu"/"auto" (default: from the environment).
        model_parallel_size: devices on "model_parallel"'s model axis (default: one process's).

    Example:
        >>> strategy = get_strategy("auto")
        >>> with strategy.scope():
        ...     model = keras_bert.build_pretrainer("bert_tiny_uncased")
    """
    if name not in STRATEGIES:
        raise ValueError(f"Unknown strategy {name!r}; expected one of {STRATEGIES}.")
    backend = keras.backend.backend()
    if backend == "jax":
        if name in TF_STRATEGIES:
            raise ValueError(f"--strategy {name} is tf.distribute's (KERAS_BACKEND=tensorflow); on JAX use "
                             f"--strategy data_parallel (or model_parallel, auto), or set KERAS_BACKEND=tensorflow.")
        strategy = jax_strategy(name, devices, model_parallel_size)
        if name == "auto":
            print(f"Strategy (auto): {strategy}.")
        return strategy
    if name in JAX_STRATEGIES:
        raise ValueError(f"--strategy {name} is keras.distribution's (KERAS_BACKEND=jax); on {backend} use "
                         "--strategy mirrored (one host's devices), multi_worker (TF_CONFIG), tpu or auto, or "
                         "set KERAS_BACKEND=jax.")
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    if name == "auto":
        strategy = _auto_tf_strategy(devices, tpu)
        print(f"Strategy (auto): {type(strategy).__name__} over {strategy.num_replicas_in_sync} "
              "replica(s) (TensorFlow, tf.distribute).")
        return strategy
    if name == "default":
        return tf.distribute.get_strategy()
    if name == "cpu":
        return tf.distribute.OneDeviceStrategy("/cpu:0")
    if name == "mirrored":
        return _mirrored(devices)
    if name == "multi_worker":
        if _tf_config_workers() == 0:
            raise ValueError(
                "strategy 'multi_worker' needs TF_CONFIG describing the cluster, e.g. "
                '{"cluster": {"worker": ["10.0.0.1:2222", "10.0.0.2:2222"]}, '
                '"task": {"type": "worker", "index": 0}}; set it on every worker.')
        return tf.distribute.MultiWorkerMirroredStrategy()
    resolver = _tpu_resolver(tpu or os.environ.get("TPU_NAME", "local"))
    if resolver is None:
        raise ValueError(
            "strategy 'tpu' found no TPU: pass tpu=<name or grpc://address> or set TPU_NAME, "
            "or use strategy='auto' to fall back to GPUs/CPU.")
    return tf.distribute.TPUStrategy(resolver)


def _auto_tf_strategy(devices, tpu):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    resolver = _tpu_resolver(tpu)
    if resolver is not None:
        return tf.distribute.TPUStrategy(resolver)
    if _tf_config_workers() > 1:
        return tf.distribute.MultiWorkerMirroredStrategy()
    if len(tf.config.list_logical_devices("GPU")) > 1:
        return _mirrored(devices)
    return tf.distribute.get_strategy()


def is_chief(strategy):
    """True on the worker (TensorFlow) or process (JAX) that writes checkpoints, logs and the final model."""
    if isinstance(strategy, JaxStrategy):
        return strategy.is_chief
    resolver = getattr(strategy, "cluster_resolver", None)
    if resolver is None or not in_multi_worker_mode(strategy):
        return True
    task_type, task_id = resolver.task_type, resolver.task_id
    if task_type is None or task_type == "chief":
        return True
    has_chief = "chief" in resolver.cluster_spec().as_dict()
    return not has_chief and task_type == "worker" and int(task_id or 0) == 0
