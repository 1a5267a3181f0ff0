"""One seeded ModernBertForMaskedLM folder per test session (shared by the ModernBERT model tests)."""

import pytest

from tests.models.modernbert.tiny_modernbert import save_seeded


@pytest.fixture(scope="session")
def modernbert_mlm_dir(tmp_path_factory):
    pytest.importorskip("transformers")
    return save_seeded(str(tmp_path_factory.mktemp("modernbert_mlm")))
