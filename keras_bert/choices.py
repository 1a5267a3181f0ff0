"""The named choices a user picks among (flag values and keyword arguments), one definition each.

Imports nothing, so a tool's `--help` and flag errors list the choices without loading
TensorFlow; each module that implements a choice imports its tuple from here.
"""

# keras_bert.training
# --strategy: "auto" and "default" (one device) on every backend; tf.distribute's on TensorFlow, keras.distribution's
# on JAX (keras_bert/training/strategy.py refuses one on the other backend in one line, naming what to use).
TF_STRATEGIES = ("cpu", "mirrored", "multi_worker", "tpu")
JAX_STRATEGIES = ("data_parallel", "model_parallel")
STRATEGIES = ("auto", "default") + TF_STRATEGIES + JAX_STRATEGIES
PRECISIONS = {"off": "float32", "fp32": "float32", "bf16": "mixed_bfloat16",
              "fp16": "mixed_float16"}  # flag value -> Keras dtype policy
EXPORT_PRECISIONS = ("fp32", "bf16")  # a SavedModel's compute precision (PRECISIONS' names)
JIT_MODES = ("auto", "on", "off")
OPTIMIZERS = ("adamw", "lamb")
# keras_bert.data
INPUT_FORMATS = ("auto", "bert", "plain")
# keras_bert.text
NORMALIZATIONS = ("reference", "fast")
# keras_bert.checkpoints (its formats: the records of keras_bert/checkpoints/checkpoint_formats.py)
CHECKPOINT_MODELS = ("encoder", "pretrainer", "auto", "embedding")
