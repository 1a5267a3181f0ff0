"""The named choices a user picks among (flag values and keyword arguments), one definition each.

Imports nothing, so a tool's `--help` and flag errors list the choices without loading
TensorFlow; each module that implements a choice imports its tuple from here.
"""

# keras_bert.training
STRATEGIES = ("auto", "cpu", "default", "mirrored", "multi_worker", "tpu")
PRECISIONS = {"off": "float32", "fp32": "float32", "bf16": "mixed_bfloat16",
              "fp16": "mixed_float16"}  # flag value -> Keras dtype policy
EXPORT_PRECISIONS = ("fp32", "bf16")  # a SavedModel's compute precision (PRECISIONS' names)
JIT_MODES = ("auto", "on", "off")
OPTIMIZERS = ("adamw", "lamb")
# keras_bert.data
INPUT_FORMATS = ("auto", "bert", "plain")
# keras_bert.text
NORMALIZATIONS = ("reference", "fast")
# keras_bert.checkpoints
CHECKPOINT_FORMATS = ("google", "huggingface", "keras", "keras_hub")
SENTENCE_TRANSFORMERS_FORMAT = "sentence_transformers"  # a sentence embedder's folder, not a BERT checkpoint
CHECKPOINT_FORMAT_ALIASES = {"tf1": "google", "hf": "huggingface", "safetensors": "huggingface",
                             "keras-hub": "keras_hub", "st": SENTENCE_TRANSFORMERS_FORMAT}
CHECKPOINT_MODELS = ("encoder", "pretrainer", "auto", "embedding")
# keras_bert.export
EXPORT_FORMATS = ("savedmodel", "tflite", "onnx", "hub", "mediapipe")
DEFAULT_EXPORT_FORMATS = ("savedmodel", "tflite", "onnx")  # "hub", "mediapipe" on request
