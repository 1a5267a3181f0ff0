"""Parity rows: what compare() accepts and fails, the table, and the error a failed export raises."""

import numpy as np
import pytest

from keras_bert.export.verify import ExportReport, ParityError, compare, format_table, prepare_output_dir


def test_compare_checks_real_tokens_only_when_given_the_mask():
    mask = np.array([[1, 1, 0]])
    want = np.zeros((1, 3, 2), np.float32)
    got = want.copy()
    got[0, 2] = 1.0  # a padding position differs
    assert compare("onnx", "serve", {"sequence_output": want}, {"sequence_output": got}, 1e-5)[0].ok is False
    row, = compare("onnx", "serve", {"sequence_output": want}, {"sequence_output": got}, 1e-5, input_mask=mask)
    assert row.ok and row.max_abs_diff == 0.0


def test_compare_reports_missing_outputs_shapes_and_top1_agreement():
    want = {"logits": np.array([[2.0, 1.0], [0.0, 1.0]], np.float32), "ids": np.array([1, 2])}
    rows = compare("tflite", "serve", want, {"logits": want["logits"][::-1].copy()}, tolerance=None,
                   min_agreement=0.5)
    assert (rows[0].agreement, rows[0].ok) == (0.0, False)
    assert (rows[1].ok, rows[1].note) == (False, "missing; artifact has ['logits']")
    row, = compare("tflite", "serve", {"logits": want["logits"]}, {"logits": want["logits"][:1]}, 1e-5)
    assert row.note == "shape (1, 2) != Keras (2, 2)"


def test_a_failed_report_raises_with_the_table(tmp_path):
    rows = compare("savedmodel", "serve_ids", {"logits": np.ones((1, 2))}, {"logits": np.zeros((1, 2))}, 1e-5)
    table = format_table(rows)
    assert table.splitlines()[0].split() == ["artifact", "signature", "output", "max_abs_diff", "top1_agree",
                                             "tolerance", "status"]
    assert table.splitlines()[1].split() == ["savedmodel", "serve_ids", "logits", "1.00e+00", "100.0%",
                                             "1e-05", "FAIL"]
    with pytest.raises(ParityError, match="Export out does not match the Keras model"):
        ExportReport("out", rows).raise_if_failed()
    (tmp_path / "model.onnx").write_text("x")
    with pytest.raises(FileExistsError, match="pass overwrite=True"):
        prepare_output_dir(tmp_path, [str(tmp_path / "model.onnx")], overwrite=False)
