"""What every benchmark shares: the machine's load, CPU seconds, memory, thread counts, timing calls,
ONNX Runtime sessions and the onnxruntime-extensions library (`keras_bert.compat.ortx_library`). Imports nothing heavy
at module level: the benchmarks' `--help` loads no TensorFlow."""

import os
import resource
import time

from keras_bert.compat import ortx_library  # noqa: F401  (re-exported for the benchmarks)


def cpu_load():
    """The 1, 5 and 15-minute load averages and the core count, as one phrase for a report."""
    load = os.getloadavg()
    return f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs"


def cpu_seconds():
    """User + system CPU time of this process, every thread (robust to other load on the machine)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def memory_mib(field="VmHWM"):
    """This process's `field` of /proc/self/status in MiB: VmHWM, the peak resident memory so far; VmRSS, now."""
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":")) / 1024


def timed(function, *args):
    """(result, wall seconds, process CPU seconds) of one call."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    result = function(*args)
    return result, time.perf_counter() - wall, cpu_seconds() - cpu


def round_robin_ms(functions, inputs, warmup=1):
    """`{name: [ms, ...]}`: each of `inputs` goes to every function in turn (a shared CPU's load hits
    each alike); the first `warmup` inputs are not timed."""
    times = {name: [] for name in functions}
    for index, item in enumerate(inputs):
        for name, function in functions.items():
            start = time.perf_counter()
            function(item)
            if index >= warmup:
                times[name].append(1000 * (time.perf_counter() - start))
    return times


def ort_session(path, threads, custom_ops=None):
    """An ONNX Runtime CPU session of `threads` intra-op threads (`custom_ops`: a custom-op library to register)."""
    import onnxruntime  # pylint: disable=import-outside-toplevel

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    if custom_ops:
        options.register_custom_ops_library(custom_ops)
    return onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def set_threads(threads, tensorflow=True, torch=True):
    """The same thread count for TensorFlow (before its first op) and torch."""
    if tensorflow:
        import tensorflow as tf  # pylint: disable=import-outside-toplevel

        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
    if torch:
        import torch as torch_module  # pylint: disable=import-outside-toplevel

        torch_module.set_num_threads(threads)
