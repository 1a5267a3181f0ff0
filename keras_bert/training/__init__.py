"""keras_bert.training: the run loop (run folder, resume, strategy, precision), optimizers and schedules."""

from keras_bert.training.finetuning import run_finetuning
from keras_bert.training.gradient_accumulation import accumulate_gradients
from keras_bert.training.linear_warmup import LinearWarmup
from keras_bert.training.memory_estimate import check_batch_memory
from keras_bert.training.optimizers import OPTIMIZERS, WEIGHT_DECAY_EXCLUDE, bert_schedule, create_optimizer
from keras_bert.training.plotting import plot_curves
from keras_bert.training.precision import JIT_MODES, PRECISIONS, resolve_jit_compile, set_mixed_precision
from keras_bert.training.pretraining import pretraining_input, run_pretraining
from keras_bert.training.resumable_checkpoint import ResumableCheckpoint
from keras_bert.training.run_folder import RunFolder
from keras_bert.training.second_phase import SecondPhase, check_position_embeddings
from keras_bert.training.step_limit import StepLimit
from keras_bert.training.strategy import STRATEGIES, get_strategy, is_chief
from keras_bert.training.training_log import TrainingLog
from keras_bert.training.unigram_baseline import unigram_mlm_accuracy

# The fine-tuning tasks live in keras_bert.tasks (which builds on this package); these names
# stay importable from here.
_TASK_NAMES = ("TASKS", "classification_metrics", "entity_metrics", "entity_spans", "finetune_task",
               "token_classification_metrics")


def __getattr__(name):
    if name in _TASK_NAMES:
        from keras_bert import tasks

        return getattr(tasks, name)
    raise AttributeError(f"module 'keras_bert.training' has no attribute {name!r}")
