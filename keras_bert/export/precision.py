"""The compute precision of a served model: float32, or bfloat16 matmuls on CPUs built for them."""

from keras_bert.choices import EXPORT_PRECISIONS, PRECISIONS

# How far a SavedModel may be from the Keras model it serves, in that model's own precision: float32
# kernels agree to ~1e-6; bfloat16 ones round each matmul to 8 mantissa bits, and oneDNN's fused
# kernels round in other places than the Keras graph (MiniLM-L6, seeded heads: up to 1.4e-2 on QA
# logits of magnitude ~1). The bfloat16 tolerance is relative to the outputs' largest magnitude.
TOLERANCE = {"fp32": 1e-5, "bf16": 3e-2}


def model_in_precision(model, precision):
    """`model` itself for "fp32"; for "bf16" the same model rebuilt under Keras' "mixed_bfloat16"
    policy (variables float32, matmuls bfloat16; the serving outputs are cast back to float32)."""
    if precision not in EXPORT_PRECISIONS:
        raise ValueError(f"precision must be one of {EXPORT_PRECISIONS}, got {precision!r}.")
    if precision == "fp32":
        return model
    from keras_bert.models.model_operations import with_dtype  # pylint: disable=import-outside-toplevel

    return with_dtype(model, PRECISIONS[precision])


def cpu_runs_bf16_natively(cpuinfo="/proc/cpuinfo"):
    """Whether this CPU has AVX512_BF16 or AMX-BF16 (oneDNN's native bfloat16 matmuls; without them
    bfloat16 is emulated and slower than float32); None where /proc/cpuinfo cannot be read."""
    try:
        with open(cpuinfo, encoding="utf-8") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return None
    return bool({"avx512_bf16", "amx_bf16"} & set(flags))
