"""sentence-transformers folders in and out: all-MiniLM-L6-v2's embeddings equal `SentenceTransformer.encode`."""

import json
import os
import shutil

import numpy as np
import pytest

import keras_bert
from keras_bert.checkpoints.loading import read_checkpoint

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # local folders only


def hidden_texts(shakespeare_files, count=12):
    """Text nobody here wrote: lines of Hamlet (the corpus package), unicode lines, and two
    passages longer than MiniLM's max_seq_length=256 pieces (truncated as sentence-transformers does)."""
    path = next(f for f in shakespeare_files if "hamlet" in os.path.basename(f).lower())
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [line.strip() for line in f if len(line.strip()) > 30]
    start = len(lines) // 3
    passage = " ".join(lines[start:start + 80])
    unicode = ["Ophélie — «Good my lord, how does your honour for this many a day?»",
               "Ἡ ψυχή; Гамлет, принц датский; ハムレット; 哈姆雷特 — to be, or not to be.",
               "naïve café déjà vu: the rest is silence… 🙂"]
    return lines[start:start + count] + unicode + [passage, passage[::-1]]


@pytest.fixture(scope="module")
def reference(minilm_sentence_transformer):
    return minilm_sentence_transformer


@pytest.fixture(scope="module")
def embedder(minilm_dir):
    return keras_bert.load_checkpoint(minilm_dir)  # no model=: the folder says it is a sentence embedder


def embed(model, texts):
    """`model`'s embeddings of `texts`, packed with its own text contract."""
    from keras_bert.text.preprocessor import Preprocessor

    import tensorflow as tf

    preprocessor = Preprocessor(model.text_config.tokenizer(), model.task_config["seq_length"])
    return model.predict(preprocessor(tf.constant(texts)), verbose=0)


def test_reads_pooling_normalize_and_max_seq_length(minilm_dir, embedder):
    contents = read_checkpoint(minilm_dir)
    assert contents.embedding == {"pooling": "mean", "normalize": True, "seq_length": 256}
    assert embedder.task == "embedding"
    assert embedder.task_config == {"seq_length": 256, "pooling": "mean", "normalize": True}
    assert embedder.text_config.max_seq_length == 256
    assert tuple(embedder.output.shape) == (None, 384)
    assert isinstance(keras_bert.load_checkpoint(minilm_dir, model="encoder"), keras_bert.BertEncoder)


def test_embeddings_equal_sentence_transformers(reference, embedder, shakespeare_files):
    texts = hidden_texts(shakespeare_files)
    long = reference.tokenizer(texts[-1])["input_ids"]
    assert len(long) > 256  # truncated to 256 on both sides
    np.testing.assert_allclose(embed(embedder, texts), reference.encode(texts), atol=1e-5)


def test_saved_folder_loads_in_sentence_transformers_with_the_same_outputs(reference, embedder, tmp_path,
                                                                         shakespeare_files):
    from sentence_transformers import SentenceTransformer

    texts = hidden_texts(shakespeare_files, count=4)
    keras_bert.save_checkpoint(embedder, tmp_path / "st", format="st")
    written = SentenceTransformer(str(tmp_path / "st"), device="cpu")
    assert written.max_seq_length == 256
    np.testing.assert_allclose(written.encode(texts), reference.encode(texts), atol=1e-5)
    reloaded = keras_bert.load_checkpoint(tmp_path / "st", model="auto")  # what tools/export.py loads
    assert reloaded.task == "embedding" and reloaded.task_config == embedder.task_config


def test_other_poolings_round_trip(embedder, tmp_path, shakespeare_files):
    """cls + max pooling, not normalized, written and read back by sentence-transformers."""
    from sentence_transformers import SentenceTransformer

    from keras_bert.models.builders import build_embedder

    texts = hidden_texts(shakespeare_files, count=3)[:3]
    model = build_embedder(embedder.encoder, "max,cls", normalize=False, task_config={"seq_length": 256})
    keras_bert.save_checkpoint(model, tmp_path / "st", format="sentence_transformers")
    written = SentenceTransformer(str(tmp_path / "st"), device="cpu")
    np.testing.assert_allclose(written.encode(texts), embed(model, texts), atol=1e-5)
    assert keras_bert.load_checkpoint(tmp_path / "st", model="embedding").task_config["pooling"] == "max,cls"


def _copy_with(minilm_dir, tmp_path, pooling=None, modules=None):
    folder = tmp_path / "st"
    shutil.copytree(minilm_dir, folder)
    if pooling is not None:
        (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    if modules is not None:
        (folder / "modules.json").write_text(json.dumps(modules))
    return folder


@pytest.mark.parametrize("pooling, message", [
    ({"word_embedding_dimension": 384, "pooling_mode_weightedmean_tokens": True},
     r"pools with \['weightedmean'\]; keras_bert implements .* \(not weightedmean or lasttoken\)"),
    ({"embedding_dimension": 384, "pooling_mode": "lasttoken"}, r"pools with \['lasttoken'\]"),
    ({"word_embedding_dimension": 768, "pooling_mode_mean_tokens": True},
     "has word_embedding_dimension 768 but the Transformer's hidden size is 384"),
])
def test_unsupported_pooling_is_refused_in_one_line(minilm_dir, tmp_path, pooling, message):
    with pytest.raises(ValueError, match=message):
        keras_bert.load_checkpoint(_copy_with(minilm_dir, tmp_path, pooling=pooling), model="embedding")


def test_unsupported_module_is_refused_in_one_line(minilm_dir, tmp_path):
    modules = json.loads(open(os.path.join(minilm_dir, "modules.json"), encoding="utf-8").read())
    modules.append({"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"})
    with pytest.raises(ValueError, match=r"keras_bert reads Transformer -> Pooling \(-> Normalize\) only, "
                                         r"not \['sentence_transformers.models.Dense'\]"):
        keras_bert.load_checkpoint(_copy_with(minilm_dir, tmp_path, modules=modules))


def test_a_classifier_is_not_written_as_sentence_transformers(embedder, tmp_path):
    classifier = keras_bert.build_classifier(embedder.encoder, 2, task_config={"labels": ["a", "b"]})
    with pytest.raises(ValueError, match="is a classification model; format 'sentence_transformers' writes"):
        keras_bert.save_checkpoint(classifier, tmp_path / "st", format="st")


def test_an_xlmr_folder_saved_by_sentence_transformers_6_embeds_as_it_encodes(tmp_path, shakespeare_files):
    """Issue 44 §3: `SentenceTransformer.save` (transformers 5) writes tokenizer.json only (a Unigram model, no
    sentencepiece.bpe.model) and max_seq_length as the tokenizer's model_max_length; it loads and embeds equal."""
    spm = pytest.importorskip("sentencepiece")
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Normalize, Pooling, Transformer

    texts = hidden_texts(shakespeare_files, count=8)
    spm.SentencePieceTrainer.train(sentence_iterator=iter(texts * 3), model_prefix=str(tmp_path / "sp"),
                                   vocab_size=300, model_type="unigram", character_coverage=1.0,
                                   hard_vocab_limit=False, minloglevel=2)
    (tmp_path / "base").mkdir()
    os.replace(tmp_path / "sp.model", tmp_path / "base" / "sentencepiece.bpe.model")
    tokenizer = transformers.XLMRobertaTokenizer.from_pretrained(str(tmp_path / "base"))
    torch.manual_seed(0)
    config = transformers.XLMRobertaConfig(vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1,
                                           num_attention_heads=2, intermediate_size=32, max_position_embeddings=130)
    transformers.XLMRobertaModel(config).save_pretrained(tmp_path / "base")
    tokenizer.save_pretrained(tmp_path / "base")
    modules = [Transformer(str(tmp_path / "base"), max_seq_length=64), Pooling(16, "mean"), Normalize()]
    SentenceTransformer(modules=modules, device="cpu").save(str(tmp_path / "st"))
    assert not (tmp_path / "st" / "sentencepiece.bpe.model").exists()
    model = keras_bert.load_checkpoint(tmp_path / "st")
    assert model.task_config["seq_length"] == 64 and model.text_config.kind == "sentencepiece"
    texts = texts[:-2] + ["", "  tabs\t\tand   runs  ", "Ünïcödé café ﬁ"]
    reference = SentenceTransformer(str(tmp_path / "st"), device="cpu").encode(texts)
    np.testing.assert_allclose(embed(model, texts), reference, atol=1e-5)
