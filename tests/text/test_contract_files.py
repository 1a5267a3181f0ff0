"""The text contract's JSON fields as people and tools write them, and content-addressed vocab copies."""

import pytest

from keras_bert.text.contract_files import NO_LIMIT, boolean, integer, keep_bytes


@pytest.mark.parametrize("value, expected", [(512, 512), (512.0, 512), ("512", 512), (" 64 ", 64),
                                             (1e30, NO_LIMIT), (None, None)])
def test_integer_accepts_whole_numbers_as_written(value, expected):
    assert integer(value, "model_max_length", "tokenizer_config.json") == expected


@pytest.mark.parametrize("value", [512.5, "many", True, float("nan"), [512]])
def test_integer_refuses_anything_else_naming_file_key_and_value(value):
    with pytest.raises(ValueError, match=r"^tokenizer_config.json: model_max_length is .*; expected a whole"):
        integer(value, "model_max_length", "tokenizer_config.json")


@pytest.mark.parametrize("value, expected", [(True, True), (0, False), ("True", True), (" false", False)])
def test_boolean_accepts_json_and_string_booleans(value, expected):
    assert boolean(value, "do_lower_case", "f.json") is expected


@pytest.mark.parametrize("value", ["yes", 2, None])
def test_boolean_refuses_anything_else(value):
    with pytest.raises(ValueError, match="f.json: do_lower_case is"):
        boolean(value, "do_lower_case", "f.json")


def test_keep_bytes_gives_the_same_path_for_the_same_content():
    first, again, other = keep_bytes(b"[PAD]\n"), keep_bytes(b"[PAD]\n"), keep_bytes(b"[UNK]\n")
    assert first == again != other
    with open(first, "rb") as f:
        assert f.read() == b"[PAD]\n"
