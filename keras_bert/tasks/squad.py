"""SQuAD v1.1 / v2.0 question answering: windows over the context, answer-span logits, EM / F1."""

import dataclasses

from keras_bert.tasks.options import TaskOptions, option
from keras_bert.tasks.serving import TaskServing
from keras_bert.tasks.task import Task, freeze_pooler


@dataclasses.dataclass(frozen=True)
class SquadTaskOptions(TaskOptions):
    """`SquadTask`'s options (see its Args)."""

    seq_length: int = option(384, "tokens per window", flag=False)
    doc_stride: int = option(128, "pieces between the starts of a long context's windows")
    max_query_length: int = option(64, "question pieces kept")
    max_answer_length: int = option(30, "the longest answer, in pieces")
    version_2_with_negative: bool = option(None, "SQuAD v2: a question may have no answer (default: v2 "
                                           "if the training file has unanswerable questions)", identity=False)

    def check(self):
        for name in ("doc_stride", "max_query_length", "max_answer_length"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}={getattr(self, name)} (--{name}) must be a positive number of pieces.")


class SquadServing(TaskServing):
    """A span labeler's serving: `start_logits`, `end_logits`; `answer` from question and context text
    (SavedModel), one window's best span from ids (ONNX)."""

    name = "squad"
    Options = SquadTaskOptions
    pads_text_to_seq_length = True  # squad_postprocess's n-best reads the padding positions too

    @classmethod
    def check_serving(cls, model, task_config):
        super().check_serving(model, task_config)
        squad_options(task_config)  # export's --doc_stride, ...: refused in one line naming the flag

    def serving_outputs(self, outputs):
        return {"start_logits": outputs["start_logits"], "end_logits": outputs["end_logits"]}

    def text_signatures(self):
        """`answer`: question + context in (long contexts in `doc_stride` windows), answer text and
        character offsets out. Not in TFLite / ONNX: the offset and ragged ops, and Substr."""
        import tensorflow as tf

        from keras_bert.tasks import answer_signature

        options = squad_options(self.task_config)
        return {"answer": tf.function(
            lambda question, context: answer_signature.answer(self, question, context, options),
            autograph=False, input_signature=[tf.TensorSpec([None], tf.string, name="question"),
                             tf.TensorSpec([None], tf.string, name="context")])}

    def answer_outputs(self, inputs, outputs):
        """One window's best span: `answer_start`, `answer_end`, `score`, `null_score`."""
        from keras_bert.tasks import answer_signature

        tokenizer = self.tokenizer  # None: an ids-only export, B read from the type ids
        return answer_signature.span_from_ids(
            inputs, outputs["start_logits"], outputs["end_logits"], squad_options(self.task_config),
            sep_id=getattr(tokenizer, "sep_id", None), layout=getattr(tokenizer, "pair_layout", "bert"))


class SquadTask(Task):
    """Extractive question answering on SQuAD JSON files, scored by the official EM / F1.

    Args:
        tokenizer, seq_length, batch_size, seed: see `Task`.
        doc_stride: tokens between the starts of a context's windows.
        max_query_length: question tokens kept.
        max_answer_length: the longest answer, in pieces.
        version_2_with_negative: SQuAD v2 (a question may have no answer: "" when the null
            score wins); None: v2 if the training file has unanswerable questions.

    Example:
        >>> task = SquadTask(tokenizer, 384, 32, doc_stride=128)
    """

    name = "squad"
    Options = SquadTaskOptions
    serving = SquadServing

    def fit_options(self, path):
        """`version_2_with_negative`, unless given: whether the training file has unanswerable questions."""
        if self.version_2_with_negative is None:
            from keras_bert.data.squad import squad_examples

            v2 = any(e.is_impossible for e in squad_examples(path))
            self.options = self.options.replace(version_2_with_negative=v2)
        return self.options

    def _features(self, path):
        from keras_bert.data.squad import squad_examples, squad_features

        examples = squad_examples(path)
        return examples, squad_features(examples, self.tokenizer, seq_length=self.seq_length,
                                        doc_stride=self.doc_stride,
                                        max_query_length=self.max_query_length)

    def read(self, path, training):
        from keras_bert.data.squad import squad_dataset

        if not training:
            return path  # evaluated by `evaluate`, on whole examples, not by `fit`
        _, features = self._features(path)
        return squad_dataset(features, batch_size=self.batch_size, seed=self.seed).map(
            lambda x, y: (x, {"start_logits": y["start_positions"], "end_logits": y["end_positions"]}))

    def build_head(self, encoder, task_config):
        from keras_bert.models.builders import build_span_labeler

        return freeze_pooler(build_span_labeler(encoder, task_config=task_config))

    def compile_kwargs(self):
        import keras  # here, not at the top: `finetune.py TASK --help` loads no Keras

        loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        return {"loss": {"start_logits": loss, "end_logits": loss}}

    def validation_data(self, evaluation):
        return None

    def evaluate(self, model, evaluation, path):
        from keras_bert.data.squad import squad_dataset
        from keras_bert.data.squad_answers import squad_postprocess
        from keras_bert.data.squad_metrics import squad_evaluate

        examples, features = self._features(path)
        outputs = model.predict(squad_dataset(features, batch_size=self.batch_size, shuffle=False),
                                verbose=0)
        v2 = self.version_2_with_negative
        predictions = squad_postprocess(
            features, outputs["start_logits"], outputs["end_logits"],
            max_answer_length=self.max_answer_length,
            version_2_with_negative=any(e.is_impossible for e in examples) if v2 is None else v2)
        return squad_evaluate(predictions, examples)



def squad_options(task_config):
    """The `SquadOptions` (windowing and answer choice) in a squad model's `task_config`: the task's
    options checked by `SquadTask.Options`, the answer options an export merged in by `SquadOptions`."""
    from keras_bert.tasks.answer_signature import SquadOptions

    task = SquadTask.options_of(task_config)
    names = {field.name for field in dataclasses.fields(SquadOptions)}
    options = {k: v for k, v in task_config.items() if k in names}
    options.update(doc_stride=task.doc_stride, max_query_length=task.max_query_length,
                   max_answer_length=task.max_answer_length,
                   version_2_with_negative=bool(task.version_2_with_negative))
    return SquadOptions(**options)
