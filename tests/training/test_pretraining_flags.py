"""pretraining_flags: tools/pretrain.py's input refusals made before TensorFlow loads, with the other tools' early
refusals (finetune's options and seed, a pickle as a checkpoint). The tool rows: tests/reliability/test_tool_cases.py;
the inputs built: tests/tools/test_pretrain_shards.py and the pretrain journeys."""

import json
import os
import subprocess
import sys

from tests.conftest import ROOT

# One fresh process: every refusal the tools now make before TensorFlow loads, then what was imported.
SCRIPT = """
import json, sys
from keras_bert.checkpoints.checkpoint_formats import check_local_checkpoint
from keras_bert.tasks import finetune_task
from keras_bert.training import RunConfig, check_pretraining_input, pretraining_config

def refusal(call):
    try:
        call()
    except ValueError as error:
        return str(error)
    return None

folder, corpus, empty, one = sys.argv[1:]
flags = {"next_sentence": "on", "phase2_seq_length": 128, "phase2_fraction": 0.1}
out = {"ok": refusal(lambda: check_pretraining_input([corpus], [corpus], flags)),
       "empty": refusal(lambda: check_pretraining_input([corpus], [empty], flags)),
       "one": refusal(lambda: check_pretraining_input([one], None, flags)),
       "fraction": refusal(lambda: check_pretraining_input(None, None, dict(flags, phase2_fraction=1.0))),
       "vocab": refusal(lambda: check_pretraining_input([corpus], None, dict(
           flags, build_vocab=100, cased=True, output_dir=folder))),
       "positions": refusal(lambda: pretraining_config(None, vocab_size=100, pad_id=0, phases=[(64, 10), (512, 80)],
                                                       global_batch_size=32)),
       "seed": refusal(lambda: RunConfig(seed=-1, strategy="default")),
       "labels": refusal(lambda: finetune_task("multi_label", "no_checkpoint", "no.csv", labels=[""],
                                               run=RunConfig(strategy="default"))),
       "pickle": refusal(lambda: check_local_checkpoint(folder + "/model.bin", "--input")),
       "loaded": sorted(m for m in ("tensorflow", "keras", "jax", "torch") if m in sys.modules)}
print(json.dumps(out))
"""


def test_the_input_refusals_load_no_tensorflow(tmp_path):
    corpus, empty, one = (tmp_path / n for n in ("corpus.txt", "empty.txt", "one.txt"))
    corpus.write_text("the king is dead .\nlong live the king .\n\na horse , a horse .\nmy kingdom .\n", "utf-8")
    empty.write_text("\n\n", "utf-8")
    one.write_text("to be or not to be .\nthat is the question .\n", "utf-8")
    (tmp_path / "model.bin").write_bytes(bytes(range(256)))
    (tmp_path / "vocab.txt").write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\n", "utf-8")
    (tmp_path / "vocab_settings.json").write_text(json.dumps({"build_vocab": 100, "cased": False}), "utf-8")
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path), str(corpus), str(empty), str(one)],
                            cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env=dict(os.environ, PYTHONPATH=ROOT, KERAS_BERT_LAZY_IMPORT="1"))
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out.pop("loaded") == [], "a refusal loaded a backend"
    assert out.pop("ok") is None
    for name, fragment in {"empty": "hold no text", "one": "hold a single document",
                           "fraction": "(--phase2_fraction) must lie strictly between 0 and 1",
                           "vocab": "(--cased False -> True, --files); pass a new --output_dir",
                           "positions": "--phase2_seq_length 512 exceeds the model's max_position_embeddings (128)",
                           "seed": "seed=-1 (--seed) must be at least 0",
                           "labels": "labels= (--labels) names no label",
                           "pickle": "model.bin is a pickle; keras_bert never unpickles files"}.items():
        assert fragment in (out[name] or ""), (name, out[name])
