"""Training curves as a PNG (matplotlib, no display needed)."""

import os

_LOSSES = ("loss", "mlm_loss", "nsp_loss")
_ACCURACIES = ("mlm_accuracy", "nsp_accuracy", "accuracy")


def plot_curves(rows, path, title="Training"):
    """Draws loss and accuracy against the step from `TrainingLog.rows`; writes a PNG.

    Each point is the mean over one Keras epoch (the `epoch_end` rows); held-out
    results (`validation` rows) are drawn dashed.

    Args:
        rows: list of dicts with `step`, `kind` and metric values (see `TrainingLog`).
        path: output `.png` path.
        title: figure title.

    Returns:
        `path`.

    Example:
        >>> plot_curves(log.rows, "run/curves.png")
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    train = [r for r in rows if r.get("kind") == "epoch_end"]
    validation = [r for r in rows if r.get("kind") == "validation"]
    if not train:
        raise ValueError("plot_curves needs at least one finished epoch (an 'epoch_end' row).")
    figure, (loss_axes, accuracy_axes) = plt.subplots(1, 2, figsize=(11, 4.2))
    for axes, names in ((loss_axes, _LOSSES), (accuracy_axes, _ACCURACIES)):
        for index, name in enumerate(names):
            for kind_rows, style, kind in ((train, "-o", "train"), (validation, "--s", "held-out")):
                points = [(r["step"], r[name]) for r in kind_rows if name in r]
                if points:
                    axes.plot(*zip(*points), style, color=f"C{index}", markersize=3, label=f"{kind} {name}")
        axes.set_xlabel("step")
        axes.grid(alpha=0.3)
        if axes.lines:
            axes.legend(fontsize=8)
    loss_axes.set_title("loss")
    accuracy_axes.set_title("accuracy")
    accuracy_axes.set_ylim(0, 1)
    figure.suptitle(title)
    figure.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
