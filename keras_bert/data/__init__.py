"""keras_bert.data: tf.data pipelines for pretraining and fine-tuning, and the pretraining shards.

Lazy (module `__getattr__`): the shard reader (`shard_reader`) imports NumPy only, so a JAX run
reads shards where TensorFlow is not installed; the tf.data pipelines load TensorFlow on first use.
"""

from keras_bert.lazy import lazy_exports

_EXPORTS = {
    'keras_bert.data.classification': ('classification_dataset',),
    'keras_bert.data.corpus': ('demo_sentences', 'shakespeare_bert_files', 'shakespeare_files'),
    'keras_bert.data.documents': ('INPUT_FORMATS',),
    'keras_bert.data.pretraining': ('pretraining_dataset', 'pretraining_instances'),
    'keras_bert.data.shard_reader': ('ShardReader', 'shard_settings'),
    'keras_bert.data.shard_writer': ('write_shards',),
    'keras_bert.data.squad': ('squad_dataset', 'squad_examples', 'squad_features'),
    'keras_bert.data.squad_answers': ('squad_postprocess',),
    'keras_bert.data.squad_example': ('SquadExample',),
    'keras_bert.data.squad_metrics': ('f1_score', 'normalize_answer', 'squad_evaluate'),
    'keras_bert.data.table_rows': ('read_table_rows',),
    'keras_bert.data.token_classification': ('read_conll', 'token_classification_dataset'),
}
__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)
