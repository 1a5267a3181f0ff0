"""lazy_exports: a package's public names, each imported from its module on first use (PEP 562)."""

import importlib


def lazy_exports(package, exports, submodules=()):
    """`(__getattr__, __dir__, __all__)` for `package` whose `exports` map module -> public names.

    Example:
        >>> __getattr__, __dir__, __all__ = lazy_exports(__name__, {"pkg.mod": ("Name",)})
    """
    module_of = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name):  # pylint: disable=invalid-name
        if name in module_of:
            value = getattr(importlib.import_module(module_of[name]), name)
        elif name in submodules:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        vars(importlib.import_module(package))[name] = value  # later lookups skip __getattr__
        return value

    def __dir__():  # pylint: disable=invalid-name
        return sorted(set(vars(importlib.import_module(package))) | set(module_of) | set(submodules))

    return __getattr__, __dir__, sorted(module_of)
