"""keras_bert.export: SavedModel (TF Serving), TFLite and ONNX export, each verified against Keras."""

from keras_bert.export.saved_model import next_version, saved_model
from keras_bert.export.serving_module import ServingModule
from keras_bert.export.verify import ExportReport, ParityError, ParityRow, format_table
from keras_bert.export.onnx import fused_op_counts, onnx
from keras_bert.export.tflite import tflite
