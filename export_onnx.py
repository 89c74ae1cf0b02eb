"""Export a training checkpoint to the ONNX model the tutor plays with (needs the `train` extra).

    python export_onnx.py CHECKPOINT [--out FILE.onnx]

Same as `cuarenta-tutor export`: by default the model goes to your models folder (the shipped one is replaced
only when named with --out), with its card beside it. The export fails unless onnxruntime matches PyTorch.
"""

import sys

from cuarenta_tutor.cli import main

if __name__ == "__main__":
    sys.exit(main(["export", *sys.argv[1:]]))
