"""bench_serve's contestants: for each task, keras_bert's exports (loaded with tensorflow,
tensorflow_text, LiteRT and onnxruntime only: no keras_bert code) and the transformers peers on the
same weights. See tools/bench_serve.py."""

import os

import numpy as np

from _bench_common import ort_session, ortx_library
from _bench_serve_qa import HF_INPUTS, QUESTION, decode_answers, qa_windows

LABELS = ["negative", "positive"]
TAGS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
ORT_PEER, ORT_PEER_OPSET = "onnxruntime + HF tokenizer", 17  # 17: ONNX's LayerNormalization op
HF_BF16_PEER = "transformers bf16 + numpy"  # QA's second peer: the model in bfloat16 (model.to(torch.bfloat16))


def peer_onnx_path(work):
    return os.path.join(work, "classification", "peer_onnx", "model.onnx")


def hf_model(work, task):
    """The task's transformers model on the saved encoder, with the Keras head copied in
    (whether or not the Hugging Face save wrote it: the same weights either way)."""
    import torch  # pylint: disable=import-outside-toplevel
    import transformers  # pylint: disable=import-outside-toplevel

    folder = os.path.join(work, task, "huggingface")
    kinds = {"classification": (transformers.BertForSequenceClassification, LABELS, "classifier"),
             "ner": (transformers.BertForTokenClassification, TAGS, "classifier"),
             "qa": (transformers.BertForQuestionAnswering, ["start", "end"], "qa_outputs")}
    kind, labels, head_name = kinds[task]
    model = kind.from_pretrained(folder, num_labels=len(labels), id2label=dict(enumerate(labels)),
                                 label2id={l: i for i, l in enumerate(labels)}).eval()
    head = np.load(os.path.join(work, task, "head.npz"))
    with torch.no_grad():
        getattr(model, head_name).weight.copy_(torch.from_numpy(head["kernel"].T.copy()))
        getattr(model, head_name).bias.copy_(torch.from_numpy(head["bias"]))
    return model, transformers.AutoTokenizer.from_pretrained(folder)


def classification_contestants(work, threads):
    import ai_edge_litert.interpreter as litert  # pylint: disable=import-outside-toplevel
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    import tensorflow_text  # pylint: disable=import-outside-toplevel
    import transformers  # pylint: disable=import-outside-toplevel

    saved = tf.saved_model.load(os.path.join(work, "classification", "savedmodel", "1")).signatures["classify"]

    def savedmodel(texts):
        out = saved(text_a=tf.constant(texts))
        return [label.decode() for label in out["top_label"].numpy()], out["probabilities"].numpy()

    tflite_path = os.path.join(work, "classification", "tflite", "text_float32.tflite")
    interpreter = litert.InterpreterWithCustomOps(
        model_path=tflite_path, custom_op_registerers=tensorflow_text.tflite_registrar.SELECT_TFTEXT_OPS,
        num_threads=threads)
    runner = interpreter.get_signature_runner("classify")

    def tflite(texts):
        out = runner(text_a=np.array(texts, object))
        return [label.decode() for label in out["top_label"]], out["probabilities"]

    session = ort_session(os.path.join(work, "classification", "onnx", "text_model.onnx"), threads, ortx_library())
    empty = np.array([], object)

    def onnx(texts):  # the text model takes one example a call
        outs = [session.run(["top_label", "probabilities"], {"text_a": np.array([t], object), "text_b": empty})
                for t in texts]
        return ([_text(o[0].reshape(-1)[0]) for o in outs], np.concatenate([o[1].reshape(1, -1) for o in outs]))

    model, tokenizer = hf_model(work, "classification")
    pipe = transformers.pipeline("text-classification", model=model, tokenizer=tokenizer, device=-1, top_k=None)

    def peer(texts):
        results = pipe(texts, batch_size=len(texts))
        probabilities = np.array([[{r["label"]: r["score"] for r in result}[label] for label in LABELS]
                                  for result in results], np.float32)
        return [LABELS[i] for i in probabilities.argmax(1)], probabilities

    if not os.path.exists(peer_onnx_path(work)):
        raise ValueError(f"--work_dir {work!r} has no {peer_onnx_path(work)} (exported by an older bench_serve): "
                         "run without --reuse to export again.")
    peer_session = ort_session(peer_onnx_path(work), threads)

    def onnxruntime_peer(texts):
        encoded = tokenizer(texts, padding="longest", truncation=True, return_tensors="np")
        logits = peer_session.run(["logits"], {name: encoded[name].astype(np.int64) for name in HF_INPUTS})[0]
        exp = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities = (exp / exp.sum(axis=1, keepdims=True)).astype(np.float32)
        return [LABELS[i] for i in probabilities.argmax(1)], probabilities

    def agree(ours, theirs):
        same = np.mean([a == b for a, b in zip(ours[0], theirs[0])])
        return f"top label {same:.0%} equal, probabilities max |diff| {np.abs(ours[1] - theirs[1]).max():.1e}"

    ours = {"SavedModel classify": savedmodel, "TFLite text_float32": tflite, "ONNX text_model": onnx}
    return ours, {ORT_PEER: onnxruntime_peer, "transformers pipeline": peer}, agree


def ner_contestants(work, threads):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    import tensorflow_text  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    import transformers  # pylint: disable=import-outside-toplevel

    saved = tf.saved_model.load(os.path.join(work, "ner", "savedmodel", "1")).signatures["entities"]

    def savedmodel(texts):
        out = {k: v.numpy() for k, v in saved(text=tf.constant(texts)).items()}
        return [{(int(s), int(e), lab.decode()) for s, e, lab in
                 zip(out["start_char"][i][:n], out["end_char"][i][:n], out["entity_label"][i][:n])}
                for i, n in enumerate(out["num_entities"])]

    model, tokenizer = hf_model(work, "ner")
    pipe = transformers.pipeline("token-classification", model=model, tokenizer=tokenizer, device=-1,
                                 aggregation_strategy="first")

    def peer(texts):
        return [{(r["start"], r["end"], r["entity_group"]) for r in result}
                for result in pipe(texts, batch_size=len(texts))]

    def agree(ours, theirs):
        same = np.mean([a == b for a, b in zip(ours, theirs)])
        found = sum(len(a) for a in ours)
        return f"entity spans equal in {same:.0%} of texts ({found} entities)"

    return {"SavedModel entities": savedmodel}, {"transformers pipeline": peer}, agree


def qa_contestants(work, threads):
    import tensorflow as tf  # pylint: disable=import-outside-toplevel
    import tensorflow_text  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
    import torch  # pylint: disable=import-outside-toplevel

    def savedmodel(folder):
        saved = tf.saved_model.load(os.path.join(work, "qa", folder, "1")).signatures["answer"]

        def answer(contexts):
            out = saved(question=tf.constant([QUESTION] * len(contexts)), context=tf.constant(contexts))
            return [a.decode() for a in out["answer_text"].numpy()]
        return answer

    def peer(model, tokenizer):
        def answer(contexts):
            enc = qa_windows(tokenizer, contexts)
            with torch.no_grad():
                out = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                            token_type_ids=enc["token_type_ids"])
            return decode_answers(enc, out.start_logits.float().numpy(), out.end_logits.float().numpy(), contexts)
        return answer

    def agree(ours, theirs):
        return f"answer text equal for {np.mean([a == b for a, b in zip(ours, theirs)]):.0%} of contexts"

    model, tokenizer = hf_model(work, "qa")
    model_bf16 = hf_model(work, "qa")[0].to(torch.bfloat16)  # the same weights in bfloat16: like for like
    return ({"SavedModel answer": savedmodel("savedmodel"), "SavedModel answer, bf16": savedmodel("savedmodel_bf16")},
            {HF_BF16_PEER: peer(model_bf16, tokenizer), "transformers + numpy": peer(model, tokenizer)}, agree)


CONTESTANTS = {"classification": classification_contestants, "ner": ner_contestants, "qa": qa_contestants}


def _text(value):
    return value.decode() if isinstance(value, bytes) else str(value)
