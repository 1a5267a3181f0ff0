"""The run loop's strategy on JAX: a `keras.distribution` (data or model parallel) or one device."""

import contextlib
import os

import keras

# keras.distribution.initialize() reads these (one process per host, or per GPU): set them on every process.
PROCESS_ENV = ("KERAS_DISTRIBUTION_JOB_ADDRESSES", "KERAS_DISTRIBUTION_NUM_PROCESSES",
               "KERAS_DISTRIBUTION_PROCESS_ID")
MODEL_AXIS = "model"
BATCH_AXIS = "batch"
# model_parallel's layout of every family's kernels (Megatron's split), by variable path (`model.variables`'
# `.path`): attention's query/key/value and the first FFN matmul split their output features across the
# model axis, attention's output and the second FFN matmul their input features (one all-reduce each),
# the word embeddings their hidden features. BERT, RoBERTa, XLM-R, ELECTRA and DistilBERT share BERT's
# names; ModernBERT's are Wqkv, attn_Wo, Wi and mlp_Wo. Everything else (LayerNorms, heads) is replicated.
LAYOUT_RULES = (
    (r".*/(query|key|value|intermediate|Wqkv|Wi)/kernel", (None, MODEL_AXIS)),
    (r".*/(query|key|value|intermediate)/bias", (MODEL_AXIS,)),
    (r".*/(attention_output|output|attn_Wo|mlp_Wo)/kernel", (MODEL_AXIS, None)),
    (r".*/(word_embeddings|tok_embeddings)/embeddings", (None, MODEL_AXIS)),
)


class JaxStrategy:
    """A `keras.distribution.Distribution` (or None: one device) with the members the run loop asks a
    `tf.distribute.Strategy` for: `scope()`, `num_replicas_in_sync`, `is_chief`.

    Build with `get_strategy("data_parallel" | "model_parallel" | "default" | "auto")` on the JAX backend.

    Args:
        name: the strategy's name ("default", "data_parallel", "model_parallel").
        distribution: the `keras.distribution.Distribution`, or None for one device.

    Example:
        >>> strategy = get_strategy("data_parallel")  # KERAS_BACKEND=jax
        >>> with strategy.scope():
        ...     model = keras_bert.build_pretrainer("bert_tiny_uncased")
    """

    def __init__(self, name, distribution=None):
        self.name = name
        self.distribution = distribution

    @property
    def num_replicas_in_sync(self):
        """How many ways each global batch is split (the mesh's batch axis)."""
        if self.distribution is None:
            return 1
        mesh = self.distribution.device_mesh
        return mesh.shape[list(mesh.axis_names).index(self.distribution.batch_dim_name)]

    @property
    def is_chief(self):
        import jax  # pylint: disable=import-outside-toplevel

        return jax.process_index() == 0

    def scope(self):
        return self.distribution.scope() if self.distribution is not None else contextlib.nullcontext()

    def __str__(self):
        if self.distribution is None:
            return "default (one device, JAX)"
        mesh = self.distribution.device_mesh
        axes = " x ".join(f"{n} {s}" for n, s in zip(mesh.axis_names, mesh.shape))
        return f"{self.name} over {mesh.devices.size} devices ({axes}; JAX, keras.distribution)"


def jax_strategy(name, devices=None, model_parallel_size=None):
    """The `JaxStrategy` named `name` ("auto", "default", "data_parallel" or "model_parallel").

    Several processes (hosts) join first when `KERAS_DISTRIBUTION_NUM_PROCESSES` is over 1
    (`keras.distribution.initialize`, `PROCESS_ENV`). "auto": data parallel when there are several
    devices, else one device. "model_parallel": a (batch, model) mesh, `model_parallel_size` devices
    (default: those of one process) on the model axis; `LAYOUT_RULES` shard the kernels.
    """
    if int(os.environ.get("KERAS_DISTRIBUTION_NUM_PROCESSES", "1") or 1) > 1:
        _initialize_processes()
    devices = list(devices or keras.distribution.list_devices())
    if name == "auto":
        name = "data_parallel" if len(devices) > 1 else "default"
    if name == "default":
        return JaxStrategy(name)
    if name == "data_parallel":
        return JaxStrategy(name, keras.distribution.DataParallel(devices=devices))
    import jax  # pylint: disable=import-outside-toplevel

    size = int(model_parallel_size or len(devices) // jax.process_count())
    if size < 1 or len(devices) % size:
        raise ValueError(f"model_parallel_size={size} does not divide the {len(devices)} devices; "
                         "pass a divisor of the device count.")
    mesh = keras.distribution.DeviceMesh((len(devices) // size, size), (BATCH_AXIS, MODEL_AXIS), devices)
    layout_map = keras.distribution.LayoutMap(mesh)
    for pattern, axes in LAYOUT_RULES:
        layout_map[pattern] = axes
    return JaxStrategy(name, _DivisibleModelParallel(layout_map=layout_map, batch_dim_name=BATCH_AXIS))


def _initialize_processes():
    """`keras.distribution.initialize()` once, from `PROCESS_ENV`; a second call is a no-op."""
    import jax  # pylint: disable=import-outside-toplevel

    if jax.distributed.is_initialized():
        return
    missing = [n for n in PROCESS_ENV if not os.environ.get(n)]
    if missing:
        raise ValueError(f"KERAS_DISTRIBUTION_NUM_PROCESSES is over 1 but {', '.join(missing)} is not set; set "
                         "all of KERAS_DISTRIBUTION_JOB_ADDRESSES (the coordinator's host:port), "
                         "KERAS_DISTRIBUTION_NUM_PROCESSES and KERAS_DISTRIBUTION_PROCESS_ID (0..N-1) on "
                         "every process.")
    keras.distribution.initialize()


class _DivisibleModelParallel(keras.distribution.ModelParallel):
    """ModelParallel whose layout rules shard a dimension only where the model axis divides it
    (JAX refuses uneven shards: BERT's 30,522-row vocabulary over 4 devices); else replicated."""

    def get_variable_layout(self, variable):
        layout = super().get_variable_layout(variable)
        mesh = self.device_mesh
        sizes = dict(zip(mesh.axis_names, mesh.shape))
        if any(axis is not None and dim % sizes[axis] for axis, dim in zip(layout.axes, variable.shape)):
            return keras.distribution.TensorLayout([None] * len(variable.shape), mesh)
        return layout
