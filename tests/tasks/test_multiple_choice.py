"""MultipleChoiceTask: SWAG-style files, Hugging Face's BertForMultipleChoice numbers both ways, the
`choose` signature from raw text (export's own check of it runs in a fresh process)."""

import csv
import json

import numpy as np
import pytest

from keras_bert.checkpoints import load_checkpoint, save_checkpoint
from keras_bert.models import MultipleChoiceHead, build_multiple_choice
from keras_bert.tasks import TASKS
from keras_bert.tasks.multiple_choice import MultipleChoiceTask

CONTEXTS = ["The ferry left Helsinki twenty minutes late.", "She opened the old piano and"]
ENDINGS = [["It reached Tallinn by noon.", "Penguins wrote the report.", "The ferry sang.", "Nobody slept."],
           ["played a waltz.", "the ferry left.", "ate the moon.", "dried the river."]]


def _write(path, rows, fieldnames):
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fieldnames)
        writer.writeheader()
        writer.writerows(rows)
    return str(path)


def swag_csv(path, contexts=CONTEXTS, endings=ENDINGS, labels=(0, 0)):
    rows = [dict(context=c, label=l, **{f"ending{i}": e for i, e in enumerate(row)})
            for c, row, l in zip(contexts, endings, labels)]
    return _write(path, rows, ["context"] + [f"ending{i}" for i in range(len(endings[0]))] + ["label"])


def test_is_one_task_among_the_tasks():
    assert TASKS["multiple_choice"] is MultipleChoiceTask


def test_reads_endings_in_columns_or_as_a_json_list(tokenizer, tmp_path):
    task = MultipleChoiceTask(tokenizer, 24, 2)
    features, labels = next(iter(task.read(swag_csv(tmp_path / "swag.csv"), training=False)))
    assert features["input_word_ids"].shape == (2, 4, 24) and labels.numpy().tolist() == [0, 0]
    ids = features["input_word_ids"].numpy()
    assert (ids[:, :, 0] == tokenizer.cls_id).all() and (features["input_type_ids"].numpy().max(-1) == 1).all()
    with open(tmp_path / "swag.jsonl", "w", encoding="utf-8") as f:
        for context, row in zip(CONTEXTS, ENDINGS):
            f.write(json.dumps({"passage": context, "options": row, "answer": 2}) + "\n")
    listed = MultipleChoiceTask(tokenizer, 24, 2, context="passage", endings=["options"], label="answer")
    features_json, answers = next(iter(listed.read(str(tmp_path / "swag.jsonl"), training=False)))
    np.testing.assert_array_equal(features_json["input_word_ids"], ids)
    assert answers.numpy().tolist() == [2, 2]


def test_bad_files_are_refused_in_one_line(tokenizer, tmp_path):
    task = MultipleChoiceTask(tokenizer, 24, 2)
    with pytest.raises(ValueError, match=r"Row 2 of .*: column 'label' \(--label\) holds '4'; expected the right "
                                         r"ending's index, 0 to 3\."):
        task.read(swag_csv(tmp_path / "bad.csv", labels=(1, 4)), training=True)
    with pytest.raises(ValueError, match=r"Column 'ending9' \(--endings\) not found in .*a.csv"):
        MultipleChoiceTask(tokenizer, endings=["ending0", "ending9"]).read(swag_csv(tmp_path / "a.csv"), True)
    path = _write(tmp_path / "list.csv", [{"context": "a", "options": "not json", "label": 0}],
                  ["context", "options", "label"])
    with pytest.raises(ValueError, match=r"Row 1 of .*the endings column \(--endings\) must hold a JSON list"):
        MultipleChoiceTask(tokenizer, endings=["options"]).read(path, True)


def _seeded(model, seed=0):
    rng = np.random.default_rng(seed)
    model.head.set_weights([rng.normal(0, 0.5, w.shape).astype("float32") for w in model.head.get_weights()])
    return model


def _torch(features):
    import torch

    return {"input_ids": torch.tensor(features["input_word_ids"].numpy()).long(),
            "attention_mask": torch.tensor(features["input_mask"].numpy()).long(),
            "token_type_ids": torch.tensor(features["input_type_ids"].numpy()).long()}


def test_logits_equal_transformers_bert_for_multiple_choice_both_ways(minilm_dir, tokenizer, tmp_path):
    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    features, _ = next(iter(MultipleChoiceTask(tokenizer, 32, 2).read(swag_csv(tmp_path / "s.csv"), False)))
    ours = _seeded(build_multiple_choice(load_checkpoint(minilm_dir, model="encoder"),
                                         task_config={"seq_length": 32}))
    save_checkpoint(ours, tmp_path / "ours_hf", format="huggingface")  # keras_bert -> Hugging Face
    assert json.load(open(tmp_path / "ours_hf" / "config.json"))["architectures"] == ["BertForMultipleChoice"]
    theirs = transformers.BertForMultipleChoice.from_pretrained(str(tmp_path / "ours_hf")).eval()
    with torch.no_grad():
        expected = theirs(**_torch(features)).logits.numpy()
    diff = np.abs(np.asarray(ours(features, training=False)) - expected).max()
    print(f"keras_bert -> BertForMultipleChoice: max |logit diff| = {diff:.2e}")
    assert expected.shape == (2, 4) and diff <= 1e-5
    torch.manual_seed(1)  # Hugging Face -> keras_bert: transformers' own seeded head on the real MiniLM
    theirs = transformers.BertForMultipleChoice.from_pretrained(minilm_dir).eval()
    theirs.save_pretrained(tmp_path / "theirs")
    transformers.AutoTokenizer.from_pretrained(minilm_dir).save_pretrained(tmp_path / "theirs")
    loaded = load_checkpoint(str(tmp_path / "theirs"))
    assert isinstance(loaded.head, MultipleChoiceHead) and loaded.task == "multiple_choice"
    with torch.no_grad():
        expected = theirs(**_torch(features)).logits.numpy()
    diff = np.abs(np.asarray(loaded(features, training=False)) - expected).max()
    print(f"BertForMultipleChoice -> load_checkpoint: max |logit diff| = {diff:.2e}")
    assert diff <= 1e-5


@pytest.mark.slow
def test_choose_signature_from_raw_text_equals_keras_in_a_fresh_process(tokenizer, tmp_path):
    """export checks `choose` against Keras in a fresh process that imports neither keras nor keras_bert
    (export/verify_worker.py: the report's choose rows); here, read back in this process (a second fresh
    process cost ~7 CPU-s), it equals Keras on the task reader's features of the same raw texts."""
    import tensorflow as tf

    import keras_bert
    from keras_bert.export import export_saved_model

    encoder = keras_bert.build_encoder(keras_bert.BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32,
        max_position_embeddings=64))
    model = _seeded(build_multiple_choice(encoder, task_config={"seq_length": 32}), seed=3)
    report = export_saved_model(model, str(tmp_path / "mc" / "1"), tokenizer=tokenizer, seq_length=32)
    assert report.ok, report
    assert any(row.signature == "choose" for row in report.rows)  # export checked it against Keras
    choose = tf.saved_model.load(str(tmp_path / "mc" / "1")).signatures["choose"]
    out = choose(context=tf.constant(CONTEXTS), endings=tf.constant(ENDINGS))
    served = {k: np.asarray(v).tolist() for k, v in out.items()}
    features, _ = next(iter(MultipleChoiceTask(tokenizer, 32, 2).read(swag_csv(tmp_path / "s.csv"), False)))
    logits = np.asarray(model(features, training=False))
    np.testing.assert_allclose(served["logits"], logits, atol=1e-5)
    assert served["label"] == logits.argmax(-1).tolist()
    np.testing.assert_allclose(np.sum(served["probabilities"], -1), 1.0, atol=1e-6)
