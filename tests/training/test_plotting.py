"""plot_curves: a PNG of the epoch and held-out curves; no epoch, no plot."""

import pytest

from keras_bert.training import plot_curves


def test_plot_curves_writes_a_png(tmp_path):
    rows = [{"step": s, "kind": kind, "loss": 5.0 / s, "mlm_accuracy": 0.1 * s, "nsp_accuracy": 0.5}
            for s in (1, 2, 3) for kind in ("epoch_end", "validation")]
    path = plot_curves(rows, str(tmp_path / "curves.png"))
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="epoch_end"):
        plot_curves([], str(tmp_path / "none.png"))
