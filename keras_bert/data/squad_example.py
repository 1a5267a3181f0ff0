"""One SQuAD question with its context and gold answers."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class SquadExample:
    """A SQuAD v1.1 / v2.0 question, as read by `squad_examples`.

    Args:
        qas_id: the question's id (`"id"` in the JSON); predictions are keyed by it.
        question: the question text.
        context: the paragraph the answer is taken from.
        answer_text: the first gold answer ("" when there is none); used for training.
        answer_start: character offset of `answer_text` in `context` (-1 when there is none).
        answers: every gold answer text (dev sets list several); used for evaluation.
        is_impossible: SQuAD v2.0 question without an answer in the context.
        title: the article title.

    Example:
        >>> example = SquadExample("q1", "Who?", "Ada wrote it.", "Ada", 0, ("Ada",))
        >>> example.context[example.answer_start:][:len(example.answer_text)]
        'Ada'
    """

    qas_id: str
    question: str
    context: str
    answer_text: str = ""
    answer_start: int = -1
    answers: tuple = ()
    is_impossible: bool = False
    title: str = ""
