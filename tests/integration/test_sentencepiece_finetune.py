"""An XLM-R (SentencePiece) folder fine-tunes as users run it (issue 29 §5).

Every run seeds itself (`keras.utils.set_random_seed`) after it has read its data, and TensorFlow's seed
clears the eager kernel cache, which held tf-text's SentencePiece model (a resource private to its kernel):
the run then failed with "Resource localhost/_0_SentencepieceOp/... does not exist" under every strategy.
keras_bert's tokenizer names its model resource (keras_bert/compat.py), so it outlives the cache.
"""

import csv
import itertools
import json
import os

import pytest

from tests.conftest import run_tool
from tests.journeys.test_user_journey import NEGATIVE, POSITIVE, python, step

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "fixtures")
NER, SQUAD = os.path.join(FIXTURES, "ner.conll"), os.path.join(FIXTURES, "squad_v1.json")


@pytest.fixture(scope="module")
def xlmr_user(tmp_path_factory):
    """`xlmr/` as `save_pretrained` writes a seeded XLM-R classifier and its SentencePiece model; train/dev.csv."""
    spm = pytest.importorskip("sentencepiece")
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    folder = tmp_path_factory.mktemp("xlmr_user")
    with open(NER, encoding="utf-8") as f:
        ner_words = " ".join(line.split()[0] for line in f if line.strip())
    with open(SQUAD, encoding="utf-8") as f:
        contexts = [p["context"] for a in json.load(f)["data"] for p in a["paragraphs"]]
    spm.SentencePieceTrainer.train(sentence_iterator=iter((POSITIVE + NEGATIVE) * 5 + [ner_words] + contexts),
                                   model_prefix=str(folder / "sp"), vocab_size=300, model_type="unigram",
                                   character_coverage=1.0, hard_vocab_limit=False, minloglevel=2)
    (folder / "xlmr").mkdir()
    os.replace(folder / "sp.model", folder / "xlmr" / "sentencepiece.bpe.model")
    tokenizer = transformers.XLMRobertaTokenizer.from_pretrained(str(folder / "xlmr"))
    torch.manual_seed(0)
    config = transformers.XLMRobertaConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=2,
                                           num_attention_heads=2, intermediate_size=32, max_position_embeddings=66,
                                           type_vocab_size=1, num_labels=2)
    transformers.XLMRobertaForSequenceClassification(config).save_pretrained(folder / "xlmr")
    tokenizer.save_pretrained(folder / "xlmr")
    for name, repeat in (("train.csv", 2), ("dev.csv", 1)):
        with open(folder / name, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["sentence", "label"])
            for _ in range(repeat):
                writer.writerows([(t, "positive") for t in POSITIVE] + [(t, "negative") for t in NEGATIVE])
    return folder


def test_tools_finetune_trains_an_xlmr_folder_and_its_model_predicts_in_a_fresh_process(xlmr_user):
    cwd = str(xlmr_user)
    trained = step("finetune", run_tool(
        "finetune", "--task", "classification", "--checkpoint", "xlmr", "--train_file", "train.csv",
        "--eval_file", "dev.csv", "--labels", "negative", "positive", "--epochs", "1", "--batch_size", "4",
        "--seq_length", "32", "--strategy", "default", "--output_dir", "run", cwd=cwd))
    assert "Trained steps 0 -> 6." in trained.stdout and "Evaluation on dev.csv: accuracy" in trained.stdout
    predicted = step("predict", python(
        "import json, keras, numpy as np, keras_bert\n"
        "model = keras.saving.load_model('run/model.keras')\n"
        "task = keras_bert.TASKS['classification'].from_model(model, batch_size=4)\n"
        "keras.utils.set_random_seed(1)  # a user's reseed once the tokenizer exists\n"
        "logits = model.predict(task.read('dev.csv', training=False), verbose=0)\n"
        "print(json.dumps([type(task.tokenizer).__name__, list(logits.shape), bool(np.isfinite(logits).all())]))\n",
        cwd=cwd))
    assert json.loads(predicted.stdout.strip().splitlines()[-1]) == ["SentencepieceTokenizer", [12, 2], True]


def test_token_classification_and_squad_read_a_sentencepiece_folder_under_a_strategy(xlmr_user):
    """The readers that tokenize (the CoNLL words in the graph; SQuAD's contexts with offsets, eagerly) after
    the run's reseed, two distributed batches each."""
    import keras
    import tensorflow as tf

    from keras_bert import TASKS
    from keras_bert.checkpoints import read_checkpoint

    contents = read_checkpoint(str(xlmr_user / "xlmr"))
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    for name, path, options in (("token_classification", NER, {}),
                                ("squad", SQUAD, {"doc_stride": 8, "max_query_length": 12})):
        task = TASKS[name].from_checkpoint(contents, 32, 2, 0, **options)
        task.fit_options(path)
        keras.utils.set_random_seed(0)  # as every run does, after its tokenizer was made
        distributed = strategy.experimental_distribute_dataset(task.read(path, training=True))
        batches = list(itertools.islice(iter(distributed), 2))
        features = batches[0][0]
        assert len(batches) == 2 and features["input_word_ids"].shape == (2, 32), name
        assert int(tf.reduce_max(features["input_word_ids"])) < task.tokenizer.vocab_size, name
