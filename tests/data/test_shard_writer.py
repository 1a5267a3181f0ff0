"""write_shards: the rows are the tf.data pipeline's instances (unpacked and packed), with the text contract."""

import os

import numpy as np
import pytest

from keras_bert.data.pretraining import pretraining_dataset
from keras_bert.data.shard_reader import read_index
from keras_bert.data.shard_writer import _BLOCK, write_shards
from keras_bert.text.text_config import TextConfig
from tests.conftest import SHARDS


def stored(folder):
    """Every stored array, rows in the order they were made (blocks went round-robin to the shards)."""
    index = read_index(folder)
    blocks = {}
    for number, shard in enumerate(index["shards"]):
        for name, spec in shard["arrays"].items():
            values = np.fromfile(os.path.join(folder, spec["file"]), spec["dtype"]).reshape(spec["shape"])
            for block in range(0, len(values), _BLOCK):
                blocks.setdefault(name, {})[block // _BLOCK * len(index["shards"]) + number] = \
                    values[block:block + _BLOCK]
    return {name: np.concatenate([parts[k] for k in sorted(parts)]).astype(np.int64)
            for name, parts in blocks.items()}


def pipeline_rows(files, tokenizer, **kwargs):
    """`pretraining_dataset`'s rows in the order it makes them (no shuffling), the masks undone."""
    rows = {}
    for features, labels in pretraining_dataset(files, tokenizer, batch_size=64, shuffle_buffer=1,
                                                repeat=False, **kwargs):
        ids = features["input_word_ids"].numpy()
        real = labels["masked_lm_weights"].numpy() > 0
        batch = np.nonzero(real)[0]
        ids[batch, features["masked_lm_positions"].numpy()[real]] = labels["masked_lm_ids"].numpy()[real]
        for name, value in {**features, **labels, "input_word_ids": ids}.items():
            rows.setdefault(name, []).append(np.asarray(value))
    return {name: np.concatenate(parts) for name, parts in rows.items()}


def test_rows_are_the_pipelines_instances_and_the_contract_is_saved(shards, tokenizer, minilm_dir):
    folder, files = shards
    ours, theirs = stored(folder), pipeline_rows(files, tokenizer, seed=SHARDS["seed"],
                                                 seq_length=SHARDS["seq_length"])
    count = len(theirs["input_word_ids"])  # the pipeline drops the last partial batch
    assert count > 500 and 0 <= len(ours["input_word_ids"]) - count < 64
    for name in ("input_word_ids", "input_mask", "input_type_ids", "next_sentence_labels"):
        np.testing.assert_array_equal(ours[name][:count], theirs[name], err_msg=name)
    assert TextConfig.from_dir(folder).replace(max_seq_length=None) == TextConfig.from_dir(minilm_dir).replace(
        vocab_file=os.path.join(folder, "vocab.txt"), max_seq_length=None)
    with pytest.raises(ValueError, match="holds shards already"):
        write_shards(files, TextConfig.from_dir(minilm_dir), folder)


def test_packed_rows_are_the_pipelines_packed_rows(tmp_path, tokenizer, minilm_dir, shakespeare_files):
    with open(shakespeare_files[2], encoding="utf-8") as f:  # one document: MLM only, as RoBERTa pretrains
        (tmp_path / "play.txt").write_text(f.read()[:30000], encoding="utf-8")
    files = [str(tmp_path / "play.txt")]
    settings = dict(seq_length=48, max_predictions_per_seq=6, seed=1, next_sentence=False)
    write_shards(files, TextConfig.from_dir(minilm_dir), tmp_path / "shards", num_shards=1, pack_sequences=True,
                 max_examples_per_row=3, short_seq_prob=0.5, **settings)
    ours = stored(str(tmp_path / "shards"))
    theirs = pipeline_rows(files, tokenizer, pack_sequences=True, short_seq_prob=0.5, **settings)
    count = len(theirs["input_word_ids"])
    assert ours["input_example_ids"].max() >= 2 and 0 <= len(ours["input_word_ids"]) - count < 64
    assert "next_sentence_labels" not in ours
    for name in ("input_word_ids", "input_mask", "input_type_ids", "input_example_ids", "input_position_ids",
                 "next_sentence_positions"):
        np.testing.assert_array_equal(ours[name][:count], theirs[name], err_msg=name)
