// serving_check: loads a SavedModel the way TF Serving does and runs one signature.
//
// Uses the same C++ entry points as tensorflow_model_server: tensorflow::LoadSavedModel
// (tag "serve"), a SignatureDef looked up by name, saved_model::GetInputValues (which
// applies the signature's default values for inputs a request leaves out) and
// Session::Run. tensorflow-text's op libraries are loaded first with TF_LoadLibrary,
// as the model server links them in.
//
// Usage:
//   serving_check --saved_model=DIR --signature=NAME --output_dir=DIR
//                 [--op_library=LIB.so]... [--input=NAME=TENSOR_PROTO_FILE]...
// Each input file holds one serialized tensorflow.TensorProto; each output is written as
// OUTPUT_DIR/<alias>.pb (a serialized TensorProto). Exit status: 0 ok, 1 run error,
// 2 bad usage / load error.

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tensorflow/c/c_api.h"
#include "tensorflow/cc/saved_model/loader.h"
#include "tensorflow/cc/saved_model/util.h"
#include "tensorflow/core/framework/tensor.h"
#include "tensorflow/core/framework/tensor.pb.h"
#include "tensorflow/core/protobuf/meta_graph.pb.h"
#include "tensorflow/core/public/session.h"

namespace {

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool ReadFile(const std::string& path, std::string* contents) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  std::ostringstream buffer;
  buffer << file.rdbuf();
  *contents = buffer.str();
  return true;
}

int Fail(int code, const std::string& message) {
  std::cerr << "serving_check: " << message << std::endl;
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::string saved_model_dir, signature_name, output_dir;
  std::vector<std::string> op_libraries;
  std::vector<std::pair<std::string, std::string>> input_files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (StartsWith(arg, "--saved_model=")) {
      saved_model_dir = arg.substr(14);
    } else if (StartsWith(arg, "--signature=")) {
      signature_name = arg.substr(12);
    } else if (StartsWith(arg, "--output_dir=")) {
      output_dir = arg.substr(13);
    } else if (StartsWith(arg, "--op_library=")) {
      op_libraries.push_back(arg.substr(13));
    } else if (StartsWith(arg, "--input=")) {
      const std::string spec = arg.substr(8);
      const size_t eq = spec.find('=');
      if (eq == std::string::npos) return Fail(2, "--input expects NAME=FILE, got " + spec);
      input_files.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
    } else {
      return Fail(2, "unknown argument " + arg +
                         "; expected --saved_model= --signature= --output_dir= "
                         "[--op_library=]... [--input=NAME=FILE]...");
    }
  }
  if (saved_model_dir.empty() || signature_name.empty() || output_dir.empty()) {
    return Fail(2, "--saved_model, --signature and --output_dir are required");
  }

  // 1. Custom ops (tensorflow-text), as the model server links them.
  for (const std::string& library : op_libraries) {
    TF_Status* status = TF_NewStatus();
    TF_Library* handle = TF_LoadLibrary(library.c_str(), status);
    if (TF_GetCode(status) != TF_OK) {
      const std::string message = TF_Message(status);
      TF_DeleteStatus(status);
      return Fail(2, "could not load op library " + library + ": " + message);
    }
    TF_DeleteStatus(status);
    (void)handle;  // kept loaded for the life of the process
  }

  // 2. The SavedModel, tag "serve": TF Serving's loader.
  tensorflow::SavedModelBundle bundle;
  tensorflow::SessionOptions session_options;
  tensorflow::RunOptions run_options;
  absl::Status status = tensorflow::LoadSavedModel(
      session_options, run_options, saved_model_dir, {"serve"}, &bundle);
  if (!status.ok()) return Fail(2, "LoadSavedModel failed: " + std::string(status.message()));

  // 3. The signature, by name.
  const auto& signatures = bundle.meta_graph_def.signature_def();
  auto found = signatures.find(signature_name);
  if (found == signatures.end()) {
    std::string names;
    for (const auto& entry : signatures) names += " " + entry.first;
    return Fail(2, "signature " + signature_name + " not found; the SavedModel has:" + names);
  }
  const tensorflow::SignatureDef& signature = found->second;

  // 4. Request inputs -> feeds (defaults filled in for inputs not given, as TF Serving does).
  google::protobuf::Map<std::string, tensorflow::TensorProto> request;
  for (const auto& [name, path] : input_files) {
    std::string bytes;
    if (!ReadFile(path, &bytes)) return Fail(2, "cannot read input file " + path);
    tensorflow::TensorProto proto;
    if (!proto.ParseFromString(bytes)) return Fail(2, path + " is not a serialized TensorProto");
    request[name] = proto;
  }
  std::vector<std::pair<std::string, tensorflow::Tensor>> feeds;
  status = tensorflow::saved_model::GetInputValues(signature, request, feeds);
  if (!status.ok()) return Fail(1, "bad request: " + std::string(status.message()));

  // 5. Session::Run on every output of the signature.
  std::vector<std::string> aliases, fetches;
  for (const auto& entry : signature.outputs()) {
    aliases.push_back(entry.first);
    fetches.push_back(entry.second.name());
  }
  std::vector<tensorflow::Tensor> outputs;
  status = bundle.GetSession()->Run(feeds, fetches, {}, &outputs);
  if (!status.ok()) return Fail(1, "Session::Run failed: " + std::string(status.message()));

  for (size_t i = 0; i < outputs.size(); ++i) {
    tensorflow::TensorProto proto;
    if (outputs[i].dtype() == tensorflow::DT_STRING) {
      outputs[i].AsProtoField(&proto);  // strings have no packed tensor_content form
    } else {
      outputs[i].AsProtoTensorContent(&proto);
    }
    const std::string path = output_dir + "/" + aliases[i] + ".pb";
    std::ofstream file(path, std::ios::binary);
    if (!file || !proto.SerializeToOstream(&file)) return Fail(2, "cannot write " + path);
    std::cout << aliases[i] << " " << tensorflow::DataTypeString(outputs[i].dtype()) << " "
              << outputs[i].shape().DebugString() << std::endl;
  }
  return 0;
}
