"""lazy.py: a package's public names import their module on first use, once."""

import sys

import pytest


@pytest.fixture
def package(tmp_path, monkeypatch):
    root = tmp_path / "lazy_pkg"
    root.mkdir()
    (root / "__init__.py").write_text(
        "from keras_bert.lazy import lazy_exports\n"
        "__getattr__, __dir__, __all__ = lazy_exports(__name__, {'lazy_pkg.heavy': ('Thing',)}, ('sub',))\n")
    (root / "heavy.py").write_text("Thing = object()\n")
    (root / "sub.py").write_text("VALUE = 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield __import__("lazy_pkg")
    for name in [n for n in sys.modules if n.startswith("lazy_pkg")]:
        del sys.modules[name]


def test_a_name_imports_its_module_on_first_use_and_is_then_cached(package):
    assert package.__all__ == ["Thing"] and "lazy_pkg.heavy" not in sys.modules
    thing = package.Thing
    assert thing is sys.modules["lazy_pkg.heavy"].Thing and vars(package)["Thing"] is thing
    assert package.sub.VALUE == 3


def test_dir_lists_lazy_names_and_an_unknown_name_is_an_attribute_error(package):
    assert {"Thing", "sub"} <= set(dir(package)) and "lazy_pkg.heavy" not in sys.modules
    with pytest.raises(AttributeError, match="module 'lazy_pkg' has no attribute 'Nope'"):
        package.Nope  # pylint: disable=pointless-statement
