"""Core TensorFlow ops the exported raw-text signatures use (tests/export/test_serving_ops.py).

Each is registered, with the same inputs and attrs, in TensorFlow 2.10.1 and 2.12.0: checked in the
tensorflow-cpu wheels of those releases (`op_def_registry.get(name)` in 2.12.0; the generated
`tensorflow/python/**/gen_*.py` wrappers, `raw_ops.<Op>` and its `_apply_op_helper` keywords, in both).
TF Serving 2.10.1 and 2.12.0 pin TensorFlow commits of those releases (SERVER_PINS). TensorFlow's op
compatibility guarantee keeps registered ops and their attrs (core/ops/compat/ops_history_v2), so
later servers have them. A new op in a signature fails the test until it is checked the same way.
"""

CHECKED_FROM = "2.10.1"  # the oldest TensorFlow release the ops below were checked in
CORE_OPS = frozenset("""
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
