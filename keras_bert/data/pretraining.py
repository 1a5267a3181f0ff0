"""The pretraining input pipeline: raw text files -> masked NSP batches, all inside tf.data.

Stages (every one TensorFlow ops; no Python generator or `py_function`):

1. files (sharded by `input_context`, reshuffled each epoch) are read and tokenized whole,
   in parallel, and split into documents of sentences (`documents.py`), or read from the
   TFRecord cache (`document_cache.py`);
2. documents are grouped `DOCUMENTS_PER_GROUP` at a time; a `scan` hands each group the
   previous one as well, and random B segments are drawn from the documents of both;
3. each group becomes packed NSP instances (`nsp.py`) and is masked (`MaskedLMMasker`),
   with stateless random ops keyed by (seed, input pipeline, epoch, group): the same seed
   gives the same batches, every epoch gets new instances and masks;
4. optionally (`pack_sequences`) windows of `PACK_WINDOW` masked instances are packed
   several to a row (`packing.py`);
5. instances (or packed rows) are shuffled, batched (static shapes) and prefetched.
"""

import logging

import tensorflow as tf

from keras_bert.data import document_cache
from keras_bert.data.corpus_checks import check_corpus
from keras_bert.data.documents import INPUT_FORMATS, resolve_files, tokenize_documents
from keras_bert.data.nsp import create_instances
from keras_bert.data.packing import pack_examples
from keras_bert.text.masked_lm_masker import MaskedLMMasker
from keras_bert.text.no_autograph import no_autograph

DOCUMENTS_PER_GROUP = 16
PACK_WINDOW = 256  # instances packed together (first-fit decreasing)
_EPOCHS_FOREVER = 2**62

logger = logging.getLogger(__name__)


def pretraining_dataset(files, tokenizer, seq_length=128, max_predictions_per_seq=20,
                        batch_size=32, masked_lm_prob=0.15, short_seq_prob=0.1,
                        next_sentence=True, whole_word_masking=False, seed=0,
                        input_format="auto", repeat=True, shuffle_buffer=10000,
                        input_context=None, cache_dir=None, pack_sequences=False,
                        max_examples_per_row=3):
    """Builds BERT pretraining batches (NSP pairs + dynamic masking) from raw text files.

    Args:
        files: text files: a path, a glob pattern or a list of them.
        tokenizer: a `keras_bert.text.Tokenizer`.
        seq_length: tokens per example, `[CLS] A [SEP] B [SEP]` + padding (>= 5; >= 3 without NSP).
        max_predictions_per_seq: masked positions per example (BERT: 20 at 128, 80 at 512).
        batch_size: examples per batch; with `input_context` the global batch size, of which
            each input pipeline makes `input_context.get_per_replica_batch_size(batch_size)`.
        masked_lm_prob: share of non-special tokens to predict.
        short_seq_prob: probability that an example aims at a random shorter length.
        next_sentence: make A/B pairs with NSP labels; if False, one segment per example and
            no `next_sentence_labels`.
        whole_word_masking: mask all pieces of a word together.
        seed: seeds every random choice; the same seed gives the same batches.
        input_format: `"bert"` (a sentence per line, blank line between documents),
            `"plain"` (a paragraph is a sentence, a file is a document) or `"auto"`
            (`detect_input_format` on the first files).
        repeat: cycle through the corpus forever, with new pairs and masks each epoch.
        shuffle_buffer: examples in the shuffle buffer (at most the files' size in bytes, an
            upper bound on the examples of one epoch).
        input_context: a `tf.distribute.InputContext`; files are sharded across its input
            pipelines (`input_pipeline_id` takes files `id, id + n, ...`).
        cache_dir: if given, tokenized documents are cached there as TFRecords (built now,
            for the missing files) and read from there.
        pack_sequences: pack up to `max_examples_per_row` instances into each row, with
            per-example attention, positions, predictions and NSP (`packing.pack_examples`);
            a batch then holds `batch_size` rows.
        max_examples_per_row: with `pack_sequences`, examples per row at most (MLPerf: 3).

    Returns:
        A `tf.data.Dataset` of `(features, labels)`: features `input_word_ids`, `input_mask`,
        `input_type_ids` (int32 `[batch, seq_length]`), `masked_lm_positions` (int32
        `[batch, max_predictions_per_seq]`); labels `masked_lm_ids` (int32), `masked_lm_weights`
        (float32, 0 on padded slots), `next_sentence_labels` (int32 `[batch]`, 0: B follows
        A, 1: B is random). With `pack_sequences`, the features and labels of
        `packing.pack_examples` (`input_example_ids`, `input_position_ids`,
        `next_sentence_positions`; NSP labels and weights `[batch, max_examples_per_row]`).

    Raises:
        ValueError: bad arguments, missing files, too few files for the input pipelines, or
            (with `next_sentence`) a corpus of one document.

    Example:
        >>> tokenizer = Tokenizer("vocab.txt")
        >>> dataset = pretraining_dataset(shakespeare_files(), tokenizer, batch_size=8)
        >>> features, labels = next(iter(dataset))
        >>> features["input_word_ids"].shape
        TensorShape([8, 128])
    """
    seq_length, max_predictions_per_seq, seed = int(seq_length), int(max_predictions_per_seq), int(seed)
    _check_arguments(seq_length, max_predictions_per_seq, batch_size, short_seq_prob,
                     next_sentence, input_format, shuffle_buffer)
    if pack_sequences and int(max_examples_per_row) < 1:
        raise ValueError(f"max_examples_per_row must be >= 1 with pack_sequences, got "
                         f"{max_examples_per_row} (MLPerf packs up to 3 at seq_length 512).")
    dataset, base_key, batch_size, corpus_bytes = _examples(
        files, tokenizer, seq_length, short_seq_prob, next_sentence, seed, input_format,
        input_context, cache_dir, batch_size, _EPOCHS_FOREVER if repeat else 1,
        (max_predictions_per_seq, masked_lm_prob, whole_word_masking))
    if pack_sequences:
        dataset = dataset.batch(PACK_WINDOW).map(
            no_autograph(lambda features, labels: pack_examples(
                features, labels, seq_length, max_predictions_per_seq, int(max_examples_per_row))),
            num_parallel_calls=tf.data.AUTOTUNE).unbatch()
    shuffle_seed = int(tf.random.stateless_uniform(
        [], tf.random.experimental.stateless_fold_in(base_key, -1), minval=0, maxval=2**31 - 1,
        dtype=tf.int64))
    # An epoch makes at most one example per sentence and a sentence holds a byte at least, so a buffer
    # beyond the files' bytes only re-reads a small corpus to fill it: a held-out file of 4 examples
    # was read 2,500 times (15 CPU-s) to fill the default 10,000 before its first batch.
    dataset = dataset.shuffle(min(int(shuffle_buffer), max(corpus_bytes, 1)), seed=shuffle_seed,
                              reshuffle_each_iteration=False)
    dataset = dataset.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
    # The maps are parallel and the end prefetched already; tf.data's default graph rewrites
    # would only re-check the big map functions when each iterator starts (0.2 CPU-s).
    options = tf.data.Options()
    options.experimental_optimization.apply_default_optimizations = False
    return dataset.with_options(options)


def pretraining_instances(files, tokenizer, seq_length=128, short_seq_prob=0.1, next_sentence=True,
                          seed=0, input_format="auto", epochs=1, input_context=None, cache_dir=None):
    """The unmasked instances `pretraining_dataset` masks, in the order it makes them (unbatched).

    The same files, tokenizer and arguments give the same instances as `pretraining_dataset`'s
    epochs `0 .. epochs - 1`, before masking, packing and shuffling (`write_shards` stores them).

    Returns:
        A `tf.data.Dataset` of dicts: int32 `input_word_ids`, `input_mask`, `input_type_ids`
        `[seq_length]` and, with `next_sentence`, `next_sentence_labels` (scalar).

    Example:
        >>> instances = pretraining_instances(files, tokenizer, seq_length=128, seed=0)
    """
    seq_length, seed = int(seq_length), int(seed)
    _check_arguments(seq_length, 1, 1, short_seq_prob, next_sentence, input_format, 1)
    return _examples(files, tokenizer, seq_length, short_seq_prob, next_sentence, seed, input_format,
                     input_context, cache_dir, 1, int(epochs), None)[0]


def _examples(files, tokenizer, seq_length, short_seq_prob, next_sentence, seed, input_format,
              input_context, cache_dir, batch_size, num_epochs, masking):
    """`(unbatched examples, base key, this pipeline's batch size, its files' bytes)`: stages 1-3 of
    the module docstring; `masking` is `(max_predictions_per_seq, masked_lm_prob, whole_word_masking)`
    or None (the instances unmasked)."""
    paths = resolve_files(files)
    paths, file_indices, pipeline_id, batch_size = _shard(paths, input_context, batch_size)
    chosen = check_corpus(paths, input_format, next_sentence, pipeline_id if input_context is not None else None)
    if input_format == "auto":
        logger.info("pretraining_dataset: input_format='auto' chose %r", chosen)
    input_format = chosen

    cache_files = None
    if cache_dir is not None:
        cache_files = document_cache.cache_paths(paths, tokenizer, input_format, cache_dir)
        document_cache.build_cache(paths, file_indices, cache_files, tokenizer, input_format)

    masker = masking and MaskedLMMasker.from_tokenizer(tokenizer, *masking)
    base_key = tf.constant([seed, pipeline_id], tf.int64)

    # Every function here is plain TensorFlow with no Python control flow on tensors, so
    # AutoGraph is skipped: with it, building this pipeline took 3.0 CPU-s instead of 0.6.
    documents_of_epoch = _documents_of_epoch_fn(base_key, paths, file_indices, cache_files,
                                                tokenizer, input_format)

    @no_autograph
    def groups_of_epoch(epoch):
        groups = documents_of_epoch(epoch).batch(DOCUMENTS_PER_GROUP).enumerate()
        return groups.map(no_autograph(lambda index, group: (epoch, index) + _flatten_group(*group)))

    dataset = tf.data.Dataset.range(num_epochs).flat_map(groups_of_epoch)
    empty = (tf.zeros([0], tf.int32), tf.zeros([0], tf.int32), tf.zeros([0], tf.int32),
             tf.zeros([0], tf.int64))
    dataset = dataset.scan(
        empty, no_autograph(lambda previous, element: (element[2:], element + previous)))
    examples = _examples_fn(base_key, tokenizer, masker, seq_length, short_seq_prob, next_sentence)
    corpus_bytes = sum(tf.io.gfile.stat(path).length for path in paths)
    return (dataset.map(examples, num_parallel_calls=tf.data.AUTOTUNE).unbatch(), base_key, batch_size,
            corpus_bytes)



def _documents_of_epoch_fn(base_key, paths, file_indices, cache_files, tokenizer, input_format):
    """`epoch -> Dataset` of documents `(pieces [sentences, (pieces)], document_id)`, the files
    in a new order each epoch (read from the token cache when there is one)."""
    sources = tf.constant(cache_files or paths)
    source_indices = tf.constant(file_indices, tf.int64)

    @no_autograph
    def read(path, file_index):
        pieces = tokenize_documents(tf.io.read_file(path), tokenizer, input_format)
        return pieces, document_cache.document_id(file_index, tf.range(pieces.nrows()))

    @no_autograph
    def documents_of_epoch(epoch):
        key = tf.random.experimental.stateless_fold_in(base_key, epoch)
        order = tf.argsort(tf.random.stateless_uniform([tf.size(sources)], key))
        files = tf.data.Dataset.from_tensor_slices(
            (tf.gather(sources, order), tf.gather(source_indices, order)))
        if cache_files is not None:
            return files.interleave(
                no_autograph(lambda path, _: document_cache.read_cached_documents(path)),
                cycle_length=min(4, len(paths)), num_parallel_calls=tf.data.AUTOTUNE,
                deterministic=True)
        return files.map(read, num_parallel_calls=tf.data.AUTOTUNE).unbatch()
    return documents_of_epoch


def _examples_fn(base_key, tokenizer, masker, seq_length, short_seq_prob, next_sentence):
    """`(epoch, index, *current and previous group pools) -> (features, labels)` batch of
    masked NSP instances, keyed by (seed, pipeline, epoch, group)."""
    @no_autograph
    def examples(epoch, index, *pools):
        current, previous = pools[:4], pools[4:]
        pool = [tf.concat([c, p], 0) for c, p in zip(current, previous)]
        key = tf.random.experimental.stateless_fold_in(
            tf.random.experimental.stateless_fold_in(base_key, epoch), index + 1)
        nsp_key, mask_key = tf.unstack(tf.random.experimental.stateless_split(key, 2))
        instances = create_instances(
            *pool, num_documents=tf.size(current[3]), seed=nsp_key, seq_length=seq_length,
            cls_id=tokenizer.cls_id, sep_id=tokenizer.sep_id, short_seq_prob=short_seq_prob,
            next_sentence=next_sentence)
        if masker is None:
            return instances if next_sentence else {
                k: v for k, v in instances.items() if k != "next_sentence_labels"}
        masked = masker(instances["input_word_ids"], mask_key)
        features = {"input_word_ids": masked["input_word_ids"], "input_mask": instances["input_mask"],
                    "input_type_ids": instances["input_type_ids"], "masked_lm_positions": masked["masked_lm_positions"]}
        labels = {name: masked[name] for name in ("masked_lm_ids", "masked_lm_weights")}
        if next_sentence:
            labels["next_sentence_labels"] = instances["next_sentence_labels"]
        return features, labels
    return examples


def _shard(paths, input_context, batch_size):
    """This input pipeline's files (`id, id + n, ...`), their indices, its id and batch size."""
    file_indices = list(range(len(paths)))
    if input_context is None:
        return paths, file_indices, 0, batch_size
    num_pipelines, pipeline_id = input_context.num_input_pipelines, input_context.input_pipeline_id
    if len(paths) < num_pipelines:
        raise ValueError(
            f"{len(paths)} input file(s) cannot be sharded across {num_pipelines} input "
            f"pipelines (one file per pipeline at least); split the corpus into >= "
            f"{num_pipelines} files.")
    return (paths[pipeline_id::num_pipelines], file_indices[pipeline_id::num_pipelines],
            pipeline_id, input_context.get_per_replica_batch_size(batch_size))


def _flatten_group(pieces, document_ids):
    """`[documents, (sentences), (pieces)]` -> flat pieces, sentence lengths, sentences per document, ids."""
    return (pieces.flat_values,
            tf.cast(pieces.values.row_lengths(), tf.int32),
            tf.cast(pieces.row_lengths(), tf.int32),
            document_ids)


def _check_arguments(seq_length, max_predictions_per_seq, batch_size, short_seq_prob,
                     next_sentence, input_format, shuffle_buffer):
    minimum = 5 if next_sentence else 3
    if seq_length < minimum:
        layout = "[CLS] A [SEP] B [SEP]" if next_sentence else "[CLS] A [SEP]"
        raise ValueError(
            f"seq_length={seq_length} is too small: an example is {layout}, which needs at least "
            f"{minimum} positions with one token per segment. Use e.g. 128 (BERT) or 512.")
    if max_predictions_per_seq < 1:
        raise ValueError(
            f"max_predictions_per_seq must be >= 1, got {max_predictions_per_seq}; BERT uses 20 "
            "for seq_length 128 (about seq_length * masked_lm_prob).")
    if int(batch_size) < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}.")
    if not 0.0 <= short_seq_prob <= 1.0:
        raise ValueError(f"short_seq_prob must be in [0, 1], got {short_seq_prob} (BERT: 0.1).")
    if input_format not in INPUT_FORMATS:
        raise ValueError(f"input_format={input_format!r} is not one of {INPUT_FORMATS}.")
    if int(shuffle_buffer) < 1:
        raise ValueError(f"shuffle_buffer must be >= 1 (1 = no shuffling), got {shuffle_buffer}.")
