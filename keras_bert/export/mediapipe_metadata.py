"""MediaPipe's metadata in a TFLite file: the BERT tokenizer with its vocabulary, the id inputs, the output
(and a classifier's labels), written with the flatbuffer schema the `mediapipe` wheel ships (see mediapipe.py)."""

import io
import pathlib
import zipfile

import numpy as np

from keras_bert.export.serving_checks import ID_INPUTS

VOCAB_FILE = "vocab.txt"
LABELS_FILE = "labels.txt"
# Inputs process units, the BertTokenizer and VOCABULARY files are metadata schema 1.1.0
# (mediapipe/tasks/cc/metadata/metadata_version.cc); the wheel's native module would compute it.
MIN_PARSER_VERSION = "1.1.0"


def with_metadata(content, task, output, vocab_path, labels=()):
    """`content` (a TFLite model) with MediaPipe's metadata and associated files packed in.

    Args:
        content: the TFLite flatbuffer: three int32 id inputs (names ending in the id input
            names, e.g. `serving_default_input_word_ids:0`), one output.
        task: "classifier" (probabilities, `labels` packed as `labels.txt`) or "embedder".
        output: the output's metadata name.
        vocab_path: the WordPiece vocabulary, packed as `vocab.txt`.
        labels: a classifier's label names, by index.
    """
    # pylint: disable=import-outside-toplevel
    # mediapipe is optional (the test extra): imported only by this export.
    import flatbuffers
    from mediapipe.tasks.metadata import metadata_schema_py_generated as metadata_fb
    from mediapipe.tasks.metadata import schema_py_generated as schema_fb
    from mediapipe.tasks.python.metadata.metadata_writers import metadata_info, writer_utils

    model_inputs = writer_utils.get_input_tensor_names(content)
    by_input = {name: next((t for t in model_inputs if t == name or t.endswith(f"_{name}:0")), None)
                for name in ID_INPUTS}
    if None in by_input.values() or len(model_inputs) != 3:
        raise ValueError(f"A MediaPipe BERT model takes the inputs {list(ID_INPUTS)}; the TFLite model "
                         f"has {model_inputs}.")
    bert = metadata_info.BertInputTensorsMd(content, *by_input.values(),
                                            tokenizer_md=metadata_info.BertTokenizerMd(VOCAB_FILE))
    metadata_by_tensor = {md.tensor_name: md for md in bert.input_md}
    subgraph = metadata_fb.SubGraphMetadataT()
    subgraph.inputTensorMetadata = [metadata_by_tensor[name].create_metadata() for name in model_inputs]
    subgraph.inputProcessUnits = bert.create_input_process_unit_metadata()
    files = {VOCAB_FILE: pathlib.Path(vocab_path).read_bytes()}
    if task == "classifier":
        output_md = metadata_info.ClassificationTensorMd(
            name=output, description="Probabilities of the labels.",
            label_files=[metadata_info.LabelFileMd(LABELS_FILE)],
            tensor_type=writer_utils.get_output_tensor_types(content)[0])
        files[LABELS_FILE] = "\n".join(labels).encode("utf-8")
        name, description = "TextClassifier", "keras_bert BERT text classifier: probabilities of the labels."
    else:
        output_md = metadata_info.TensorMd(name=output, description="The text's embedding.")
        name, description = "TextEmbedder", f"keras_bert BERT text embedder: the model's {output}."
    subgraph.outputTensorMetadata = [output_md.create_metadata()]
    model_metadata = metadata_info.GeneralMd(name=name, description=description).create_metadata()
    model_metadata.subgraphMetadata = [subgraph]
    model_metadata.minParserVersion = MIN_PARSER_VERSION
    builder = flatbuffers.Builder(0)
    builder.Finish(model_metadata.Pack(builder), b"M001")  # the metadata schema's file identifier
    # The model with the metadata as its TFLITE_METADATA buffer (what MetadataPopulator writes).
    tflite = schema_fb.ModelT.InitFromObj(schema_fb.Model.GetRootAsModel(content, 0))
    buffer = schema_fb.BufferT()
    buffer.data = np.frombuffer(bytes(builder.Output()), np.uint8)
    tflite.buffers.append(buffer)
    entry = schema_fb.MetadataT()
    entry.name, entry.buffer = "TFLITE_METADATA", len(tflite.buffers) - 1
    tflite.metadata = [m for m in tflite.metadata or [] if m.name != b"TFLITE_METADATA"] + [entry]
    builder = flatbuffers.Builder(0)
    builder.Finish(tflite.Pack(builder), b"TFL3")
    # Associated files: a zip archive appended to the flatbuffer (MediaPipe reads it from the end).
    packed = io.BytesIO(bytes(builder.Output()))
    packed.seek(0, io.SEEK_END)
    with zipfile.ZipFile(packed, "a") as archive:
        for file_name, data in files.items():
            archive.writestr(file_name, data)
    return packed.getvalue()
