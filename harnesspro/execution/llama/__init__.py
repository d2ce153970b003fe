"""A real local model: its GGUF assembled from published packages, and a llama.cpp server a
run starts and stops for itself."""
