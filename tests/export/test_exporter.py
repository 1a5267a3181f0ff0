"""export_model's layout and refusals (checked before anything is written); parity_table; load_model."""

import os

import pytest

import subprocess
import sys

from keras_bert.export.exporter import (_move_into_place, _reserve_version, export_model, export_paths, load_model,
                                        parity_table)
from keras_bert.export.verify import ExportReport, ParityRow


def test_export_paths_follow_tf_serving_layout():
    assert export_paths("base", "sst2", 3) == {
        "savedmodel": os.path.join("base", "sst2", "3"), "tflite": os.path.join("base", "sst2", "tflite", "3"),
        "onnx": os.path.join("base", "sst2", "onnx", "3"), "hub": os.path.join("base", "sst2", "hub", "3"),
        "mediapipe": os.path.join("base", "sst2", "mediapipe", "3")}


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(name="my model"), ValueError, "Model name 'my model' must be letters, digits"),
    (dict(name="m", formats=("savedmodel", "pb")), ValueError, r"Unknown format\(s\) \['pb'\]"),
    (dict(name="m", version=0), ValueError, "version must be a positive integer, got 0"),
    (dict(name="old", version=1), FileExistsError, r"Version 1 of 'old' already exists .* --overwrite"),
])
def test_bad_requests_are_refused_before_exporting(tmp_path, kwargs, error, message):
    os.makedirs(tmp_path / "old" / "1")
    with pytest.raises(error, match=message):
        export_model(None, base_dir=str(tmp_path), **kwargs)


def test_parity_table_joins_every_format_and_load_model_names_what_is_missing(tmp_path):
    reports = {"onnx": ExportReport("a", [ParityRow("onnx", "serve", "logits")]),
               "tflite": ExportReport("b", [ParityRow("tflite", "serve", "logits")])}
    assert [line.split()[0] for line in parity_table(reports).splitlines()] == ["artifact", "onnx", "tflite"]
    with pytest.raises(FileNotFoundError, match="Model file .*missing.keras does not exist"):
        load_model(tmp_path / "missing.keras")
    with pytest.raises(FileNotFoundError, match="pass a .keras file or a checkpoint directory"):
        load_model(tmp_path / "nothing_here")


def test_versions_are_reserved_exclusively_and_a_killed_exports_folder_is_taken_over(tmp_path):
    model_dir = str(tmp_path / "m")
    os.makedirs(os.path.join(model_dir, "onnx", "1"))  # a version of any format is taken
    assert _reserve_version(model_dir, "m", None, ["savedmodel"], False) == (2, os.path.join(model_dir, ".tmp-2"))
    assert _reserve_version(model_dir, "m", None, ["savedmodel"], False)[0] == 3  # 2 is being written
    with pytest.raises(FileExistsError, match=rf"Version 2 of 'm' is being exported by another process \(pid {os.getpid()}"):
        _reserve_version(model_dir, "m", 2, ["savedmodel"], False)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    with open(os.path.join(model_dir, ".tmp-2", "pid"), "w", encoding="utf-8") as f:
        f.write(dead.stdout.strip())  # its writer was killed
    assert _reserve_version(model_dir, "m", 2, ["savedmodel"], False)[0] == 2


def test_overwrite_of_a_symlinked_version_replaces_the_link_not_its_target(tmp_path):
    target, final, staging = tmp_path / "elsewhere", tmp_path / "m" / "1", tmp_path / "m" / ".tmp-1"
    (target / "variables").mkdir(parents=True)
    (target / "saved_model.pb").write_text("old")
    os.makedirs(staging / "1")
    (staging / "1" / "saved_model.pb").write_text("new")
    os.symlink(target, final)
    _move_into_place(str(staging / "1"), str(final), str(staging))
    assert not os.path.islink(final) and (final / "saved_model.pb").read_text() == "new"
    assert (target / "saved_model.pb").read_text() == "old" and os.listdir(staging) == []


def test_default_seq_length_fits_a_model_of_fewer_than_128_positions():
    """tools/export.py without --seq_length on a model of 64 positions was refused (it asked for 128)."""
    import keras_bert
    from keras_bert.export.exporter import default_seq_length

    config = dict(vocab_size=100, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32)
    assert default_seq_length(keras_bert.build_pretrainer(keras_bert.BertConfig(**config,
                                                                              max_position_embeddings=64))) == 64
    assert default_seq_length(keras_bert.build_encoder(keras_bert.BertConfig(**config))) == 128


def test_a_format_that_cannot_convert_is_a_failed_row_and_the_others_are_written(tmp_path, monkeypatch):
    """A converter's refusal (`verify.ConversionError`) is that format's FAIL row with its first line; the
    export goes on, writes the other formats, and leaves no folder for the failed one."""
    from keras_bert.export import formats, verify

    def cannot(model, path, job):
        os.makedirs(path)  # a half-written folder, removed
        raise verify.ConversionError("'tf.TensorListReserve' op requires element_shape to be static\nmore")

    def writes(model, path, job):
        os.makedirs(path)
        return ExportReport(path, [ParityRow("fine", "-", "x")])

    monkeypatch.setattr(formats, "FORMAT_RECORDS", formats.FORMAT_RECORDS + (
        formats.ExportFormat("broken", "broken", cannot), formats.ExportFormat("fine", "fine", writes)))
    reports = export_model(None, "m", formats=["broken", "fine"], base_dir=str(tmp_path))
    assert reports["fine"].ok and os.path.isdir(tmp_path / "m" / "fine" / "1")
    assert not reports["broken"].ok and not os.path.exists(tmp_path / "m" / "broken")
    assert "FAIL ('tf.TensorListReserve' op requires element_shape to be static)" in reports["broken"].table()
