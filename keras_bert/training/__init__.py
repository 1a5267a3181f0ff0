"""keras_bert.training: optimizers and schedules, strategies, callbacks, pretraining and fine-tuning runs."""

from keras_bert.training.fill_mask import fill_mask
from keras_bert.training.finetuning import (TASKS, classification_metrics, entity_metrics, entity_spans,
                                            finetune_task, run_finetuning, token_classification_metrics)
from keras_bert.training.linear_warmup import LinearWarmup
from keras_bert.training.memory_estimate import check_batch_memory
from keras_bert.training.optimizers import WEIGHT_DECAY_EXCLUDE, bert_schedule, create_optimizer
from keras_bert.training.plotting import plot_curves
from keras_bert.training.precision import resolve_jit_compile, set_mixed_precision
from keras_bert.training.pretraining import pretraining_input, run_pretraining
from keras_bert.training.resumable_checkpoint import ResumableCheckpoint
from keras_bert.training.scalar_logger import ScalarLogger
from keras_bert.training.step_limit import StepLimit
from keras_bert.training.strategy import get_strategy, is_chief
from keras_bert.training.training_log import TrainingLog
