"""SQuAD v1.1 / v2.0 question answering: windows over the context, answer-span logits, EM / F1."""

import keras

from keras_bert.tasks.task import Task, freeze_pooler


class SquadTask(Task):
    """Extractive question answering on SQuAD JSON files, scored by the official EM / F1.

    Args:
        tokenizer, seq_length, batch_size, seed: see `Task`.
        doc_stride: tokens between the starts of a context's windows.
        max_query_length: question tokens kept.

    Example:
        >>> task = SquadTask(tokenizer, 384, 32, doc_stride=128)
    """

    name = "squad"

    def __init__(self, tokenizer, seq_length=384, batch_size=32, seed=0, *, doc_stride=128,
                 max_query_length=64, **unused):
        super().__init__(tokenizer, seq_length, batch_size, seed)
        self.doc_stride, self.max_query_length = int(doc_stride), int(max_query_length)

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

    def build_model(self, encoder):
        from keras_bert.models.builders import build_span_labeler

        return freeze_pooler(build_span_labeler(encoder))

    def compile_kwargs(self):
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
        predictions = squad_postprocess(
            features, outputs["start_logits"], outputs["end_logits"],
            version_2_with_negative=any(e.is_impossible for e in examples))
        return squad_evaluate(predictions, examples)

    def identity(self):
        return dict(super().identity(), doc_stride=self.doc_stride,
                    max_query_length=self.max_query_length)
