""".keras files move between backends: saved on TensorFlow, JAX or PyTorch, loaded on the next."""

import numpy as np
import pytest

from tests.models.keras_file_hop import hop
from tests.test_backends import on_tensorflow_only, run_python


@pytest.mark.slow
@on_tensorflow_only
def test_saved_on_one_backend_loads_on_the_next_with_the_same_outputs(tmp_path):
    """TensorFlow (here) -> JAX -> PyTorch (fresh interpreters) -> TensorFlow (here)."""
    data = str(tmp_path / "data.npz")
    paths = {backend: str(tmp_path / f"saved_on_{backend}.keras") for backend in ("tensorflow", "jax", "torch")}
    hop("-", paths["tensorflow"], data)
    results = []
    for previous, backend in (("tensorflow", "jax"), ("jax", "torch")):
        out = run_python(backend, "from tests.models.keras_file_hop import hop\n"
                                  f"print('RESULT', *hop({paths[previous]!r}, {paths[backend]!r}, {data!r}))")
        line = [l for l in out.splitlines() if l.startswith("RESULT")][-1].split()
        results.append((previous, line[1], float(line[2]), line[3] == "True"))
    backend, diff, same = hop(paths["torch"], str(tmp_path / "again.keras"), data)
    results.append(("torch", backend, diff, same))
    print(results)
    for saved_on, loaded_on, diff, same in results:
        assert same, f"weights changed from {saved_on} to {loaded_on}"
        # Same weights, another backend's kernels: float32 rounding only.
        assert diff <= 1e-5, f"{saved_on} -> {loaded_on}: max |output diff| {diff}"
    assert [r[1] for r in results] == ["jax", "torch", "tensorflow"]
    assert np.load(data)["out_mlm_logits"].shape == (2, 3, 60)
