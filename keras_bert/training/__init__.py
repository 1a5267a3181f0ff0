"""keras_bert.training: the run loop (run folder, resume, strategy, precision), optimizers and schedules.

Lazy (module `__getattr__`): importing one module (e.g. `linear_warmup`, which Keras needs to load a
compiled model) loads only that module. The fine-tuning tasks live in `keras_bert.tasks`.
"""

from keras_bert.lazy import lazy_exports

_EXPORTS = {
    'keras_bert.training.array_checkpoint_manager': ('ArrayCheckpointManager',),
    'keras_bert.training.family_defaults': ('FamilyDefaults', 'objective_defaults', 'pretraining_config',
                                           'pretraining_defaults'),
    'keras_bert.training.finetuning': ('run_finetuning',),
    'keras_bert.training.gradient_accumulation': ('accumulate_gradients',),
    'keras_bert.training.jax_strategy': ('JaxStrategy', 'LAYOUT_RULES'),
    'keras_bert.training.linear_warmup': ('LinearWarmup',),
    'keras_bert.training.memory_estimate': ('check_batch_memory',),
    'keras_bert.training.optimizers': ('OPTIMIZERS', 'WEIGHT_DECAY_EXCLUDE', 'bert_schedule', 'create_optimizer'),
    'keras_bert.training.plotting': ('plot_curves',),
    'keras_bert.training.precision': ('JIT_MODES', 'PRECISIONS', 'resolve_jit_compile', 'set_mixed_precision'),
    'keras_bert.training.pretraining': ('pretraining_input', 'run_pretraining', 'shards_input'),
    'keras_bert.training.pretraining_flags': ('check_pretraining_input', 'pretraining_inputs'),
    'keras_bert.training.pretraining_report': ('fill_mask_lines', 'pretraining_summary'),
    'keras_bert.training.resumable_checkpoint': ('ResumableCheckpoint',),
    'keras_bert.training.run_config': ('RunConfig',),
    'keras_bert.training.run_folder': ('RunFolder',),
    'keras_bert.training.second_phase': ('SecondPhase', 'check_position_embeddings'),
    'keras_bert.training.step_limit': ('StepLimit',),
    'keras_bert.training.strategy': ('STRATEGIES', 'get_strategy', 'is_chief'),
    'keras_bert.training.training_log': ('TrainingLog',),
    'keras_bert.training.unigram_baseline': ('unigram_mlm_accuracy',),
    'keras_bert.training.without_tensorflow': ('check_without_tensorflow', 'has_tensorflow', 'vocab_ids'),
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
