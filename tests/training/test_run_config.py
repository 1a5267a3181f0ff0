"""training/run_config.py: RunConfig's integers are integers (2.5 was truncated to 2), in range; names are known."""

import pytest

from tests.reliability.conftest import assert_api_error


@pytest.mark.parametrize("field, value, fragment", [
    ("gradient_accumulation_steps", 2.5, "gradient_accumulation_steps=2.5 (--gradient_accumulation_steps) must be "
                                         "an integer, not float"),
    ("gradient_accumulation_steps", "2", "not str"),
    ("keep_checkpoints", True, "keep_checkpoints=True (--keep_checkpoints) must be an integer, not bool"),
    ("checkpoint_every_steps", float("nan"), "checkpoint_every_steps=nan"),
    ("checkpoint_every_steps", -1, "checkpoint_every_steps=-1 (--checkpoint_every_steps) must be at least 0"),
    ("checkpoint_every_epochs", 0, "must be at least 1"),
    ("seed", -1, "seed=-1 (--seed) must be at least 0"),
    ("seed", 2**40, "at most 2**32 - 1"),
    ("verbose", 7, "verbose=7 must be 0"),
    ("strategy", "gpu", "strategy='gpu' (--strategy) is not one of"),
    ("output_dir", 3, "output_dir=3 (--output_dir) must be a folder path"),
])
def test_run_config_refuses_bad_fields(field, value, fragment):
    from keras_bert.training import RunConfig

    assert_api_error(lambda: RunConfig(**{field: value}), ValueError, fragment)


def test_run_config_takes_numpy_integers_and_paths(tmp_path):
    import numpy as np

    from keras_bert.training import RunConfig

    run = RunConfig(output_dir=tmp_path, gradient_accumulation_steps=np.int64(2), seed=np.int32(3))
    assert run.gradient_accumulation_steps == 2 and run.seed == 3


def test_replace_checks_the_copy_and_the_batch_must_split_into_micro_batches():
    from keras_bert.training import RunConfig

    run = RunConfig(gradient_accumulation_steps=4)
    with pytest.raises(ValueError, match="mixed_precision='fp8' \\(--mixed_precision\\) is not one of"):
        run.replace(mixed_precision="fp8")
    assert run.replace(seed=5).seed == 5 and run.seed == 0  # frozen: a copy
    run.check_batch_size(8)
    with pytest.raises(ValueError, match="batch_size=6 cannot be split into gradient_accumulation_steps=4"):
        run.check_batch_size(6)
