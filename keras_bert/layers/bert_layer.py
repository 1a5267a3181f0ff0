"""The base of keras_bert's layers: constructor arguments are both attributes and config."""

import keras


class BertLayer(keras.layers.Layer):
    """A Keras layer whose `get_config` is the arguments it stored with `store_arguments`.

    Example:
        >>> class Scale(BertLayer):
        ...     def __init__(self, factor=2.0, **kwargs):
        ...         super().__init__(**kwargs)
        ...         self.store_arguments(factor=factor)
        >>> Scale(3.0).get_config()["factor"]
        3.0
    """

    def store_arguments(self, **arguments):
        """Sets each argument as an attribute and adds it to the layer's config."""
        self._argument_names = tuple(arguments)
        for name, value in arguments.items():
            setattr(self, name, value)

    def get_config(self):
        config = super().get_config()
        config.update({name: getattr(self, name) for name in self._argument_names})
        return config
