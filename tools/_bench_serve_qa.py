"""bench_serve's QA peer (the windows and span decoding transformers 5 no longer has a pipeline
for) and where the time goes, ours against the peer's. See tools/bench_serve.py."""

import os

import numpy as np

from _bench_common import round_robin_ms

QUESTION = "What does the speaker say about the king?"  # one question: the same windows on both sides
QA_SEQ_LENGTH, DOC_STRIDE = 384, 128  # SQuAD's and the old transformers QA pipeline's defaults
HF_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def qa_windows(tokenizer, contexts):
    """The peer's windows of `contexts` (torch tensors): `QUESTION` + context pieces, `DOC_STRIDE` apart."""
    max_doc = QA_SEQ_LENGTH - 3 - len(tokenizer.tokenize(QUESTION))
    return tokenizer([QUESTION] * len(contexts), contexts, truncation="only_second", max_length=QA_SEQ_LENGTH,
                     stride=max_doc - DOC_STRIDE, return_overflowing_tokens=True,
                     return_offsets_mapping=True, padding="longest", return_tensors="pt")


def decode_answers(enc, start_logits, end_logits, contexts, max_answer_length=30, top=20):
    """The best context span over each example's windows, as `squad_postprocess` picks it: the
    `top` best starts and ends of each window, start + end logit, at most `max_answer_length`
    pieces, a start only in its max-context window (run_squad.py's rule: min(left, right) +
    0.01 * window length; the first best window wins), the first best window's span."""
    examples = enc["overflow_to_sample_mapping"].numpy()
    windows = []  # per window: context mask, piece index of each position, max-context score
    for window, example in enumerate(examples):
        context = np.array([s == 1 for s in enc.sequence_ids(window)]) & (enc["attention_mask"][window].numpy() == 1)
        local = np.cumsum(context) - 1  # position -> index in the window's context
        length = context.sum()
        k = int((examples[:window] == example).sum())  # the example's k-th window: pieces k * stride ...
        score = np.minimum(local, length - 1 - local) + 0.01 * length
        windows.append((context, k * DOC_STRIDE + local, score))
    best_window = {}  # (example, piece) -> its max-context window (the first best)
    for window, (context, piece, score) in enumerate(windows):
        for p, sc in zip(piece[context], score[context]):
            key = (examples[window], p)
            if key not in best_window or sc > best_window[key][0]:
                best_window[key] = (sc, window)
    best = [(-np.inf, "") for _ in contexts]
    for window, (context, piece, _) in enumerate(windows):
        example = examples[window]
        start_ok = np.array([ok and best_window[(example, p)][1] == window for ok, p in zip(context, piece)])
        start = np.where(start_ok, start_logits[window], -np.inf)
        end = np.where(context, end_logits[window], -np.inf)
        starts, ends = np.argsort(-start_logits[window], kind="stable")[:top], np.argsort(-end_logits[window], kind="stable")[:top]
        offsets = enc["offset_mapping"][window].numpy()
        for s in starts:
            for e in ends:
                score = start[s] + end[e]
                if e >= s and e - s + 1 <= max_answer_length and score > best[example][0]:
                    best[example] = (score, contexts[example][offsets[s][0]:offsets[e][1]])
    return [answer for _, answer in best]


def stage_profile(work, texts):
    """Batch-1 milliseconds (median) of each stage: ours = the `classify` signature and `serve_ids` on
    the same ids (model + head; the rest is tokenization, packing and labels, in the graph); the
    peer's = its tokenizer, its model's forward pass and the pipeline around them."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    import torch  # pylint: disable=import-outside-toplevel
    import transformers  # pylint: disable=import-outside-toplevel
    from _bench_serve_contestants import hf_model  # pylint: disable=import-outside-toplevel (it imports this file)

    loaded = tf.saved_model.load(os.path.join(work, "classification", "savedmodel", "1"))
    model, tokenizer = hf_model(work, "classification")
    pipe = transformers.pipeline("text-classification", model=model, tokenizer=tokenizer, device=-1, top_k=None)

    def ids(text):
        encoded = tokenizer([text], return_tensors="np")
        return {ours: tf.constant(encoded[theirs], tf.int32) for ours, theirs in
                zip(("input_word_ids", "input_mask", "input_type_ids"), HF_INPUTS)}

    def forward(text):
        with torch.no_grad():
            model(**{n: tokenizer([text], return_tensors="pt")[n] for n in HF_INPUTS})

    stages = {"ours: classify signature": lambda t: loaded.signatures["classify"](text_a=tf.constant([t])),
              "ours: serve_ids (model + head)": lambda t: loaded.signatures["serve_ids"](**ids(t)),
              "peer: pipeline": lambda t: pipe([t]), "peer: tokenizer": lambda t: tokenizer([t], return_tensors="pt"),
              "peer: tokenizer + forward": forward}
    times = round_robin_ms(stages, texts)  # the first text warms up
    print("stages at batch 1 (median ms): " + ", ".join(f"{n} {np.median(t):.1f}" for n, t in times.items()))


def qa_stage_profile(work, contexts, repeats=3):
    """One `answer` batch split (median ms of `repeats`): ours = the signature and `serve_ids` on the
    same windows (the model: the rest is tokenization, windows and span picking, in the graph); the
    peer's = its tokenizer (windows), its forward pass and the numpy decode."""
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    import tensorflow_text  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    import torch  # pylint: disable=import-outside-toplevel
    from _bench_serve_contestants import hf_model  # pylint: disable=import-outside-toplevel (it imports this file)

    loaded = tf.saved_model.load(os.path.join(work, "qa", "savedmodel", "1"))
    model, tokenizer = hf_model(work, "qa")
    enc = qa_windows(tokenizer, contexts)
    ids = {ours: tf.constant(enc[theirs].numpy(), tf.int32) for ours, theirs in
           zip(("input_word_ids", "input_mask", "input_type_ids"), HF_INPUTS)}

    def forward(_=None):
        with torch.no_grad():
            return model(**{name: enc[name] for name in HF_INPUTS})

    out = forward()
    stages = {"ours: answer signature": lambda c: loaded.signatures["answer"](
                  question=tf.constant([QUESTION] * len(c)), context=tf.constant(c)),
              "ours: serve_ids on the same windows": lambda _: loaded.signatures["serve_ids"](**ids),
              "peer: tokenizer (windows)": lambda c: qa_windows(tokenizer, c), "peer: forward": forward,
              "peer: decode": lambda c: decode_answers(enc, out.start_logits.numpy(), out.end_logits.numpy(), c)}
    times = round_robin_ms(stages, [contexts] * (repeats + 1))  # the first round warms up
    windows, width = ids["input_word_ids"].shape
    print(f"stages of one batch of {len(contexts)} contexts ({windows} windows of {width}; median ms): "
          + ", ".join(f"{n} {np.median(t):.0f}" for n, t in times.items()))
