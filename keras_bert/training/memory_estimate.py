"""check_batch_memory: refuses a batch that cannot fit in memory before TensorFlow tries to allocate it."""

import glob
import os
import sys


def training_bytes(config, batch_size, seq_length, predictions_per_seq=0, mixed_precision="off"):
    """Rough bytes one BERT training step holds: activations kept for the backward pass,
    the masked-LM logits, and weights + gradients + two Adam moments in float32.

    Activations follow Korthikanti et al. 2022 ("Reducing Activation Recomputation in
    Large Transformer Models", eq. 2): per layer `s*b*(34*h + 5*a*s)` bytes with 16-bit
    activations; float32 doubles it.
    """
    h, a, layers = config.hidden_size, config.num_heads, config.num_layers
    scale = 1 if mixed_precision in ("bf16", "fp16") else 2
    activations = layers * seq_length * batch_size * (34 * h + 5 * a * seq_length) * scale
    mlm_logits = 3 * 4 * batch_size * predictions_per_seq * config.vocab_size
    parameters = config.vocab_size * h + layers * 12 * h * h + config.max_position_embeddings * h
    return activations + mlm_logits + 16 * parameters


def available_bytes():
    """The host's available memory (Linux `MemAvailable`), or None where unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            return next((int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:")), None)
    except OSError:
        return None


def check_batch_memory(config, batch_size, seq_length, predictions_per_seq=0, mixed_precision="off"):
    """Raises ValueError naming --batch_size when a CPU training step clearly cannot fit in memory.

    Only where no GPU/TPU is visible (accelerator memory is not read here); the estimate
    (`training_bytes`) is rough, so only a batch beyond all of the available memory is refused.
    """
    available = available_bytes()
    if available is None or os.environ.get("TPU_NAME") or _accelerator():
        return
    needed = training_bytes(config, batch_size, seq_length, predictions_per_seq, mixed_precision)
    if needed > available:
        fits = max(1, int(batch_size * available / needed / 2))
        raise ValueError(
            f"--batch_size {batch_size} at --seq_length {seq_length} needs about "
            f"{needed / 2**30:.1f} GiB for one training step (estimate), but this machine has "
            f"{available / 2**30:.1f} GiB available; use --batch_size {fits} or less.")


def no_accelerator_node():
    """True on a Linux machine with no GPU device node (NVIDIA's /dev/nvidia<N>, ROCm's /dev/kfd, WSL's /dev/dxg)."""
    return sys.platform.startswith("linux") and not (glob.glob("/dev/nvidia[0-9]*") or os.path.exists("/dev/kfd")
                                                     or os.path.exists("/dev/dxg"))


def _accelerator():
    """Whether the backend sees a GPU (TPU: by TPU_NAME) - JAX's own count on JAX, where TensorFlow may be absent.
    A Linux machine with no GPU device node (NVIDIA's /dev/nvidia<N>, ROCm's /dev/kfd, WSL's /dev/dxg) has none
    to see: answered without loading a backend, so a batch too large is refused before TensorFlow loads (7 s)."""
    if no_accelerator_node():
        return False
    import keras  # pylint: disable=import-outside-toplevel

    if keras.backend.backend() == "jax":
        import jax  # pylint: disable=import-outside-toplevel

        return jax.default_backend() != "cpu"
    import tensorflow as tf  # pylint: disable=import-outside-toplevel

    return bool(tf.config.list_physical_devices("GPU"))
