"""keras_bert.checkpoints: load and save Google TF1, Hugging Face and keras_bert checkpoints."""

from keras_bert.checkpoints.checkpoint_contents import CheckpointContents
from keras_bert.checkpoints.hub_handle import resolve
from keras_bert.checkpoints.keras_checkpoint import load_keras_file
from keras_bert.checkpoints.loading import (MODELS, detect_format, load_checkpoint, model_from_contents,
                                                   read_checkpoint)
from keras_bert.checkpoints.saving import FORMATS, save_checkpoint
from keras_bert.checkpoints.transformers_parity import compare_with_transformers
