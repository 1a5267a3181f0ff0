"""keras_bert.training: the run loop (run folder, resume, strategy, precision), optimizers and schedules.

Lazy (module `__getattr__`): importing one module (e.g. `linear_warmup`, which Keras needs to load a
compiled model) loads only that module. The fine-tuning tasks live in `keras_bert.tasks`.
"""

import importlib

_EXPORTS = {
    'keras_bert.training.finetuning': ('run_finetuning',),
    'keras_bert.training.gradient_accumulation': ('accumulate_gradients',),
    'keras_bert.training.linear_warmup': ('LinearWarmup',),
    'keras_bert.training.memory_estimate': ('check_batch_memory',),
    'keras_bert.training.optimizers': ('OPTIMIZERS', 'WEIGHT_DECAY_EXCLUDE', 'bert_schedule', 'create_optimizer'),
    'keras_bert.training.plotting': ('plot_curves',),
    'keras_bert.training.precision': ('JIT_MODES', 'PRECISIONS', 'resolve_jit_compile', 'set_mixed_precision'),
    'keras_bert.training.pretraining': ('pretraining_input', 'run_pretraining'),
    'keras_bert.training.resumable_checkpoint': ('ResumableCheckpoint',),
    'keras_bert.training.run_config': ('RunConfig',),
    'keras_bert.training.run_folder': ('RunFolder',),
    'keras_bert.training.second_phase': ('SecondPhase', 'check_position_embeddings'),
    'keras_bert.training.step_limit': ('StepLimit',),
    'keras_bert.training.strategy': ('STRATEGIES', 'get_strategy', 'is_chief'),
    'keras_bert.training.training_log': ('TrainingLog',),
    'keras_bert.training.unigram_baseline': ('unigram_mlm_accuracy',),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_MODULE_OF)


def __getattr__(name):
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_MODULE_OF[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_MODULE_OF))
