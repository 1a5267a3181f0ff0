"""Mixed precision policies, the XLA switch, and the decorator that restores the dtype policy."""

import keras
import pytest

from keras_bert.training import resolve_jit_compile, set_mixed_precision
from keras_bert.training.precision import restores_dtype_policy


def test_jit_compile_modes():
    assert resolve_jit_compile("on") is True and resolve_jit_compile("off") is False
    assert resolve_jit_compile("auto") is True  # one device: XLA, CPU included
    # bfloat16 on a CPU (this machine has no GPU): oneDNN's bfloat16 matmuls, not XLA's dots.
    assert resolve_jit_compile("auto", compute_dtype="bfloat16") is False
    assert resolve_jit_compile("auto", compute_dtype="float16") is True
    assert resolve_jit_compile("on", compute_dtype="bfloat16") is True
    try:
        set_mixed_precision("bf16")
        assert resolve_jit_compile("auto") is False  # the global policy's compute dtype
    finally:
        set_mixed_precision("off")
    with pytest.raises(ValueError, match="jit_compile"):
        resolve_jit_compile("maybe")


def test_mixed_precision_policies():
    try:
        assert set_mixed_precision("bf16") == "mixed_bfloat16"
        assert keras.config.dtype_policy().name == "mixed_bfloat16"
        assert set_mixed_precision("fp16") == "mixed_float16"
        with pytest.raises(ValueError, match="mixed_precision"):
            set_mixed_precision("int8")
    finally:
        set_mixed_precision("off")
    assert keras.config.dtype_policy().name == "float32"


def test_restores_dtype_policy_after_return_and_raise():
    @restores_dtype_policy
    def build(fail):
        set_mixed_precision("bf16")
        if fail:
            raise RuntimeError("boom")
        return keras.config.dtype_policy().name

    assert build(False) == "mixed_bfloat16"
    assert keras.config.dtype_policy().name == "float32"
    with pytest.raises(RuntimeError):
        build(True)
    assert keras.config.dtype_policy().name == "float32"
