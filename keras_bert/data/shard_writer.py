"""write_shards: a corpus tokenized, paired (and packed) once, stored as memory-mappable NumPy shards.

The rows are `pretraining_instances`' (the NSP pairs or single segments `pretraining_dataset`
makes from the same files, seed and arguments), packed, if asked, by the same packer
(`packing.pack_examples`) over the same windows; masking is left to the reader
(`ShardReader`), so every pass gets new masks. Each shard is a set of raw little-endian arrays
(`np.memmap`), described with the text contract's files in the folder's `shards.json`.

Why not ArrayRecord + Grain? Both install from PyPI, but the rows are fixed-width integer
arrays: a memory map reads any row with no decoding and no extra package (the lent GPU machine
has NumPy), and `ShardReader`'s order and masks follow from the step, which is the resume
position Grain's iterator state would otherwise have to carry.
"""

import json
import os

import numpy as np
import tensorflow as tf

from keras_bert.data.documents import resolve_files
from keras_bert.data.packing import pack_examples
from keras_bert.data.pretraining import PACK_WINDOW, pretraining_instances
from keras_bert.data.shard_reader import FORMAT, INDEX_NAME
from keras_bert.text.masked_lm_masker import MaskedLMMasker
from keras_bert.text.no_autograph import no_autograph

_BLOCK = 128  # rows converted to NumPy and appended at a time; blocks go round-robin to the shards


def write_shards(files, text_config, output_dir, seq_length=128, num_shards=8, epochs=1, seed=0,
                 short_seq_prob=0.1, next_sentence=True, input_format="auto", pack_sequences=False,
                 max_examples_per_row=3, max_predictions_per_seq=20, masked_lm_prob=0.15):
    """Writes the pretraining rows of `files` as shards under `output_dir`, with the text contract.

    Args:
        files: text files: a path, a glob pattern or a list of them.
        text_config: the `keras_bert.TextConfig` to tokenize with; saved into `output_dir`.
        output_dir: the shards folder (created; holding shards already is refused).
        seq_length: tokens per row.
        num_shards: files per array; hosts read `process_index::process_count` of them.
        epochs: passes of `pretraining_instances` stored (each pairs the documents anew;
            Google's `dupe_factor`); the reader cycles through them with new masks.
        seed, short_seq_prob, next_sentence, input_format: as `pretraining_dataset`'s.
        pack_sequences: pack up to `max_examples_per_row` instances per row (`pack_examples`),
            keeping each row's predictions within `max_predictions_per_seq` at `masked_lm_prob`
            (both recorded: the reader refuses others).

    Returns:
        The index (dict) written to `output_dir/shards.json`: rows, tokens, shards and arrays.

    Example:
        >>> index = write_shards("corpus/*.txt", TextConfig("vocab.txt"), "shards/", seq_length=128)
    """
    output_dir = os.fspath(output_dir)
    if os.path.exists(os.path.join(output_dir, INDEX_NAME)):
        raise ValueError(f"{output_dir} holds shards already ({INDEX_NAME}); pass a new folder.")
    if int(num_shards) < 1 or int(epochs) < 1:
        raise ValueError(f"num_shards={num_shards} and epochs={epochs} must be >= 1.")
    os.makedirs(output_dir, exist_ok=True)
    tokenizer = text_config.tokenizer()
    masker = MaskedLMMasker.from_tokenizer(tokenizer, max_predictions_per_seq, masked_lm_prob, True)
    rows = pretraining_instances(files, tokenizer, seq_length=seq_length, short_seq_prob=short_seq_prob,
                                 next_sentence=next_sentence, seed=seed, input_format=input_format,
                                 epochs=epochs)
    if pack_sequences:
        rows = rows.batch(PACK_WINDOW).map(no_autograph(lambda instances: _pack(
            instances, masker, seq_length, max_predictions_per_seq, max_examples_per_row))).unbatch()
    bounds = {"input_word_ids": masker.vocab_size - 1}
    shards = [{} for _ in range(int(num_shards))]
    files_open, count, tokens = {}, 0, 0
    try:
        for number, block in enumerate(rows.batch(_BLOCK).as_numpy_iterator()):
            shard = number % len(shards)
            tokens += int(np.sum(block["input_mask"]))
            count += len(block["input_mask"])
            for name, values in block.items():
                dtype = np.min_scalar_type(bounds.get(name, seq_length))
                spec = shards[shard].setdefault(name, {"file": f"shard-{shard:05d}.{name}.bin",
                                                       "dtype": dtype.str, "shape": [0, *values.shape[1:]]})
                spec["shape"][0] += len(values)
                if spec["file"] not in files_open:
                    files_open[spec["file"]] = open(os.path.join(output_dir, spec["file"]), "wb")
                files_open[spec["file"]].write(np.ascontiguousarray(values, dtype).tobytes())
    finally:
        for f in files_open.values():
            f.close()
    if any(not shard for shard in shards):
        raise ValueError(f"{count} rows filled {sum(map(bool, shards))} of num_shards={num_shards} "
                         f"shards; pass --num_shards {max(1, -(-count // _BLOCK))} or fewer.")
    saved = text_config.replace(max_seq_length=int(seq_length)).save(output_dir)
    np.save(os.path.join(output_dir, "continues_word.npy"), np.asarray(masker.is_continuation, bool))
    index = {
        "format": FORMAT, "seq_length": int(seq_length), "rows": count, "tokens": tokens,
        "next_sentence": bool(next_sentence), "pack_sequences": bool(pack_sequences),
        "source": {"files": len(resolve_files(files)),
                   "seed": int(seed), "epochs": int(epochs), "short_seq_prob": float(short_seq_prob),
                   "input_format": input_format, "text_contract": os.path.basename(saved.vocab_file)},
        "masking": {"vocab_size": masker.vocab_size, "mask_id": masker.mask_id,
                    "unselectable_ids": masker.unselectable_ids, "continues_word": "continues_word.npy"},
        "shards": [{"rows": shard["input_word_ids"]["shape"][0], "arrays": shard} for shard in shards],
    }
    if pack_sequences:
        index["packed_for"] = {"max_predictions_per_seq": int(max_predictions_per_seq),
                               "masked_lm_prob": float(masked_lm_prob),
                               "max_examples_per_row": int(max_examples_per_row)}
    with open(os.path.join(output_dir, INDEX_NAME), "w", encoding="utf-8") as f:
        json.dump(index, f, indent=1)
    return index


def _pack(instances, masker, seq_length, max_predictions_per_seq, max_examples_per_row):
    """A window of unmasked instances packed as `pretraining_dataset` packs masked ones: each
    example reserves the predictions the masker will choose for it (its count)."""
    counts = masker.prediction_counts(instances["input_word_ids"])  # [W]
    slots = tf.range(max_predictions_per_seq)[tf.newaxis, :] < counts[:, tf.newaxis]  # [W, P]
    features = {name: instances[name] for name in ("input_word_ids", "input_mask", "input_type_ids")}
    features["masked_lm_positions"] = tf.zeros_like(slots, tf.int32)
    labels = {"masked_lm_ids": tf.zeros_like(slots, tf.int32), "masked_lm_weights": tf.cast(slots, tf.float32)}
    if "next_sentence_labels" in instances:
        labels["next_sentence_labels"] = instances["next_sentence_labels"]
    packed, packed_labels = pack_examples(features, labels, seq_length, max_predictions_per_seq,
                                          max_examples_per_row)
    packed.pop("masked_lm_positions")
    return {**packed, **{k: v for k, v in packed_labels.items() if not k.startswith("masked_lm")}}
