"""A real Hugging Face Hub cache built from seeded folders, laid out as `huggingface_hub` writes it online.

`HF_HUB_CACHE/models--ORG--NAME/`: `blobs/<etag>` (an LFS file's sha256, a git file's git blob sha1, as the
Hub's etags are), `snapshots/<commit>/<path> -> ../../blobs/<etag>` (relative links), `refs/<branch or tag>`
(the commit) and `trees/<commit>.json` (the listing `snapshot_download` caches; the offline client checks a
snapshot's completeness against it). `huggingface_hub.snapshot_download(..., local_files_only=True)` and
`HF_HUB_OFFLINE=1` read it as they read a cache they filled themselves.
"""

import hashlib
import json
import os

_LFS = (".safetensors", ".bin", ".h5", ".gguf", ".msgpack", ".model", ".onnx")


def add_repo(cache, repo_id, folder, refs=("main",)):
    """Puts `folder`'s files in `cache` as a commit of `repo_id` that `refs` point to; returns the commit."""
    files = sorted(os.path.relpath(os.path.join(root, name), folder)
                   for root, _, names in os.walk(folder) for name in names)
    contents = {path: open(os.path.join(folder, path), "rb").read() for path in files}  # noqa: SIM115
    commit = hashlib.sha1(repr(sorted((p, hashlib.sha1(c).hexdigest()) for p, c in contents.items()))
                          .encode()).hexdigest()
    storage = os.path.join(cache, "models--" + repo_id.replace("/", "--"))
    tree = {}
    for path, content in contents.items():
        git_sha1 = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()
        lfs = path.endswith(_LFS)
        etag = hashlib.sha256(content).hexdigest() if lfs else git_sha1
        blob = os.path.join(storage, "blobs", etag)
        os.makedirs(os.path.dirname(blob), exist_ok=True)
        with open(blob, "wb") as f:
            f.write(content)
        link = os.path.join(storage, "snapshots", commit, path)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        if not os.path.lexists(link):
            os.symlink(os.path.relpath(blob, os.path.dirname(link)), link)
        tree[path] = {"size": len(content), "blob_id": git_sha1,
                      **({"lfs_sha256": etag, "lfs_size": len(content)} if lfs else {})}
    os.makedirs(os.path.join(storage, "trees"), exist_ok=True)
    with open(os.path.join(storage, "trees", commit + ".json"), "w", encoding="utf-8") as f:
        json.dump({"format_version": 1, "files": tree}, f, indent=1)
    for ref in refs:
        os.makedirs(os.path.dirname(os.path.join(storage, "refs", ref)), exist_ok=True)
        with open(os.path.join(storage, "refs", ref), "w", encoding="utf-8") as f:
            f.write(commit)
    return commit


def sentence_transformers_folder(bert_folder, folder):
    """A sentence-transformers folder (modules.json, 1_Pooling, 2_Normalize) around a Hugging Face BERT folder."""
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    for name in os.listdir(bert_folder):
        with open(os.path.join(bert_folder, name), "rb") as source, open(os.path.join(folder, name), "wb") as f:
            f.write(source.read())
    hidden = json.load(open(os.path.join(bert_folder, "config.json"), encoding="utf-8"))["hidden_size"]  # noqa: SIM115
    module = "sentence_transformers.models."
    files = {"modules.json": [{"idx": 0, "name": "0", "path": "", "type": module + "Transformer"},
                              {"idx": 1, "name": "1", "path": "1_Pooling", "type": module + "Pooling"},
                              {"idx": 2, "name": "2", "path": "2_Normalize", "type": module + "Normalize"}],
             "1_Pooling/config.json": {"word_embedding_dimension": hidden, "pooling_mode_mean_tokens": True},
             "sentence_bert_config.json": {"max_seq_length": 24, "do_lower_case": False}}
    for name, content in files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            json.dump(content, f)
    return folder
