"""ServingModule: a model's serving object (`keras_bert.tasks.serving`) as a `tf.Module` with serving signatures."""

import tensorflow as tf

from keras_bert.export.model_call import ModelCall
from keras_bert.export.serving_checks import ID_INPUTS, check_model, checked_seq_length
from keras_bert.models.model_operations import find_encoder
from keras_bert.models.families import bind_pair_layout
from keras_bert.tasks.registry import serving_for
from keras_bert.tasks.serving import TaskServing


def model_task(model):
    """What `model` is, in words for messages: its serving object's name ("encoder", "pretrainer" or
    its task's, `keras_bert.tasks.TASKS`). Nothing is guessed from shapes."""
    return serving_for(model).name


def serves_a_task(model):
    """Whether `model` is a task model (a head on the encoder, served by its task's `TaskServing`)."""
    return issubclass(serving_for(model), TaskServing)


def build_serving(model, tokenizer=None, seq_length=128, top_k=5, mask_id=None, runtime_checks=True,
                  string_outputs=True, options=None):
    """The serving object of `model` (`serving_for(model)`), built once: the model checked, called
    through a `ModelCall`, its tokenizer bound to the model's pair layout (see `ServingModule`'s args)."""
    check_model(model)
    config = find_encoder(model).config
    seq_length = checked_seq_length(config, tokenizer, seq_length)
    top_k = min(int(top_k), config.vocab_size or int(top_k))
    return serving_for(model)(model, bind_pair_layout(tokenizer, config), ModelCall(model, config, runtime_checks),
                              seq_length=seq_length, top_k=top_k, mask_id=mask_id, string_outputs=string_outputs,
                              options=options)


class ServingModule(tf.Module):
    """A Keras BERT model's serving object (`build_serving`) with `serve_ids` and `serve_text`: the
    `tf.Module` that tracks the model's variables and the object's resources, and wraps its functions
    as signatures (`signatures()`). It reads the object and sets nothing on it.

    `serve_ids` takes int32 `[batch, seq]` ids (dynamic batch and sequence);
    `serve_text` takes raw strings `text_a` and optional `text_b` (`[batch]`), tokenizes
    and packs them in the graph, padded to the request's longest text (at most `seq_length`:
    longer text is truncated, pairs share the budget round-robin; an empty string gives
    `[CLS] [SEP]`) and runs the model; sequence outputs are `[batch, longest, ...]`.
    Both return the task's outputs: classifier `logits`, `probabilities`; encoder
    `pooled_output`, `sequence_output`; span labeler `start_logits`, `end_logits`;
    pretrainer the top-k tokens at every `[MASK]`: `masked_lm_positions` `[b, p]` (-1 on
    padded slots), `top_k_ids` `[b, p, k]` (-1 on padded slots), `top_k_probabilities`
    and (SavedModel only) `top_k_tokens`.

    Args:
        model: a built Keras model with the three id inputs.
        tokenizer: optional `keras_bert.text.Tokenizer`; its vocab size must equal the model's.
        seq_length: the longest packed text of the text signatures (requests pad to their longest).
        top_k: predictions per `[MASK]` (pretrainer).
        mask_id: id of `[MASK]` for a pretrainer exported without a tokenizer.
        runtime_checks: add graph asserts with readable messages (SavedModel only; TFLite and
            ONNX drop assert ops).
        string_outputs: include the pretrainer's `top_k_tokens` (a vocabulary lookup table;
            SavedModel only).
        options: task options replacing the model's own (`task_config`), e.g. `{"labels": [...]}`
            (the task's signatures use them: `classify`, `entities`) or a SQuAD model's
            `{"doc_stride": 64}` (its `answer` signature windows with it); checked by the task's
            options (`check_options`), one line naming an option the model does not take.

    What serves the model comes from the model (`keras_bert.tasks.serving_for`): the encoder's,
    the pretrainer's (fill-mask) or its task's serving object (`self.serving`); it computes the
    outputs, adds the raw-text signatures and declares what each format can carry.

    Example:
        >>> module = ServingModule(build_classifier(config, 2), Tokenizer("vocab.txt"))
        >>> module.serve_text(tf.constant(["a fine film"]), tf.constant([], tf.string))["probabilities"]
    """

    def __init__(self, model, tokenizer=None, seq_length=128, top_k=5, mask_id=None,
                 runtime_checks=True, string_outputs=True, options=None):
        super().__init__(name="keras_bert_serving")
        self.serving = serving = build_serving(model, tokenizer, seq_length, top_k, mask_id, runtime_checks,
                                               string_outputs, options)
        # Track the raw tf.Variables, not the Keras model: a SavedModel that tracks Keras 3
        # objects loads in Python but fails in C++ (TF Serving's loader) with "Could not
        # find variable ..." (keras-team/keras#20095). The model is called via a closure.
        self.model_variables = list({id(value): value  # each tf.Variable once, unwrapped from its Keras 3 variable
                                     for value in (getattr(v, "value", v) for v in model.variables)}.values())
        for name, resource in serving.resources().items():  # tracked under its own name: tokenizer, vocab_table
            setattr(self, name, resource)
        ids_spec = {name: tf.TensorSpec([None, None], tf.int32, name=name) for name in ID_INPUTS}
        self.serve_ids = tf.function(lambda inputs: serving.outputs_from_ids(inputs), autograph=False,
                                     input_signature=[ids_spec])
        if serving.tokenizer is not None:
            self.serve_text = tf.function(serving.serve_text, autograph=False, input_signature=[
                tf.TensorSpec([None], tf.string, name="text_a"),
                tf.TensorSpec([None], tf.string, name="text_b")])

    def signatures(self):
        """`{"serving_default": raw text (if a tokenizer was given), "serve_ids": ids}`."""
        signatures = {"serve_ids": self.serve_ids.get_concrete_function()}
        if self.serving.tokenizer is not None:
            # text_b defaults to an empty vector: TF Serving fills it in when a request omits it.
            def serving_default(text_a, text_b=tf.constant([], tf.string)):
                return self.serve_text(text_a, text_b)

            signatures["serving_default"] = tf.function(serving_default, autograph=False, input_signature=[
                tf.TensorSpec([None], tf.string, name="text_a"),
                tf.TensorSpec([None], tf.string, name="text_b")])
        else:
            signatures["serving_default"] = signatures["serve_ids"]
        # Traced here, before saving: a tf.function that tf.saved_model.save traces first is traced again by
        # the check's call afterwards (TensorFlow's first-call trace is a separate one); this way, once.
        signatures.update({name: function.get_concrete_function() for name, function in self.task_signatures().items()})
        return signatures

    def task_signatures(self):
        """Raw text in, the task's answer out (e.g. `classify`, `entities`, `answer`): the task's own."""
        if self.serving.tokenizer is None:
            return {}
        return self.serving.text_functions()
