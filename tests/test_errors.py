"""keras_bert.errors: UsageError is a ValueError; make_dir refuses a file where a folder goes."""

import pytest

from keras_bert.errors import UsageError, make_dir


def test_make_dir_creates_parents_and_returns_the_path(tmp_path):
    path = tmp_path / "runs" / "tiny"
    assert make_dir(path) == str(path)
    assert path.is_dir()
    assert make_dir(str(path)) == str(path)  # an existing folder is fine


def test_make_dir_names_the_flag_and_the_file_in_the_way(tmp_path):
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(UsageError, match=r"--output_dir '.*a_file/run': '.*a_file' is a file, not a folder"):
        make_dir(tmp_path / "a_file" / "run", "--output_dir")
    assert issubclass(UsageError, ValueError)  # callers catching ValueError still see bad input
