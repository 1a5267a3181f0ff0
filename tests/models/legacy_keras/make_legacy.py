"""Writes task models as keras_bert saved them before heads were classes (run on commit af42443)."""
import sys
import numpy as np
import keras_bert
from keras_bert.models import builders
out = sys.argv[1]
config = keras_bert.BertConfig(vocab_size=120, hidden_size=16, num_layers=1, num_heads=2, intermediate_size=32)
models = {
    "classifier": lambda e: builders.build_classifier(e, 3, name="bert_regressor", task="classification", task_config={"labels": ["a", "b", "c"]}),
    "token_classifier": lambda e: builders.build_token_classifier(e, 2, task_config={"labels": ["O", "B-X"]}),
    "span_labeler": lambda e: builders.build_span_labeler(e, task_config={"doc_stride": 16}),
    "embedder": lambda e: builders.build_embedder(e, pooling="cls", normalize=False, task_config={"seq_length": 64}),
}
rng = np.random.default_rng(0)
ids = {"input_word_ids": rng.integers(1, 120, (2, 6)).astype("int32"), "input_mask": np.ones((2, 6), "int32"),
       "input_type_ids": np.zeros((2, 6), "int32")}
for name, build in models.items():
    model = build(builders.build_encoder(config))
    model.set_weights([rng.normal(0, 0.3, w.shape).astype("float32") for w in model.get_weights()])
    model.save(f"{out}/{name}.keras")
    outputs = model(ids, training=False)
    np.savez(f"{out}/{name}.npz", **ids, **({"output": outputs} if not isinstance(outputs, dict) else outputs))
