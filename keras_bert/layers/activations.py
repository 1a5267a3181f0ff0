"""The activations BERT uses, by the names `BertConfig.hidden_act` carries.

GELU has two meanings (docs/DESIGN.md, known traps): "gelu" is the exact erf form
(Hugging Face), "gelu_tanh" the tanh approximation (Google's modeling.py).
Both are written with `erf`/`tanh` explicitly: Keras's built-in GELU
lowers to `Erfc` on TensorFlow, which tf2onnx cannot convert.
"""

import math

from keras import ops


def gelu(x):
    """Exact GELU: 0.5 * x * (1 + erf(x / sqrt(2)))."""
    x = ops.convert_to_tensor(x)  # numpy in: numpy * torch.Tensor would fail on PyTorch
    return 0.5 * x * (1.0 + ops.erf(x * (1.0 / math.sqrt(2.0))))


def gelu_tanh(x):
    """Google BERT's GELU: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))."""
    x = ops.convert_to_tensor(x)
    return 0.5 * x * (1.0 + ops.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)))


_ACTIVATIONS = {"gelu": gelu, "gelu_tanh": gelu_tanh, "relu": ops.relu}


def get_activation(name):
    """Returns the activation function for a `BertConfig.hidden_act` name."""
    if name not in _ACTIVATIONS:
        raise ValueError(f"Unknown activation {name!r}; expected one of {sorted(_ACTIVATIONS)}.")
    return _ACTIVATIONS[name]
