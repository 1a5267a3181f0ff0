"""RoBERTa, XLM-R, ELECTRA and DistilBERT through the family seam: seeded transformers folders load with
equal outputs, and save back as folders transformers loads with equal outputs (right-padded rows, every head)."""

import json
import warnings

import keras
import numpy as np
import pytest

from keras_bert import load_checkpoint, save_checkpoint
from keras_bert.models.model_operations import find_encoder
from keras_bert.models import BertEncoder, BertPretrainer, BertTaskModel

from tests.checkpoints.conftest import randomize

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

TINY = dict(vocab_size=64, hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
            max_position_embeddings=34, type_vocab_size=1, layer_norm_eps=1e-5, hidden_act="gelu")
FAMILIES = {"roberta": ("Roberta", transformers.RobertaConfig), "xlm-roberta": ("XLMRoberta", transformers.XLMRobertaConfig),
            "electra": ("Electra", transformers.ElectraConfig), "distilbert": ("DistilBert", transformers.DistilBertConfig)}
HEADS = ("Model", "ForMaskedLM", "ForSequenceClassification", "ForTokenClassification",
         "ForQuestionAnswering", "ForMultipleChoice")
ELECTRA = dict(TINY, type_vocab_size=2, max_position_embeddings=32, embedding_size=16, layer_norm_eps=1e-12)
DISTILBERT = dict(vocab_size=64, dim=16, n_layers=2, n_heads=2, hidden_dim=32, max_position_embeddings=32)
CONFIGS = {"Electra": ELECTRA, "DistilBert": DISTILBERT}
TOLERANCE = 1e-5
PAD = 1
# Two right-padded rows (<s> ... </s> then RoBERTa's pad id 1); the mask marks the real tokens.
IDS = np.array([[0, 5, 17, 33, 9, 41, 12, 2], [0, 7, 60, 2, PAD, PAD, PAD, PAD]], "int32")
MASK = (IDS != PAD).astype("int32")


def reference(model, ids=IDS, mask=MASK):
    """transformers' outputs (numpy) for the id rows."""
    with torch.no_grad():
        out = model(input_ids=torch.tensor(ids, dtype=torch.long), attention_mask=torch.tensor(mask, dtype=torch.long))
    return {k: v.numpy() for k, v in out.items() if isinstance(v, torch.Tensor)}


def ours(model, suffix, ids=IDS, mask=MASK):
    """Our model's outputs under transformers' output names."""
    inputs = {"input_word_ids": ids, "input_mask": mask, "input_type_ids": np.zeros_like(ids)}
    if suffix == "ForMaskedLM":
        positions = np.broadcast_to(np.arange(ids.shape[1], dtype="int32"), ids.shape)
        out = model(dict(inputs, masked_lm_positions=positions))
        return {"logits": keras.ops.convert_to_numpy(out["mlm_logits"])}
    out = model(inputs)
    if suffix == "Model":
        return {"last_hidden_state": keras.ops.convert_to_numpy(out["sequence_output"]),
                "pooler_output": keras.ops.convert_to_numpy(out["pooled_output"])}
    if isinstance(out, dict):
        return {k: keras.ops.convert_to_numpy(v) for k, v in out.items()}
    return {"logits": keras.ops.convert_to_numpy(out)}


def max_difference(theirs, mine, mask):
    """The largest difference over the outputs both have, on real (unpadded) tokens only."""
    worst = 0.0
    for name, value in mine.items():
        if name not in theirs:  # ELECTRA and DistilBERT have no pooler
            continue
        other = theirs[name]
        if value.ndim >= 2 and value.shape[:2] == mask.shape:  # per token: real tokens only
            value, other = value[mask.astype(bool)], other[mask.astype(bool)]
        worst = max(worst, float(np.abs(value - other).max()))
    return worst


def inputs_for(suffix):
    if suffix == "ForMultipleChoice":  # [batch, choices, seq]: the two rows as two choices of each example
        ids = np.stack([IDS, IDS[::-1]])
        return ids, (ids != PAD).astype("int32")
    return IDS, MASK


def hf_model(model_type, suffix, seed):
    stem, config_class = FAMILIES[model_type]
    options = {"num_labels": 3} if suffix in ("ForSequenceClassification", "ForTokenClassification") else {}
    model_class = getattr(transformers, stem + suffix)
    return model_class, randomize(model_class(config_class(**CONFIGS.get(stem, TINY), **options)), seed=seed)


PARITY = {}  # (model_type, suffix) -> (load, save back): the parity table printed at the end


@pytest.mark.parametrize("model_type", sorted(FAMILIES))
@pytest.mark.parametrize("suffix", HEADS)
def test_family_head_equals_transformers_both_ways(model_type, suffix, tmp_path):
    if (model_type, suffix) == ("electra", "ForMultipleChoice"):
        pytest.skip("ElectraForMultipleChoice's SequenceSummary is not BERT's head: refused, see below")
    model_class, theirs = hf_model(model_type, suffix, seed=HEADS.index(suffix))
    theirs.save_pretrained(tmp_path / "hf")
    ids, mask = inputs_for(suffix)
    expected = reference(theirs, ids, mask)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no tokenizer files here: text_config None, with a warning
        loaded = load_checkpoint(tmp_path / "hf", model="pretrainer" if suffix == "ForMaskedLM" else None)
    assert find_encoder(loaded).config.family == model_type.replace("-", "_")
    assert isinstance(loaded, {"Model": keras.Model, "ForMaskedLM": BertPretrainer}.get(suffix, BertTaskModel))
    load_diff = max_difference(expected, ours(loaded, suffix, ids, mask), mask)
    assert load_diff <= TOLERANCE
    if model_type == "distilbert":  # no token types: one row that a fine-tune may move, folded into the positions
        table = find_encoder(loaded).embeddings.token_type_embeddings.embeddings
        table.assign(np.random.default_rng(0).normal(0, 0.3, table.shape).astype("float32"))

    save_checkpoint(loaded, tmp_path / "back", format="huggingface")
    written = json.loads((tmp_path / "back" / "config.json").read_text())
    assert (written["model_type"], written["architectures"]) == (model_type, [model_class.__name__])
    back = model_class.from_pretrained(tmp_path / "back").eval()
    save_diff = max_difference(reference(back, ids, mask), ours(loaded, suffix, ids, mask), mask)
    assert save_diff <= TOLERANCE
    PARITY[(model_type, suffix)] = (load_diff, save_diff)
    print(f"\nparity {model_type} {suffix}: load {load_diff:.2e}, save {save_diff:.2e}")


def test_padded_positions_do_not_change_real_tokens(tmp_path):
    """RoBERTa's positions start at padding_idx + 1 for every row; a padded token's position differs from
    transformers' (padding_idx) but changes nothing on real tokens, as the mask hides it."""
    _, theirs = hf_model("roberta", "Model", seed=7)
    theirs.save_pretrained(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        encoder = load_checkpoint(tmp_path)
    assert (encoder.config.position_offset, encoder.config.type_vocab_size) == (2, 1)
    short = ours(encoder, "Model", IDS[1:, :4], MASK[1:, :4])["last_hidden_state"]
    padded = ours(encoder, "Model", IDS[1:], MASK[1:])["last_hidden_state"][:, :4]
    np.testing.assert_allclose(padded, short, atol=1e-5)


def test_a_folder_without_a_readable_tokenizer_loads_with_one_warning(tmp_path):
    _, theirs = hf_model("xlm-roberta", "Model", seed=8)
    theirs.save_pretrained(tmp_path)
    with pytest.warns(UserWarning, match=r"no text contract read .* sentencepiece tokenizer's files .*feed token ids"):
        encoder = load_checkpoint(tmp_path)
    assert encoder.text_config is None


def test_google_format_keeps_the_family_and_keras_hub_refuses_it(tmp_path):
    """bert_config.json carries the family in keras_bert's own keys (as it carries the erf GELU); a RoBERTa
    written as keras-hub's RobertaBackbone keeps its family too (tests/checkpoints/test_keras_hub_roberta.py);
    keras-hub's BertBackbone cannot hold RoBERTa's positions: one line, before anything is written."""
    _, theirs = hf_model("roberta", "Model", seed=9)
    theirs.save_pretrained(tmp_path / "hf")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        encoder = load_checkpoint(tmp_path / "hf")
        save_checkpoint(encoder, tmp_path / "google", format="google")
        again = load_checkpoint(tmp_path / "google")
    assert again.config == encoder.config
    assert max_difference(ours(encoder, "Model"), ours(again, "Model"), MASK) == 0.0
    with pytest.warns(UserWarning, match=r"RobertaBackbone has no pooler"):
        save_checkpoint(encoder, tmp_path / "hub", format="keras_hub")
    assert json.loads((tmp_path / "hub" / "config.json").read_text())["registered_name"] == "keras_hub>RobertaBackbone"
    with pytest.raises(ValueError, match=r"is a 'bert' model \(positions start at row 2\); keras-hub's "
                                         r"BertBackbone cannot hold it"):
        save_checkpoint(BertEncoder(encoder.config.replace(family="bert")), tmp_path / "b", format="keras_hub")


def test_a_tasks_declared_problem_type_travels_with_its_head(tmp_path):
    """A task outside the table declares its problem_type (as `Task.HF_PROBLEM_TYPE`); the head carries it into
    config.json and back, so the loaded model saves again (issue 28's leftover: no head lists task names)."""
    from keras_bert.models import build_classifier

    _, theirs = hf_model("roberta", "Model", seed=10)
    theirs.save_pretrained(tmp_path / "hf")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        encoder = load_checkpoint(tmp_path / "hf")
    model = build_classifier(encoder, 3, task="my_tags", problem_type="multi_label_classification")
    save_checkpoint(model, tmp_path / "a", format="hf")
    assert json.loads((tmp_path / "a" / "config.json").read_text())["problem_type"] == "multi_label_classification"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = load_checkpoint(tmp_path / "a")
    assert (loaded.task, loaded.head.problem_type) == ("my_tags", "multi_label_classification")
    save_checkpoint(loaded, tmp_path / "b", format="hf")
    assert json.loads((tmp_path / "b" / "config.json").read_text())["architectures"] == [
        "RobertaForSequenceClassification"]


def test_electra_heads_keras_bert_does_not_hold_are_refused_in_one_line(tmp_path):
    _, theirs = hf_model("electra", "ForMultipleChoice", seed=11)
    theirs.save_pretrained(tmp_path)
    with pytest.raises(ValueError, match=r"^keras_bert does not hold ElectraForMultipleChoice \(its head differs"):
        load_checkpoint(tmp_path)


def test_compare_with_transformers_reads_a_roberta_folder(tmp_path):
    """`compare_with_transformers` (convert_checkpoint.py --reference) runs the family's AutoModel and
    AutoTokenizer: a byte-level BPE made of single characters, real sentences and pairs."""
    from keras_bert.checkpoints import compare_with_transformers

    tokens = ["<s>", "<pad>", "</s>", "<unk>", "<mask>", "\u0120"] + [chr(c) for c in range(33, 127)]
    (tmp_path / "vocab.json").write_text(json.dumps({t: i for i, t in enumerate(tokens)}))
    (tmp_path / "merges.txt").write_text("#version: 0.2\n")
    transformers.RobertaTokenizerFast(vocab_file=str(tmp_path / "vocab.json"),
                                      merges_file=str(tmp_path / "merges.txt")).save_pretrained(tmp_path)
    model = randomize(transformers.RobertaModel(transformers.RobertaConfig(
        **dict(TINY, vocab_size=len(tokens), max_position_embeddings=130))), seed=12)
    model.save_pretrained(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diffs = compare_with_transformers(load_checkpoint(tmp_path), str(tmp_path))
    assert diffs["num_examples"] == 7 and max(diffs["sequence_output"], diffs["pooled_output"]) <= TOLERANCE
