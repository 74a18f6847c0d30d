# The benchmarks' model, sourced by each of them so that their figures are of one model: 8
# layers, 512 wide, F32, random weights (llmscope-make-model).
bench_shape=(--layers 8 --width 512 --heads 8 --kv-heads 4 --ff 1024)
