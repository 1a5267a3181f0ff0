"""CheckpointContents: source names and layouts for messages, the vocab.txt it carries."""

from keras_bert.checkpoints.checkpoint_contents import CheckpointContents
from keras_bert.config import BertConfig
from keras_bert.text.text_config import TextConfig

NSP = "cls/seq_relationship/output_weights"


def test_source_names_and_shapes_follow_the_source_layout():
    contents = CheckpointContents(BertConfig(), {}, "HF", source_names={NSP: ("cls.seq_relationship.weight", True)})
    assert contents.source_name(NSP) == "cls.seq_relationship.weight"
    assert contents.source_shape(NSP, (2, 768)) == (768, 2)
    # A name the source keeps as Google does is reported unchanged.
    assert contents.source_name("bert/pooler/dense/bias") == "bert/pooler/dense/bias"
    assert contents.source_shape("bert/pooler/dense/bias", [768]) == (768,)


def test_vocab_file_comes_from_the_text_config(tmp_path):
    assert CheckpointContents(BertConfig(), {}, "x").vocab_file is None
    vocab = str(tmp_path / "vocab.txt")
    assert CheckpointContents(BertConfig(), {}, "x", text_config=TextConfig(vocab)).vocab_file == vocab
