"""ShardReader without TensorFlow: batches shaped as the pipeline's, each pass a permutation of the
host's rows, the step as the resume position, hosts on disjoint shards; a bad folder in one line."""

import json
import subprocess
import sys

import numpy as np
import pytest

from keras_bert.data.shard_reader import ShardReader
from tests.conftest import ROOT
from tests.data.test_shard_writer import stored

# Run where `import tensorflow` fails, as on a machine without it.
NO_TENSORFLOW = r"""
import json, sys
sys.modules["tensorflow"] = None  # any import of it raises ImportError
import numpy as np
from keras_bert.data.shard_reader import ShardReader

folder = sys.argv[1]
def unmasked(features, labels):
    ids, real = features["input_word_ids"].copy(), labels["masked_lm_weights"] > 0
    ids[np.nonzero(real)[0], features["masked_lm_positions"][real]] = labels["masked_lm_ids"][real]
    return ids

out = {"hosts": []}
for host in range(2):
    reader = ShardReader(folder, 16, max_predictions_per_seq=5, whole_word_masking=True, seed=7,
                         process_index=host, process_count=2)
    steps = -(-reader.num_rows // 16)
    batches = list(reader.batches(0, steps + 2))
    again = ShardReader(folder, 16, max_predictions_per_seq=5, whole_word_masking=True, seed=7,
                        process_index=host, process_count=2)  # a resumed run: a new reader at step 3
    resumed = all(all(np.array_equal(a[part][k], b[part][k]) for part in (0, 1) for k in a[part])
                  for a, b in zip(batches[3:], again.batches(3, steps + 2)))
    rows = np.concatenate([unmasked(*b) for b in batches])
    out["hosts"].append({"rows": reader.num_rows, "first_pass": rows[:reader.num_rows].tolist(),
                         "second_pass_differs": not np.array_equal(rows[reader.num_rows:][:16], rows[:16]),
                         "resumed": resumed,
                         "shapes": {k: [list(v.shape), str(v.dtype)] for part in batches[0] for k, v in part.items()},
                         "masked_share": float(np.mean(np.concatenate([b[1]["masked_lm_weights"].sum(1) for b in batches])
                                                       / np.concatenate([b[0]["input_mask"].sum(1) - 3 for b in batches])))})
out["tensorflow"] = sorted(m for m, v in sys.modules.items() if m.startswith("tensorflow") and v is not None)
print(json.dumps(out))
"""


def test_reads_masks_and_resumes_without_tensorflow(shards):
    folder, _ = shards
    result = subprocess.run([sys.executable, "-c", NO_TENSORFLOW, folder], capture_output=True, text=True,
                            cwd=ROOT, env={"PYTHONPATH": ROOT, "KERAS_BERT_LAZY_IMPORT": "1", "PATH": "/usr/bin"},
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout.splitlines()[-1])
    assert out["tensorflow"] == []
    rows = stored(folder)
    index_rows = [sorted(map(tuple, rows["input_word_ids"].tolist()))]
    host_rows = []
    for host in out["hosts"]:
        assert host["resumed"] and host["second_pass_differs"]
        assert host["shapes"]["input_word_ids"] == [[16, 32], "int32"]
        assert host["shapes"]["masked_lm_weights"] == [[16, 5], "float32"]
        assert host["shapes"]["next_sentence_labels"] == [[16], "int32"]
        assert 0.12 < host["masked_share"] < 0.16  # 15 % of the maskable tokens, whole words
        host_rows += host["first_pass"]
    # The two hosts' first passes are the stored rows, each once: disjoint shards, every row read.
    assert sorted(map(tuple, host_rows)) == index_rows[0]
    assert out["hosts"][0]["rows"] + out["hosts"][1]["rows"] == len(rows["input_word_ids"])


def test_a_folder_that_is_not_shards_or_too_few_shards_fail_in_one_line(shards, tmp_path):
    with pytest.raises(ValueError, match=r"is not a shards folder .*tools/write_shards.py"):
        ShardReader(tmp_path, 8)
    with pytest.raises(ValueError, match=r"holds 3 shard\(s\): process 3 of 4 has none"):
        ShardReader(shards[0], 8, process_index=3, process_count=4)
    first = ShardReader(shards[0], 8).batch(0)[0]["input_word_ids"]
    assert np.array_equal(first, ShardReader(shards[0], 8).batch(0)[0]["input_word_ids"])
    assert not np.array_equal(first, ShardReader(shards[0], 8, seed=1).batch(0)[0]["input_word_ids"])


def test_shard_batches_are_positioned_as_a_resumed_run_asks(shards):
    """`ShardBatches` (what a JAX run feeds `fit`): `skip(3).take(2)` gives batches 3 and 4; its spec, their shapes."""
    from keras_bert.data.shard_reader import ShardBatches

    reader = ShardReader(shards[0], 4, max_predictions_per_seq=5, seed=2)
    batches = list(ShardBatches(reader).skip(3).take(2))
    assert len(batches) == 2
    for step, (features, labels) in enumerate(batches, 3):
        expected_features, expected_labels = reader.batch(step)
        for name, value in {**expected_features, **expected_labels}.items():
            np.testing.assert_array_equal({**features, **labels}[name], value, err_msg=name)
    spec = ShardBatches(reader).element_spec[0]["masked_lm_positions"]
    assert tuple(spec.shape) == (4, 5) and spec.dtype == str(batches[0][0]["masked_lm_positions"].dtype)
