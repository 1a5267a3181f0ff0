"""One session folder of seeded tiny transformers DeBERTa-v3 models, one sub-folder per class (shared by the
DeBERTa tests)."""

import pytest

from tests.models.deberta_v3.tiny_deberta import save_seeded

SUFFIXES = ("Model", "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering",
            "ForMultipleChoice", "ForMaskedLM")


@pytest.fixture(scope="session")
def deberta_folders(tmp_path_factory):
    """`{suffix: folder}` of `DebertaV2<suffix>` folders (3 labels where a head has labels)."""
    pytest.importorskip("transformers")
    root = tmp_path_factory.mktemp("deberta_v3")
    return {suffix: save_seeded(str(root / suffix), "DebertaV2" + suffix, seed=index,
                                **({"num_labels": 3} if suffix in SUFFIXES[1:3] else {}))
            for index, suffix in enumerate(SUFFIXES)}
