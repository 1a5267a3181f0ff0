"""TrainingLog: the per-step CSV, cut back to the step a resumed run starts from."""

import csv

from keras_bert.training import TrainingLog


def test_training_log_is_cut_back_to_the_resumed_step(tmp_path):
    path = tmp_path / "log.csv"
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["step", "epoch", "kind", "loss"])
        writer.writerows([[s, 0, "train", 1.0 / s] for s in range(1, 8)])
    log = TrainingLog(str(path), start_step=4)
    assert [r["step"] for r in log.rows] == [1, 2, 3, 4]
    with open(path) as f:
        assert len(f.read().splitlines()) == 5
