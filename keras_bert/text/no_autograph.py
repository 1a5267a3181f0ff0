"""`no_autograph(fn)`: how keras_bert's tf.data functions are traced, as written.

Autograph rewrites a traced function's Python source, and that of every function it calls, to
turn `if` / `for` on tensors into graph ops. The text pipeline branches on no tensor, so the
rewrite buys nothing here and costs ~2 CPU-s a fine-tuning process (23 functions of `text/` and
tensorflow_text rewritten; measured on `tools/finetune.py` with a 2-layer classifier).
"""

import tensorflow as tf

no_autograph = tf.autograph.experimental.do_not_convert
