"""ModernBERT's prediction head (Hugging Face's `head`): dense, activation, LayerNorm."""

import keras

from keras_bert.layers.activations import get_activation
from keras_bert.layers.bert_layer import BertLayer


@keras.saving.register_keras_serializable(package="keras_bert")
class ModernBertPredictionHead(BertLayer):
    """`norm(act(dense(x)))` on `[..., hidden]`: what ModernBERT's masked-LM head applies before the
    decoder and its classifiers apply to the pooled vector (one `head` in each Hugging Face model).

    Args:
        hidden_size: width in and out.
        activation: "gelu" (exact erf), "gelu_tanh" or "relu" (`classifier_activation`).
        norm_eps: LayerNorm epsilon.
        norm_bias: a LayerNorm with a bias (beta).
        use_bias: the dense layer with a bias (`classifier_bias`).
        initializer_range: stddev of the truncated-normal initializer.

    Example:
        >>> head = ModernBertPredictionHead(16)
        >>> head(keras.ops.ones((2, 16))).shape
        (2, 16)
    """

    def __init__(self, hidden_size, activation="gelu", norm_eps=1e-5, norm_bias=False, use_bias=False,
                 initializer_range=0.02, **kwargs):
        super().__init__(**kwargs)
        self.store_arguments(hidden_size=hidden_size, activation=activation, norm_eps=norm_eps,
                             norm_bias=bool(norm_bias), use_bias=bool(use_bias),
                             initializer_range=initializer_range)
        self.activation_fn = get_activation(activation)
        self.dense = keras.layers.Dense(
            hidden_size, use_bias=self.use_bias, dtype=self.dtype_policy, name="dense",
            kernel_initializer=keras.initializers.TruncatedNormal(stddev=initializer_range))
        self.norm = keras.layers.LayerNormalization(epsilon=norm_eps, center=self.norm_bias,
                                                    dtype=self.dtype_policy, name="norm")

    def build(self, inputs_shape):
        self.dense.build(inputs_shape)
        self.norm.build(inputs_shape)
        self.built = True

    def call(self, inputs):
        return self.norm(self.activation_fn(self.dense(inputs)))

    def compute_output_shape(self, inputs_shape):
        return tuple(inputs_shape)
