"""TokenList: a vocabulary's tokens in id order and each token's id, for every tokenizer kind (imports no TensorFlow)."""


class TokenList:
    """A vocabulary's tokens in id order, and each token's id (the Python lookups of a tokenizer).

    The tokenizers are `tf.Module`s, and a `tf.Module` walks every item nested in its attributes
    each time it lists its variables or is saved (`tf.saved_model.save`, each TFLite conversion).
    Held as a tuple and a dict, a 30,522-token vocabulary was half of a tiny classifier's TFLite
    export (float32, float16, int8 and the text model: 20.5 s -> 10.1 s) and of its SavedModel
    (4.0 s -> 2.2 s). A `TokenList` is neither a sequence nor a mapping: the walk sees one item.

    Args:
        tokens: the tokens, id i = item i.
        source: the vocabulary's file, named by errors.

    Example:
        >>> TokenList(["[PAD]", "[UNK]", "hello"], "vocab.txt").token_to_id("hello")
        2
    """

    def __init__(self, tokens, source):
        self.tokens = tuple(tokens)
        self.source = source
        self._ids = {token: i for i, token in enumerate(self.tokens)}

    def __len__(self):
        return len(self.tokens)

    def token_to_id(self, token):
        """The id of `token` (KeyError naming it and the vocabulary if it is not there)."""
        if token not in self._ids:
            raise KeyError(f"Token {token!r} is not in the vocabulary {self.source!r}.")
        return self._ids[token]

    def id_to_token(self, id):  # pylint: disable=redefined-builtin
        """The token with id `id` (IndexError if it is out of range)."""
        id = int(id)
        if not 0 <= id < len(self.tokens):
            raise IndexError(f"Token id {id} is out of range; the vocabulary has {len(self.tokens)} tokens.")
        return self.tokens[id]


class TokenListLookups:
    """A tokenizer's Python lookups, read from its `_token_list` (a `TokenList`), and its `text_config`."""

    @property
    def text_config(self):
        """The `keras_bert.TextConfig` this tokenizer was made from (`TextConfig.tokenizer()`), else None.

        Not built here: text_config.py makes these tokenizers, and a module importing it back would
        close an import circle (tests/test_layout.py). (WordPiece's `Tokenizer` builds its own.)
        """
        return self._text_config

    @property
    def vocab(self):
        """The vocabulary: a list of tokens, id i = entry i (SentencePiece: in fairseq's order)."""
        return list(self._token_list.tokens)

    def token_to_id(self, token):
        """Python helper: the id of `token` (KeyError naming it if it is not in the vocabulary)."""
        return self._token_list.token_to_id(token)

    def id_to_token(self, id):  # pylint: disable=redefined-builtin
        """Python helper: the token with id `id` (IndexError if out of range)."""
        return self._token_list.id_to_token(id)
