"""choices.py: the named choices import nothing, and each alias or precision names a real choice."""

import subprocess
import sys

import keras

from keras_bert import choices


def test_the_choices_file_imports_nothing():
    # Run as a plain file (keras_bert/__init__.py itself loads TensorFlow): a tool's --help lists them cheaply.
    code = ("import runpy, sys; names = runpy.run_path(sys.argv[1]); "
            "print('tensorflow' in sys.modules, 'keras' in sys.modules, names['JIT_MODES'])")
    out = subprocess.run([sys.executable, "-c", code, choices.__file__], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["False", "False", "('auto',", "'on',", "'off')"]


def test_aliases_and_defaults_name_real_choices():
    assert set(choices.EXPORT_PRECISIONS) <= set(choices.PRECISIONS)


def test_each_precision_is_a_keras_dtype_policy():
    for name, policy in choices.PRECISIONS.items():
        assert keras.mixed_precision.DTypePolicy(policy).name == policy, name
