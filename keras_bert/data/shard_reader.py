"""ShardReader: masked pretraining batches from `write_shards`' shards, with NumPy only.

No TensorFlow: a JAX run reads shards where TensorFlow is not installed. Batch `step` is a pure
function of (shards, seed, process, step): this process's rows (its shards, `process_index`,
`process_index + process_count`, ...) in a new random order each pass, masked dynamically with
a generator keyed by (seed, process, step). So the data position is the run's step: a resumed
run asks for the batches from its restored step on and gets what the uninterrupted run got.
"""

import json
import os

import numpy as np

from keras_bert.data.shard_masking import mask_rows

INDEX_NAME = "shards.json"
FORMAT = "keras_bert.shards/1"
# Arrays that are labels (the rest are features), as `pretraining_dataset` splits them.
LABELS = ("next_sentence_labels", "next_sentence_weights")
_FLOAT = ("next_sentence_weights",)


class ShardReader:
    """Reads, orders and masks pretraining shards: `batch(step)` -> `(features, labels)`.

    Args:
        directory: the folder `write_shards` (`tools/write_shards.py`) wrote.
        batch_size: rows per batch (this process's share of the global batch).
        max_predictions_per_seq: masked positions per row.
        masked_lm_prob: share of tokens to predict (the family's: BERT 0.15, ModernBERT 0.3).
        whole_word_masking: mask all pieces of a word together.
        seed: seeds the row order and the masks.
        process_index: this host's index; it reads shards `process_index::process_count`.
        process_count: hosts reading the shards.

    Example:
        >>> reader = ShardReader("shards/", batch_size=32, seed=0)
        >>> features, labels = reader.batch(0)
        >>> features["input_word_ids"].shape
        (32, 128)
    """

    def __init__(self, directory, batch_size, max_predictions_per_seq=20, masked_lm_prob=0.15,
                 whole_word_masking=False, seed=0, process_index=0, process_count=1):
        self.directory = os.fspath(directory)
        self.index = read_index(self.directory)
        self.batch_size, self.seed = int(batch_size), int(seed)
        self.process_index, self.process_count = int(process_index), int(process_count)
        self.max_predictions_per_seq, self.masked_lm_prob = int(max_predictions_per_seq), float(masked_lm_prob)
        if self.batch_size < 1 or self.max_predictions_per_seq < 1 or not 0 < self.masked_lm_prob <= 1:
            raise ValueError(f"batch_size={batch_size} and max_predictions_per_seq={max_predictions_per_seq} "
                             f"must be >= 1 and masked_lm_prob={masked_lm_prob} in (0, 1].")
        shards = self.index["shards"]
        if not 0 <= self.process_index < self.process_count <= len(shards):
            raise ValueError(
                f"{self.directory} holds {len(shards)} shard(s): process {process_index} of "
                f"{process_count} has none. Write at least one shard per host "
                f"(tools/write_shards.py --num_shards {process_count} or more).")
        packed = self.index.get("packed_for")
        if packed and (packed["max_predictions_per_seq"] != self.max_predictions_per_seq
                       or packed["masked_lm_prob"] != self.masked_lm_prob):
            raise ValueError(
                f"{self.directory} was packed for max_predictions_per_seq="
                f"{packed['max_predictions_per_seq']} and masked_lm_prob={packed['masked_lm_prob']} "
                f"(each row's examples fit those predictions); read it with those, or write the "
                "shards again with the ones you train with.")
        self.seq_length = int(self.index["seq_length"])
        masking = self.index["masking"]
        self.masking = dict(vocab_size=masking["vocab_size"], mask_id=masking["mask_id"],
                            unselectable_ids=masking["unselectable_ids"],
                            max_predictions_per_seq=self.max_predictions_per_seq,
                            masked_lm_prob=self.masked_lm_prob)
        if whole_word_masking:
            self.masking["is_continuation"] = np.load(os.path.join(self.directory, masking["continues_word"]))
        mine = shards[self.process_index::self.process_count]
        self.arrays = [{name: _open(self.directory, spec) for name, spec in shard["arrays"].items()}
                       for shard in mine]
        self.starts = np.cumsum([0] + [shard["rows"] for shard in mine])
        self.num_rows = int(self.starts[-1])
        if self.num_rows == 0:
            raise ValueError(f"{self.directory}: process {process_index}'s shards hold no rows.")
        self._order = (None, None)  # (pass, its row order), the last one used

    def batch(self, step):
        """Batch `step` of this process: `(features, labels)` dicts of NumPy arrays, shaped as
        `pretraining_dataset`'s (with `pack_sequences` when the shards are packed)."""
        first = int(step) * self.batch_size
        rows = np.concatenate([self._rows_of_pass(p, first, first + self.batch_size)
                               for p in range(first // self.num_rows,
                                              (first + self.batch_size - 1) // self.num_rows + 1)])
        data = self._gather(rows)
        examples = data.get("input_example_ids", data["input_mask"])
        rng = np.random.default_rng([self.seed, self.process_index, int(step)])
        masked = mask_rows(data["input_word_ids"], examples, rng, **self.masking)
        features = {name: value for name, value in data.items() if name not in LABELS}
        features["input_word_ids"] = masked["input_word_ids"]
        features["masked_lm_positions"] = masked["masked_lm_positions"]
        labels = {"masked_lm_ids": masked["masked_lm_ids"], "masked_lm_weights": masked["masked_lm_weights"]}
        labels.update({name: data[name] for name in LABELS if name in data})
        return features, labels

    def batches(self, start_step=0, end_step=None):
        """Batches `start_step, start_step + 1, ...` (up to `end_step`, or forever): a generator
        that Keras `fit` takes on every backend."""
        step = int(start_step)
        while end_step is None or step < end_step:
            yield self.batch(step)
            step += 1

    def _rows_of_pass(self, number, first, end):
        """This process's row numbers at stream positions `[first, end)` that fall in pass `number`."""
        if self._order[0] != number:
            rng = np.random.default_rng([self.seed, self.process_index, number, 1])
            self._order = (number, rng.permutation(self.num_rows))
        begin = number * self.num_rows
        return self._order[1][max(first, begin) - begin:min(end, begin + self.num_rows) - begin]

    def _gather(self, rows):
        """The stored arrays of `rows` (in that order), as int32 (float32 weights)."""
        shard = np.searchsorted(self.starts, rows, side="right") - 1
        out = {}
        for name in self.arrays[0]:
            first = self.arrays[0][name]
            values = np.empty((len(rows),) + first.shape[1:], np.float32 if name in _FLOAT else np.int32)
            for number in np.unique(shard):
                where = shard == number
                local = rows[where] - self.starts[number]
                order = np.argsort(local)  # ascending reads from the memory map
                values[np.flatnonzero(where)[order]] = self.arrays[number][name][local[order]]
            out[name] = values
        return out


class ShardBatches:
    """A `ShardReader`'s batches `start, start + 1, ...` (before `end`), fed to Keras `fit` without tf.data (JAX):
    `skip` and `take` position it as a `tf.data.Dataset`'s do, `element_spec` gives the batches' shapes
    (`keras.KerasTensor`s) and `iter()` a generator of NumPy batches, which `fit` takes.

    Example:
        >>> batches = ShardBatches(ShardReader("shards/", 32)).skip(100).take(50)  # steps 100..149
    """

    def __init__(self, reader, start=0, end=None):
        self.reader, self.start, self.end = reader, int(start), end

    def skip(self, count):
        return ShardBatches(self.reader, self.start + int(count), self.end)

    def take(self, count):
        end = self.start + int(count)
        return ShardBatches(self.reader, self.start, end if self.end is None else min(end, self.end))

    @property
    def element_spec(self):
        import keras  # pylint: disable=import-outside-toplevel

        return keras.tree.map_structure(lambda a: keras.KerasTensor(a.shape, a.dtype.name), self.reader.batch(0))

    def __iter__(self):
        return self.reader.batches(self.start, self.end)


def read_index(directory):
    """The shards' index (`shards.json`), checked; a one-line error for a folder that is not one."""
    path = os.path.join(os.fspath(directory), INDEX_NAME)
    try:
        with open(path, encoding="utf-8") as f:
            index = json.load(f)
    except (OSError, ValueError) as error:
        raise ValueError(f"{directory} is not a shards folder ({INDEX_NAME}: {error}); write one with "
                         "tools/write_shards.py --files ... --output_dir DIR.") from None
    if index.get("format") != FORMAT:
        raise ValueError(f"{path} has format {index.get('format')!r}, not {FORMAT!r}; write the shards "
                         "again with this keras_bert (tools/write_shards.py).")
    return index


def shard_settings(directory, given):
    """What the shards fix for a run that reads them: `seq_length`, `pack_sequences` and `next_sentence`
    ("on"/"off"), as written. Refused in one line naming the flag: a folder that is no shards folder
    (`--shards`), a value in `given` (flags by name; None or False: not given) that contradicts them, and
    what the shards already hold (their corpus and text contract: files, vocab, build_vocab, cased,
    input_format, phase2_seq_length).

    Example:
        >>> shard_settings("shards/", {"seq_length": None})["seq_length"]
        128
    """
    clash = [f"--{flag}" for flag in ("files", "vocab", "build_vocab", "cased", "phase2_seq_length", "input_format")
             if given.get(flag)]
    if clash:
        raise ValueError(f"--shards {directory} holds the tokenized corpus and its text contract: drop "
                         f"{', '.join(clash)} (tools/write_shards.py takes them)")
    try:
        index = read_index(directory)
    except ValueError as error:
        raise ValueError(f"--shards: {error}") from None
    settings = {"seq_length": index["seq_length"], "pack_sequences": index["pack_sequences"],
                "next_sentence": "on" if index["next_sentence"] else "off"}
    for flag, value in settings.items():
        if given.get(flag) not in (None, False, value):
            raise ValueError(f"--{flag} {given[flag]} contradicts --shards {directory} (written with {value}); "
                             "drop it or write the shards again")
    return settings


def _open(directory, spec):
    """A read-only memory map of one stored array."""
    return np.memmap(os.path.join(directory, spec["file"]), dtype=spec["dtype"], mode="r",
                     shape=tuple(spec["shape"]))
