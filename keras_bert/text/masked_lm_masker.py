"""Dynamic masked-LM masking (BERT's 15 %, 80/10/10) with stateless random ops.

Why not tensorflow-text's `RandomItemSelector` + `MaskValuesChooser` + `mask_language_model`
(docs/DESIGN.md, rule 9)? Measured with tensorflow-text 2.21.1 (script in the docstring of
`tests/text/test_masked_lm_masker.py`):

* Not reproducible: they draw from stateful `tf.random.shuffle` / `tf.random.uniform`. With
  `tf.random.set_seed(0)` and the same 200 batches, two runs of a `Dataset.map` gave different
  masks in 4 of 200 batches with a serial map and in 127 of 200 with `num_parallel_calls`
  (concurrent calls share the op's generator), so "same seed + same epoch -> same masks"
  cannot hold. `shuffle_fn` is pluggable but gets no per-example seed, and
  `MaskValuesChooser` has no hook at all.
* Wrong count: the selector picks `ceil(n * rate)` tokens, BERT `max(1, round(n * rate))`;
  over 20,000 sequences of 5-39 tokens that selected 17.2 % instead of 15.1 %.
* Whole-word masking at `axis=2` counts words, BERT's counts word pieces.

So selection and replacement are written here with `tf.random.stateless_*` ops, keyed by a
`[2]` seed the caller derives from (seed, epoch, example group); vectorized over the batch.
"""

import tensorflow as tf


class MaskedLMMasker(tf.Module):
    """Masks token ids for masked-LM pretraining, reproducibly from a seed.

    Of the maskable tokens of each sequence (all but `unselectable_ids`, e.g. `[CLS]`,
    `[SEP]`, `[PAD]`), `min(max_predictions_per_seq, max(1, round(n * masked_lm_prob)))` are
    selected at random (BERT's `create_pretraining_data.py` count, with `n` = maskable
    tokens); each selected token becomes `[MASK]` with probability `mask_token_rate`, a
    uniformly random id with probability `random_token_rate`, else stays unchanged. With
    `is_continuation` (one bool per vocabulary id: the piece continues a word, `##...`) whole
    words are selected: words are taken in random order while their pieces still fit the
    count (where BERT skips a word that does not fit and tries the next, this stops), and
    `[MASK]` / random / keep is decided once per word, not per piece.

    Args:
        vocab_size: ids for random replacement are drawn from `[0, vocab_size)`.
        mask_id: the `[MASK]` id.
        unselectable_ids: ids never selected (special tokens and padding).
        max_predictions_per_seq: width of the `masked_lm_*` outputs; caps the count.
        masked_lm_prob: share of maskable tokens selected.
        mask_token_rate: share of selected tokens replaced by `[MASK]`.
        random_token_rate: share of selected tokens replaced by a random id.
        is_continuation: optional list of bools, one per id; enables whole-word masking.

    Example:
        >>> masker = MaskedLMMasker(30522, mask_id=103, unselectable_ids=[0, 101, 102])
        >>> out = masker(tf.constant([[101, 7592, 2088, 999, 102, 0]]), seed=[0, 0])
        >>> sorted(out)
        ['input_word_ids', 'masked_lm_ids', 'masked_lm_positions', 'masked_lm_weights']
    """

    def __init__(self, vocab_size, mask_id, unselectable_ids, max_predictions_per_seq=20,
                 masked_lm_prob=0.15, mask_token_rate=0.8, random_token_rate=0.1,
                 is_continuation=None):
        super().__init__(name="masked_lm_masker")
        if not 0.0 < masked_lm_prob <= 1.0:
            raise ValueError(f"masked_lm_prob must be in (0, 1], got {masked_lm_prob} (BERT: 0.15).")
        if mask_token_rate < 0 or random_token_rate < 0 or mask_token_rate + random_token_rate > 1:
            raise ValueError(
                f"mask_token_rate={mask_token_rate} and random_token_rate={random_token_rate} must "
                "be >= 0 and sum to <= 1 (BERT: 0.8 and 0.1).")
        if int(max_predictions_per_seq) < 1:
            raise ValueError(
                f"max_predictions_per_seq must be >= 1, got {max_predictions_per_seq} (BERT: 20 "
                "for seq_length 128, 80 for 512).")
        if is_continuation is not None and len(is_continuation) != vocab_size:
            raise ValueError(
                f"is_continuation has {len(is_continuation)} entries but vocab_size is "
                f"{vocab_size}; pass one bool per vocabulary id.")
        self.vocab_size = int(vocab_size)
        self.mask_id = int(mask_id)
        self.unselectable_ids = [int(i) for i in unselectable_ids]
        self.max_predictions_per_seq = int(max_predictions_per_seq)
        self.masked_lm_prob = float(masked_lm_prob)
        self.mask_token_rate = float(mask_token_rate)
        self.random_token_rate = float(random_token_rate)
        self.whole_word_masking = is_continuation is not None
        self._is_continuation = (
            tf.constant(list(is_continuation), tf.bool) if self.whole_word_masking else None)

    @classmethod
    def from_tokenizer(cls, tokenizer, max_predictions_per_seq=20, masked_lm_prob=0.15,
                       whole_word_masking=False):
        """A masker for a `keras_bert.text.Tokenizer`: `[CLS]`, `[SEP]`, `[PAD]` unselectable.

        Args:
            tokenizer: gives `vocab`, `vocab_size`, `mask_id`, `cls_id`, `sep_id`, `pad_id`.
            max_predictions_per_seq: see the class.
            masked_lm_prob: see the class.
            whole_word_masking: select whole words (pieces after `##` go with their word; the
                tokenizer's `continues_word` where it has one: byte-level BPE, SentencePiece).
        """
        is_continuation = None
        if whole_word_masking:
            is_continuation = getattr(tokenizer, "continues_word", None) or [
                token.startswith("##") for token in tokenizer.vocab]
        return cls(tokenizer.vocab_size, tokenizer.mask_id,
                   [tokenizer.pad_id, tokenizer.cls_id, tokenizer.sep_id],
                   max_predictions_per_seq=max_predictions_per_seq,
                   masked_lm_prob=masked_lm_prob, is_continuation=is_continuation)

    def __call__(self, input_word_ids, seed):
        """Masks a batch: int `[batch, seq]` ids + `[2]` seed -> dict of masked ids and targets.

        Returns `input_word_ids` (masked, int32 `[batch, seq]`), `masked_lm_positions`
        (ascending, 0-padded), `masked_lm_ids` (original ids, 0-padded), both int32
        `[batch, max_predictions_per_seq]`, and `masked_lm_weights` (float32, 1 on real
        predictions, 0 on padding). The same ids and seed always give the same result.
        """
        ids = tf.cast(tf.convert_to_tensor(input_word_ids), tf.int32)
        if ids.shape.rank != 2:
            raise ValueError(f"input_word_ids must be [batch, seq], got shape {ids.shape}.")
        seed = tf.cast(tf.convert_to_tensor(seed), tf.int64)
        select_seed, action_seed, random_id_seed = tf.unstack(
            tf.random.experimental.stateless_split(seed, 3))
        batch, seq = tf.shape(ids)[0], tf.shape(ids)[1]
        maskable = self._maskable(ids)
        words = self._words(ids, maskable) if self.whole_word_masking else None
        positions = self._select(ids, maskable, select_seed, words)  # [b, p], `seq` on empty slots
        # Ascending, empty slots last, exactly max_predictions_per_seq wide.
        pad = tf.fill([batch, tf.maximum(self.max_predictions_per_seq - tf.shape(positions)[1], 0)], seq)
        positions = tf.sort(tf.concat([positions, pad], 1), axis=1)[:, :self.max_predictions_per_seq]
        valid = positions < seq
        positions = tf.where(valid, positions, 0)
        targets = tf.where(valid, tf.gather(ids, positions, batch_dims=1), 0)

        # Per prediction slot: [MASK], a random id, or the original id; one draw per word with
        # whole words (Google's original draws per piece: google-research/bert#910).
        shape = tf.shape(positions)
        if words is None:
            action = tf.random.stateless_uniform(shape, action_seed)
        else:
            action = tf.random.stateless_uniform([batch, seq], action_seed)
            action = tf.gather(_share_per_word(action, *words), positions, batch_dims=1)
        random_ids = tf.random.stateless_uniform(
            shape, random_id_seed, minval=0, maxval=self.vocab_size, dtype=tf.int32)
        new_ids = tf.where(action < self.mask_token_rate, self.mask_id, tf.where(
            action < self.mask_token_rate + self.random_token_rate, random_ids, targets))
        rows = tf.broadcast_to(tf.range(batch)[:, tf.newaxis], shape)
        # Unused slots write to an extra column, cut off after (no boolean_mask: fewer ops).
        index = tf.stack([rows, tf.where(valid, positions, seq)], -1)  # [b, p, 2]
        masked_ids = tf.tensor_scatter_nd_update(tf.pad(ids, [[0, 0], [0, 1]]), index, new_ids)
        return {
            "input_word_ids": masked_ids[:, :seq],
            "masked_lm_positions": positions,
            "masked_lm_ids": targets,
            "masked_lm_weights": tf.cast(valid, tf.float32),
        }

    @property
    def is_continuation(self):
        """The bool `[vocab_size]` word-continuation table of whole-word masking (None without it)."""
        return self._is_continuation

    def prediction_counts(self, input_word_ids):
        """int32 `[batch]`: how many tokens `__call__` selects in each row (at most; whole words
        may stop short): `min(max_predictions_per_seq, max(1, round(n * masked_lm_prob)))`."""
        ids = tf.cast(tf.convert_to_tensor(input_word_ids), tf.int32)
        num_maskable = tf.reduce_sum(tf.cast(self._maskable(ids), tf.int32), 1)  # [b]
        count = tf.maximum(1, tf.cast(tf.round(
            tf.cast(num_maskable, tf.float32) * self.masked_lm_prob), tf.int32))
        return tf.where(num_maskable > 0, tf.minimum(count, self.max_predictions_per_seq), 0)

    def _maskable(self, ids):
        return tf.reduce_all(
            tf.not_equal(ids[:, :, tf.newaxis], tf.constant(self.unselectable_ids, tf.int32)), -1)

    def _words(self, ids, maskable):
        """`(starts, word)` `[b, s]`: a piece starts a word; the index of its word in the row."""
        # A word starts at a maskable piece that is not "##..." or follows a special token.
        previous_maskable = tf.pad(maskable[:, :-1], [[0, 0], [1, 0]])
        continues = tf.gather(self._is_continuation, ids) & previous_maskable
        starts = maskable & ~continues
        return starts, tf.cumsum(tf.cast(starts, tf.int32), axis=1) - 1

    def _select(self, ids, maskable, seed, words=None):
        """Positions of `k` random maskable tokens (or whole `words`) per row, `seq` where unused."""
        batch, seq = tf.shape(ids)[0], tf.shape(ids)[1]
        count = self.prediction_counts(ids)

        score = tf.random.stateless_uniform([batch, seq], seed)  # random order of candidates
        if words is not None:
            score = _share_per_word(score, *words)  # a word's pieces sort together
        score = tf.where(maskable, score, 2.0)  # never before a maskable token
        if not self.whole_word_masking:
            # The k lowest scores; top_k over at most max_predictions_per_seq slots.
            width = tf.minimum(seq, self.max_predictions_per_seq)
            _, lowest = tf.math.top_k(-score, k=width)  # [b, width]
            return tf.where(tf.range(width)[tf.newaxis, :] < count[:, tf.newaxis], lowest, seq)

        order = tf.argsort(score, axis=1, stable=True)  # pieces of a word stay together
        sorted_maskable = tf.gather(maskable, order, batch_dims=1)
        taken = tf.cumsum(tf.cast(sorted_maskable, tf.int32), axis=1)  # [b, s]
        # A word fits if the running count at its last piece is within `count`.
        sorted_word = tf.gather(words[1], order, batch_dims=1)
        segment = tf.range(batch)[:, tf.newaxis] * seq + tf.maximum(sorted_word, 0)
        at_word_end = tf.math.unsorted_segment_max(  # special tokens do not count
            tf.reshape(tf.where(sorted_maskable, taken, 0), [-1]), tf.reshape(segment, [-1]),
            batch * seq)
        taken = tf.gather(at_word_end, segment)  # [b, s]
        sorted_selected = sorted_maskable & (taken <= count[:, tf.newaxis])
        return tf.where(sorted_selected, order, seq)  # positions, in random order


def _share_per_word(values, starts, word):
    """`[b, s]` values -> every piece takes the value at its word's first piece."""
    batch, seq = tf.shape(values)[0], tf.shape(values)[1]
    row = tf.broadcast_to(tf.range(batch)[:, tf.newaxis], [batch, seq])
    # Scatter the starts' values to [b, word], gather them back per piece.
    start_index = tf.stack([tf.boolean_mask(row, starts), tf.boolean_mask(word, starts)], 1)
    word_values = tf.scatter_nd(start_index, tf.boolean_mask(values, starts), [batch, seq])
    return tf.gather(word_values, tf.maximum(word, 0), batch_dims=1)

