"""keras_bert.data: tf.data pipelines for pretraining and fine-tuning."""

from keras_bert.data.classification import classification_dataset
from keras_bert.data.corpus import demo_sentences, shakespeare_bert_files, shakespeare_files
from keras_bert.data.documents import INPUT_FORMATS
from keras_bert.data.pretraining import pretraining_dataset
from keras_bert.data.squad import squad_dataset, squad_examples, squad_features
from keras_bert.data.squad_answers import squad_postprocess
from keras_bert.data.squad_example import SquadExample
from keras_bert.data.squad_metrics import f1_score, normalize_answer, squad_evaluate
from keras_bert.data.token_classification import read_conll, token_classification_dataset
