"""Helpers shared by the export tests."""

import os

import keras
import numpy as np

FIXTURES = "tests/data/fixtures"


def randomize(model, seed=0, scale=0.2):
    """Sets every weight to random values (non-zero biases, like a trained model; zero biases
    get folded away by tf2onnx and would hide the fusion patterns a real model has)."""
    rng = np.random.default_rng(seed)
    weights = []
    for w in model.get_weights():
        if w.ndim == 1 and w.shape[0] > 1 and np.all(w == 1.0):  # LayerNorm gamma stays near 1
            weights.append((1.0 + scale * rng.standard_normal(w.shape)).astype(w.dtype))
        else:
            weights.append((scale * rng.standard_normal(w.shape)).astype(w.dtype))
    model.set_weights(weights)
    return model


def save_tiny_classifier(folder, minilm_dir, num_classes=2, labels=None, num_layers=1, seed=4):
    """A tiny randomized classifier saved as `folder/sentiment.keras`, with MiniLM's first 3000
    tokens as its vocab.txt next to it (a fine-tuned model as a user has it); returns the path."""
    import keras_bert  # pylint: disable=import-outside-toplevel

    with open(os.path.join(minilm_dir, "vocab.txt"), encoding="utf-8") as f:
        vocab = f.read().split("\n")[:3000]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    config = keras_bert.BertConfig(vocab_size=3000, hidden_size=32, num_layers=num_layers, num_heads=2,
                                   intermediate_size=64)
    task_config = {"labels": list(labels)} if labels else None
    model = keras_bert.build_classifier(config, num_classes=num_classes, task_config=task_config)
    randomize(model, seed=seed).save(folder / "sentiment.keras")
    return str(folder / "sentiment.keras")


def compile_and_fit(model, dataset, steps):
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(dataset.repeat(), steps_per_epoch=steps, epochs=1, verbose=0)
    return model


def gelu_erf_onnx():
    """A hand-built ONNX graph `y = erf(x * 0.7071...) + bias` (tf2onnx's GELU shape), plus a dead
    `Neg` node and an unused initializer for the graph clean-up to drop."""
    from onnx import TensorProto, helper, numpy_helper

    initializers = [numpy_helper.from_array(np.array(1 / np.sqrt(2), np.float32), "half_sqrt2"),
                    numpy_helper.from_array(np.array([0.5, -1.0], np.float32), "bias"),
                    numpy_helper.from_array(np.zeros(3, np.float32), "unused")]
    nodes = [helper.make_node("Add", ["erf", "bias"], ["y"], name="add"),  # out of order on purpose
             helper.make_node("Mul", ["x", "half_sqrt2"], ["scaled"], name="mul"),
             helper.make_node("Erf", ["scaled"], ["erf"], name="erf"),
             helper.make_node("Neg", ["x"], ["dead"], name="neg")]
    graph = helper.make_graph(nodes, "gelu", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 2])], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def run_onnx(model, x):
    import onnxruntime

    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(["y"], {"x": x})[0]
