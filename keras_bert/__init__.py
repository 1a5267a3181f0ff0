"""keras_bert: BERT for TensorFlow/Keras. Public API: explicit re-exports only."""

from keras_bert.checkpoints import compare_with_transformers, load_checkpoint, save_checkpoint
from keras_bert.config import PRESETS, BertConfig
from keras_bert.layers import (
    BertEmbeddings,
    MaskedLMHead,
    NextSentenceHead,
    Pooler,
    TransformerEncoderBlock,
)
from keras_bert.models import (
    BertEncoder,
    BertPretrainer,
    build_classifier,
    build_encoder,
    build_pretrainer,
    build_span_labeler,
    build_token_classifier,
)
from keras_bert.data import pretraining_dataset, shakespeare_bert_files, shakespeare_files
from keras_bert.text import MaskedLmMasker, Preprocessor, TextConfig, Tokenizer, build_vocab
from keras_bert.training import (
    LinearWarmup,
    ResumableCheckpoint,
    bert_schedule,
    create_optimizer,
    fill_mask,
    finetune_task,
    get_strategy,
    pretraining_input,
    run_finetuning,
    run_pretraining,
    set_mixed_precision,
)

# keras_bert.export (SavedModel, TFLite, ONNX) needs the "export" extra (onnx,
# tf2onnx, ai-edge-litert); import it explicitly: `from keras_bert import export`.

__version__ = "0.1.0"
