"""ModernBERT's Hugging Face weight names: canonical names, the `model.` prefix, reading and writing them.

Canonical names are Hugging Face's without the base-model prefix (ModernBERT has no Google format):
`embeddings.tok_embeddings.weight`, `layers.3.attn.Wqkv.weight`, ... The heads' weights sit outside
the prefix in Hugging Face's files (`head.dense.weight`, `decoder.bias`, `classifier.weight`) and keep
those names. `head.*` is one prediction head that `ModernBertForMaskedLM` applies per token and the
classifiers apply to the pooled vector; keras_bert keeps it in the encoder as its pooler.
"""

import numpy as np

HF_PREFIX = "model."
HEAD_PREFIXES = ("head.", "decoder.", "classifier.")  # outside `model.` in Hugging Face's files
POOLER_PREFIX = "head."  # the encoder's weights a base ModernBertModel file does not hold


def to_canonical(hf_name):
    """A Hugging Face weight name -> canonical (`model.layers.0.mlp.Wi.weight` -> `layers.0.mlp.Wi.weight`)."""
    return hf_name.removeprefix(HF_PREFIX)


def to_huggingface(canonical_name):
    """A canonical name -> its name in a Hugging Face `ModernBertFor*` file (heads keep theirs)."""
    return canonical_name if canonical_name.startswith(HEAD_PREFIXES) else HF_PREFIX + canonical_name


def encoder_variable_names(config):
    """Every canonical name of the encoder's weights for a `ModernBertConfig`, in a fixed order."""
    def norm(prefix):
        return [f"{prefix}.weight"] + ([f"{prefix}.bias"] if config.norm_bias else [])

    def dense(prefix, bias):
        return [f"{prefix}.weight"] + ([f"{prefix}.bias"] if bias else [])

    names = ["embeddings.tok_embeddings.weight"] + norm("embeddings.norm")
    for i in range(config.num_layers):
        names += (norm(f"layers.{i}.attn_norm") if i else []) + dense(f"layers.{i}.attn.Wqkv", config.attention_bias)
        names += dense(f"layers.{i}.attn.Wo", config.attention_bias) + norm(f"layers.{i}.mlp_norm")
        names += dense(f"layers.{i}.mlp.Wi", config.mlp_bias) + dense(f"layers.{i}.mlp.Wo", config.mlp_bias)
    return names + norm("final_norm") + dense("head.dense", config.classifier_bias) + norm("head.norm")


def load_encoder_weights(encoder, tensors, source="the checkpoint"):
    """Assigns Hugging Face `tensors` (name -> numpy, with or without the `model.` prefix) to a
    `ModernBertEncoder`; returns the canonical names left at their initial values (`head.*`, which a
    base `ModernBertModel` file lacks). Any other missing or mis-shaped weight is a one-line error."""
    canonical = {to_canonical(name): name for name in tensors}  # read one at a time: a lazy file stays lazy
    left = []
    for name, variable, transposed in encoder.named_variables():
        if name not in canonical:
            if name.startswith(POOLER_PREFIX):
                left.append(name)
                continue
            raise ValueError(f"{source} has no weight {to_huggingface(name)!r}; is it a ModernBERT checkpoint "
                             "of the same config.json?")
        value = np.asarray(tensors[canonical[name]], dtype="float32")
        value = value.T if transposed else value
        if tuple(value.shape) != tuple(variable.shape):
            raise ValueError(f"{source}: {to_huggingface(name)} has shape {tuple(value.shape)} but the "
                             f"config.json gives {tuple(variable.shape)}; the folder's files disagree.")
        variable.assign(value)
    return left


def encoder_tensors(encoder, prefix=HF_PREFIX):
    """The encoder's weights as Hugging Face tensors (name -> float32 numpy), `model.`-prefixed
    (a `ModernBertFor*` file; `prefix=""` for a base `ModernBertModel` file)."""
    import keras

    tensors = {}
    for name, variable, transposed in encoder.named_variables():
        value = keras.ops.convert_to_numpy(variable).astype("float32")
        hf_name = name if name.startswith(HEAD_PREFIXES) else prefix + name
        tensors[hf_name] = np.ascontiguousarray(value.T if transposed else value)
    return tensors

