"""One hop of the cross-backend .keras test: load (or build) a pretrainer, check it, save it.

Imported by tests/models/test_keras_file_across_backends.py and run there in-process
(TensorFlow) and in fresh interpreters (JAX, PyTorch).
"""

import keras
import numpy as np

import keras_bert
import keras_bert.models  # noqa: F401  registers the classes a .keras file names (keras_bert imports lazily)


def hop(load_path, save_path, data_path):
    """Loads `load_path` ("-": builds a tiny pretrainer), saves it to `save_path`.

    `data_path` (.npz) holds the inputs, the weights and the outputs of the previous hop.
    Returns (backend, max abs output difference, weights bitwise equal) or None when built.
    """
    result = None
    if load_path == "-":
        model = keras_bert.build_pretrainer(keras_bert.BertConfig(
            vocab_size=60, hidden_size=16, num_layers=2, num_heads=2, intermediate_size=32,
            max_position_embeddings=32))
        rng = np.random.default_rng(0)
        for weight in model.weights:  # away from the initializers' zeros and ones
            weight.assign(rng.normal(0.0, 0.5, weight.shape).astype("float32"))
        mask = np.array([[1] * 8, [1] * 5 + [0] * 3], "int32")
        x = {"input_word_ids": rng.integers(5, 60, (2, 8)).astype("int32") * mask, "input_mask": mask,
             "input_type_ids": np.zeros((2, 8), "int32"),
             "masked_lm_positions": np.array([[1, 2, 6], [1, 3, 0]], "int32")}
        np.savez(data_path, **x, **{"weight_" + str(i): keras.ops.convert_to_numpy(w)
                                    for i, w in enumerate(model.weights)})
        out = model(x, training=False)
    else:
        model = keras.saving.load_model(load_path, safe_mode=True)
        data = dict(np.load(data_path))
        x = {k: v for k, v in data.items() if k.startswith(("input_", "masked_"))}
        same = all(np.array_equal(keras.ops.convert_to_numpy(w), data["weight_" + str(i)])
                   for i, w in enumerate(model.weights))
        assert model.get_layer("mlm_head").embedding_layer is model.encoder.embeddings
        out = model(x, training=False)
        diff = max(float(np.abs(keras.ops.convert_to_numpy(out[k]) - data["out_" + k]).max())
                   for k in ("mlm_logits", "nsp_logits"))
        result = (keras.backend.backend(), diff, same)
    data = dict(np.load(data_path))
    data.update({"out_" + k: keras.ops.convert_to_numpy(v) for k, v in out.items()})
    np.savez(data_path, **data)
    model.save(save_path)
    return result
