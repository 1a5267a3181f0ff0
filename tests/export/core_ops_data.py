"""Core TensorFlow ops the exported raw-text signatures use (tests/export/test_serving_ops.py), each
checked registered in TensorFlow 2.12.0: `tensorflow.python.framework.op_def_registry.get(name)` in the
tensorflow-cpu 2.12.0 wheel (built from tag v2.12.0; TF Serving 2.12.x pins TensorFlow 2.12 commits). TensorFlow's
op compatibility guarantee keeps registered ops (core/ops/compat/ops_history_v2), so later servers have them.
A new op in a signature fails the test until it is checked the same way and added here."""

CORE_OPS_TF_2_12 = frozenset("""
AddV2 All Any ArgMax Assert BatchMatMulV2 BiasAdd BroadcastTo Cast ConcatV2 Const Cumsum
DenseBincount Equal Erf ExpandDims Fill FloorDiv FloorMod GatherNd GatherV2 Greater GreaterEqual
HashTableV2 Identity If InvertPermutation Less LessEqual LogicalAnd LogicalNot LogicalOr
LookupTableFindV2 LowerBound MatMul Max Maximum Mean Minimum Mul Neg NoOp NotEqual Pack Pad
Placeholder PlaceholderWithDefault Prod RaggedGather RaggedRange RaggedTensorToTensor Range
ReadVariableOp RealDiv Reshape Rsqrt SelectV2 Shape Sigmoid Size Softmax Sqrt Square
SquaredDifference Squeeze StatefulPartitionedCall StatelessIf StaticRegexFullMatch
StaticRegexReplace StopGradient StridedSlice StringLength StringLower StringSplitV2 Sub Substr Sum
Tanh Tile TopKV2 Transpose UnicodeDecode UnicodeEncode UnicodeTranscode UnsortedSegmentJoin
UnsortedSegmentMax UnsortedSegmentMin UnsortedSegmentSum UpperBound VarHandleOp Where ZerosLike
""".split())
