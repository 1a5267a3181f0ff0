"""EncoderServing: a bare encoder served as `pooled_output` and `sequence_output`; its embedding is the pooled one."""

from keras_bert.tasks.serving import Serving


class EncoderServing(Serving):
    """A `BertEncoder`'s serving: ids or text in, `pooled_output` `[b, h]` and `sequence_output` `[b, s, h]` out.

    Example:
        >>> serving_for(build_encoder(config)) is EncoderServing
        True
    """

    name = "encoder"
    single_text_output = ("embedder", "pooled_output")  # MediaPipe's TextEmbedder: the pooled [CLS]

    def serving_outputs(self, outputs):
        return {"pooled_output": outputs["pooled_output"], "sequence_output": outputs["sequence_output"]}
