"""Released checkpoints by name: `hf://ORG/NAME[@REVISION]`, release names and keras-hub handles -> a local folder.

Every checkpoint argument (`load_checkpoint`, `read_checkpoint`, so every tool) goes through `resolve`:
a path that exists is itself; `hf://ORG/NAME[@REVISION][/SUBFOLDER]` (parsed by huggingface_hub's own
`parse_hf_uri`) and the names in `RELEASES` (`bert_base_uncased`, `modernbert_base`...) are fetched with
`huggingface_hub.snapshot_download` into the standard Hub cache (`HF_HOME` / `HF_HUB_CACHE`), honouring
`HF_HUB_OFFLINE`, `HF_TOKEN` and the user's login, with the Hub library's progress bars, resume and
completeness check; a second load reads the cache without the network. Only what a checkpoint needs is
fetched (`PATTERNS`): config.json first, its `model_type` checked before any weights come; then
safetensors weights (sharded ones by their index), the tokenizer files of every family and
sentence-transformers' modules. `kaggle://` handles and keras-hub's own preset names are fetched by
keras-hub's download code (`keras_hub.src.utils.preset_utils.get_file`, kagglehub underneath).

Pickled weights are never read: a repo with only `pytorch_model.bin` (or `tf_model.h5` / Flax) is refused
in one line naming the Hub's safetensors conversion (`@refs/pr/N`, where the Hub's bot opened one) or
the one-time conversion to run. Every Hub error is one line (`HubError`, a ValueError).
"""

import contextlib
import errno
import json
import os

HF_PREFIX, KAGGLE_PREFIX = "hf://", "kaggle://"

# Release name -> its Hugging Face repo (the one table). Looked up case-insensitively, "-" read as "_".
RELEASES = {
    "bert_base_uncased": "google-bert/bert-base-uncased", "bert_base_cased": "google-bert/bert-base-cased",
    "bert_large_uncased": "google-bert/bert-large-uncased", "bert_large_cased": "google-bert/bert-large-cased",
    "bert_base_multilingual_cased": "google-bert/bert-base-multilingual-cased",
    **{name: "google/" + name for name in (f"bert_uncased_L-{layers}_H-{hidden}_A-{hidden // 64}"
                                           for layers in (2, 4, 6, 8, 10, 12) for hidden in (128, 256, 512, 768))},
    "bert_tiny_uncased": "google/bert_uncased_L-2_H-128_A-2", "bert_mini_uncased": "google/bert_uncased_L-4_H-256_A-4",
    "bert_small_uncased": "google/bert_uncased_L-4_H-512_A-8",
    "bert_medium_uncased": "google/bert_uncased_L-8_H-512_A-8",
    "minilm_l12_h384_uncased": "microsoft/MiniLM-L12-H384-uncased",
    "all_minilm_l6_v2": "sentence-transformers/all-MiniLM-L6-v2",
    "all_minilm_l12_v2": "sentence-transformers/all-MiniLM-L12-v2",
    "roberta_base": "FacebookAI/roberta-base", "roberta_large": "FacebookAI/roberta-large",
    "xlm_roberta_base": "FacebookAI/xlm-roberta-base", "xlm_roberta_large": "FacebookAI/xlm-roberta-large",
    "distilbert_base_uncased": "distilbert/distilbert-base-uncased",
    "distilbert_base_cased": "distilbert/distilbert-base-cased",
    "electra_small_discriminator": "google/electra-small-discriminator",
    "electra_base_discriminator": "google/electra-base-discriminator",
    "electra_large_discriminator": "google/electra-large-discriminator",
    "modernbert_base": "answerdotai/ModernBERT-base", "modernbert_large": "answerdotai/ModernBERT-large",
    **{f"ettin_encoder_{size}": f"jhu-clsp/ettin-encoder-{size}"
       for size in ("17m", "32m", "68m", "150m", "400m", "1b")},
    "mmbert_small": "jhu-clsp/mmBERT-small", "mmbert_base": "jhu-clsp/mmBERT-base",
}
_RELEASES = {name.lower().replace("-", "_"): repo for name, repo in RELEASES.items()}

# What a checkpoint needs, at the top of the repo (or its subfolder) and one folder down
# (sentence-transformers' 0_Transformer/, 1_Pooling/): config, weights, every family's tokenizer files.
_FILES = ("config.json", "model.safetensors", "model.safetensors.index.json", "model-*-of-*.safetensors",
          "vocab.txt", "vocab.json", "merges.txt", "tokenizer.json", "tokenizer_config.json",
          "special_tokens_map.json", "added_tokens.json", "spm.model", "sentencepiece.bpe.model", "text_config.json",
          "modules.json", "sentence_bert_config.json", "config_sentence_transformers.json",
          "model.weights.h5", "metadata.json", "keras_bert_config.json", "encoder.weights.h5", "pretrainer.weights.h5")
PATTERNS = [*_FILES, *(f"*/{name}" for name in _FILES), "assets/tokenizer/*"]
_FIRST = ["config.json", "modules.json"]
_WEIGHTS = ("model.safetensors", "model.safetensors.index.json", "model.weights.h5", "encoder.weights.h5",
            "pretrainer.weights.h5")
_CONVERT = ("convert it once: torch.load('pytorch_model.bin', weights_only=True) then "
            "safetensors.torch.save_file (see keras_bert's conversions guide), and load the folder")


class HubError(ValueError):
    """A released checkpoint that cannot be had: one line naming the handle and what to do."""


def resolve(path):
    """`(local path, origin)` of a checkpoint argument; origin is `hf://ORG/NAME@COMMIT` (or the kaggle handle)
    for a fetched checkpoint, None for a local path.

    Args:
        path: a path (returned as is when it exists), `hf://ORG/NAME[@REVISION][/SUBFOLDER]`, a name in
            `RELEASES`, a `kaggle://` handle or a keras-hub preset name.

    Example:
        >>> resolve("bert_tiny_uncased")  # doctest: +SKIP
        ('~/.cache/huggingface/hub/models--google--bert_uncased_L-2_H-128_A-2/snapshots/...', 'hf://google/...@...')
    """
    text = os.fspath(path)
    if os.path.exists(text) or os.path.exists(text + ".index") or text.endswith(".keras"):
        return text, None
    if text.startswith(HF_PREFIX):
        return _fetch_hub(text)
    repo = _RELEASES.get(text.lower().replace("-", "_"))
    if repo:
        return _fetch_hub(HF_PREFIX + repo, text)
    if text.startswith(KAGGLE_PREFIX) or _keras_hub_preset(text):
        return _fetch_keras_hub(text), text
    return text, None


def is_handle(path):
    """True if `path` names a released checkpoint (`resolve` fetches it) rather than a local path."""
    text = os.fspath(path)
    return not os.path.exists(text) and (text.startswith((HF_PREFIX, KAGGLE_PREFIX))
                                         or text.lower().replace("-", "_") in _RELEASES or _keras_hub_preset(text))


def _fetch_hub(handle, name=None):
    import huggingface_hub  # pylint: disable=import-outside-toplevel

    shown = f"{name} ({handle})" if name else handle
    try:
        uri = huggingface_hub.parse_hf_uri(handle)
    except ValueError as error:
        raise HubError(f"{handle} is not a Hugging Face handle ({' '.join(str(error).split())}); expected "
                       "hf://ORG/NAME or hf://ORG/NAME@REVISION.") from None
    if uri.type != "model":
        raise HubError(f"{shown} is a {uri.type} repo; keras_bert loads model checkpoints: hf://ORG/NAME[@REVISION].")
    with _hub_errors(shown, uri):
        first = huggingface_hub.snapshot_download(uri.id, revision=uri.revision, allow_patterns=_under(uri, _FIRST))
        _check_config(shown, uri, first)
        snapshot = huggingface_hub.snapshot_download(uri.id, revision=uri.revision,
                                                     allow_patterns=_under(uri, PATTERNS))
        _check_weights(shown, uri, snapshot)
    commit = os.path.basename(os.path.normpath(snapshot))
    subfolder = f"/{uri.path_in_repo}" if uri.path_in_repo else ""
    return os.path.join(snapshot, uri.path_in_repo), f"{HF_PREFIX}{uri.id}@{commit}{subfolder}"


def _under(uri, patterns):
    return [f"{uri.path_in_repo.strip('/')}/{p}" for p in patterns] if uri.path_in_repo else list(patterns)


def _check_config(shown, uri, snapshot):
    """The repo's config.json is a family keras_bert reads (before any weights are fetched)."""
    from keras_bert.models.families import family_for_model_type  # pylint: disable=import-outside-toplevel

    folder = os.path.join(snapshot, uri.path_in_repo)
    config_file = os.path.join(folder, "config.json")
    if not os.path.isfile(config_file):
        if os.path.isfile(os.path.join(folder, "modules.json")):  # sentence-transformers: its Transformer's, later
            return
        _refuse_files(shown, uri, snapshot, "no config.json")
    try:
        with open(config_file, encoding="utf-8") as f:
            config = json.load(f)
    except (OSError, ValueError) as error:
        raise HubError(f"{shown}: its config.json cannot be read ({error}).") from None
    if isinstance(config, dict) and "model_type" in config and "registered_name" not in config:
        try:
            family_for_model_type(config["model_type"], f"{shown}'s config.json")
        except ValueError as error:
            raise HubError(str(error)) from None


def _check_weights(shown, uri, snapshot):
    """The snapshot holds weights keras_bert reads; else one line on what the repo holds instead."""
    folder = os.path.join(snapshot, uri.path_in_repo)
    for root, _, files in os.walk(folder):
        if any(name in _WEIGHTS or name.endswith(".safetensors") for name in files) or (
                root == folder and any(name.startswith("bert_model.ckpt") for name in files)):
            return
    _refuse_files(shown, uri, snapshot, "no safetensors weights")


def _refuse_files(shown, uri, snapshot, missing):
    """One line naming what the repo holds instead of a checkpoint keras_bert reads (its file list: the Hub
    library's cached tree listing, else the cached snapshot)."""
    files = _repo_files(uri, snapshot)
    names = {os.path.basename(f) for f in files}
    if any(f.endswith(".gguf") for f in files):
        raise HubError(f"{shown} holds GGUF files (llama.cpp's format), {missing}; keras_bert reads Hugging Face "
                       "checkpoints (config.json + model.safetensors): use the repo the GGUF was made from.")
    if "pytorch_model.bin" in names:
        converted = _converted_revision(uri)
        where = (f"load its safetensors conversion, {HF_PREFIX}{uri.id}@{converted}, or " if converted else "")
        raise HubError(f"{shown} has only pytorch_model.bin, a pickle, which keras_bert never unpickles: "
                       f"{where}{_CONVERT}.")
    if names & {"tf_model.h5", "flax_model.msgpack"}:
        raise HubError(f"{shown} has only {', '.join(sorted(names & {'tf_model.h5', 'flax_model.msgpack'}))} "
                       f"weights, which keras_bert does not read; it reads model.safetensors: load transformers' "
                       "model and save_pretrained it (transformers writes safetensors), then load the folder.")
    cached = " (HF_HUB_OFFLINE: the cached copy was looked at)" if _offline() else ""
    raise HubError(f"{shown} has {missing}" + (f" (its files: {sorted(files)[:8]})" if files else "") +
                   "; keras_bert reads a Hugging Face checkpoint (config.json, model.safetensors), a "
                   f"sentence-transformers repo or a keras-hub preset{cached}.")


def _repo_files(uri, snapshot):
    from huggingface_hub import get_cached_repo_tree  # pylint: disable=import-outside-toplevel

    commit = os.path.basename(os.path.normpath(snapshot))
    try:
        files = [f.path for f in get_cached_repo_tree(uri.id, revision=commit)]
    except Exception:  # pylint: disable=broad-except  (no listing cached: the cached files)
        files = [os.path.relpath(os.path.join(r, n), snapshot) for r, _, ns in os.walk(snapshot) for n in ns]
    prefix = uri.path_in_repo.strip("/")
    return [f for f in files if not prefix or f.startswith(prefix + "/")]


def _converted_revision(uri):
    """`refs/pr/N` of the Hub bot's open safetensors conversion of the repo, None offline or without one."""
    if _offline():
        return None
    from huggingface_hub import HfApi  # pylint: disable=import-outside-toplevel

    try:
        pulls = HfApi().get_repo_discussions(uri.id, author="SFconvertbot", discussion_type="pull_request",
                                             discussion_status="open")
        return next((f"refs/pr/{pull.num}" for pull in pulls), None)
    except Exception:  # pylint: disable=broad-except  (the refusal stands without it)
        return None


def _offline():
    from huggingface_hub import constants  # pylint: disable=import-outside-toplevel

    return constants.is_offline_mode()


@contextlib.contextmanager
def _hub_errors(shown, uri):
    """The Hub library's errors as one line each (`HubError`); Ctrl-C passes through (the Hub library
    resumes the download on the next run); a full disk names the cache."""
    from huggingface_hub import constants, errors  # pylint: disable=import-outside-toplevel

    revision = f"revision {uri.revision!r}" if uri.revision else "its main branch"
    page = f"https://huggingface.co/{uri.id}"
    try:
        yield
    except errors.GatedRepoError:
        raise HubError(f"{shown} is gated: accept its terms at {page}, then log in (hf auth login) or set "
                       "HF_TOKEN to a token of that account.") from None
    except errors.RepositoryNotFoundError:
        raise HubError(f"{shown}: no model repo {uri.id} on the Hub, or it is private (log in with hf auth login "
                       "or set HF_TOKEN); check the name at https://huggingface.co/models.") from None
    except errors.RevisionNotFoundError:
        raise HubError(f"{shown}: {uri.id} has no {revision}; see its branches, tags and commits at "
                       f"{page}/tree/main.") from None
    except errors.IncompleteSnapshotError:
        raise HubError(f"{shown}: the cached copy ({constants.HF_HUB_CACHE}) is incomplete (an interrupted "
                       "download); run again with the network (HF_HUB_OFFLINE unset) to finish it.") from None
    except errors.LocalEntryNotFoundError:
        why = "HF_HUB_OFFLINE is set" if _offline() else "the Hub cannot be reached"
        raise HubError(f"{shown}: {why} and the Hub cache ({constants.HF_HUB_CACHE}) holds no copy of {revision}; "
                       "run once with the network (the second run reads the cache), or set HF_HUB_CACHE to "
                       "the cache that holds it.") from None
    except errors.HfHubHTTPError as error:
        raise HubError(f"{shown}: the Hub answered {' '.join(str(error).split())[:300]}") from None
    except OSError as error:
        if error.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        raise HubError(f"{shown}: the disk of the Hub cache ({constants.HF_HUB_CACHE}) is full; free space or set "
                       "HF_HUB_CACHE to a larger disk and run again (the download resumes).") from None


def _keras_hub_preset(name):
    """True if keras-hub is installed and `name` is one of its own preset names (e.g. bert_tiny_en_uncased)."""
    if "/" in name or os.sep in name:
        return False
    try:
        import keras_hub  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
        from keras_hub.src.utils.preset_utils import BUILTIN_PRESETS  # pylint: disable=import-outside-toplevel
    except ImportError:
        return False
    return name in BUILTIN_PRESETS


def _fetch_keras_hub(handle):
    """The local preset folder of a keras-hub handle, fetched by keras-hub's own download code: config.json,
    then the weights, tokenizer and the tokenizer assets of the family its backbone class names."""
    # pylint: disable=import-outside-toplevel
    from keras_bert.checkpoints.keras_hub_checkpoint import tokenizer_assets
    from keras_bert.models.families import FAMILIES

    try:
        from keras_hub.src.utils.preset_utils import get_file  # pylint: disable=import-outside-toplevel
    except ImportError:
        raise HubError(f"{handle} is a keras-hub handle: pip install 'keras-hub~=0.32' kagglehub.") from None
    try:
        config = get_file(handle, "config.json")
        with open(config, encoding="utf-8") as f:
            backbone = str(json.load(f).get("registered_name", "")).split(">")[-1]
        family = next((f for f in FAMILIES.values() if f.keras_hub and f.keras_hub.backbone == backbone), None)
        if family is None:
            known = sorted(f.keras_hub.backbone for f in FAMILIES.values() if f.keras_hub)
            raise HubError(f"{handle} is a keras-hub {backbone or 'preset without a backbone'}; keras_bert reads "
                           f"keras-hub presets of {', '.join(known)}.")
        for name in ("model.weights.h5", "tokenizer.json", "metadata.json",
                     *tokenizer_assets(family.tokenizer)):
            get_file(handle, name)
    except HubError:
        raise
    except Exception as error:  # pylint: disable=broad-except  (kagglehub's and keras-hub's own errors: one line)
        raise HubError(f"{handle}: keras-hub could not fetch it ({type(error).__name__}: "
                       f"{' '.join(str(error).split())[:300]}).") from None
    return os.path.dirname(config)
