"""Writes the small .tflite models the TFLite lit tests import (built with
test/tflite/tflite_builder.py). usage: make_models.py OUT_DIR"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "tflite"))
from tflite_builder import ModelBuilder, enum  # noqa: E402

P, A = enum("Padding"), enum("ActivationFunctionType")
out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def save(name, b, outs):
    with open(os.path.join(out, name + ".tflite"), "wb") as f:
        f.write(b.finish(outs))


# Float: CONV_2D (SAME, stride 2, RELU6), DEPTHWISE_CONV_2D (multiplier 2).
b = ModelBuilder()
x = b.input("x", [1, 7, 7, 3])
w = b.const("w", np.ones((8, 3, 3, 3), np.float32))
y = b.tensor("y", [1, 4, 4, 8])
b.op("CONV_2D", [x, w, b.const("b", np.zeros(8, np.float32))], [y], "Conv2DOptions",
     padding=P.SAME, strideH=2, strideW=2, dilationHFactor=1, dilationWFactor=1,
     fusedActivationFunction=A.RELU6)
dw = b.const("dw", np.ones((1, 3, 3, 16), np.float32))
z = b.tensor("z", [1, 4, 4, 16])
b.op("DEPTHWISE_CONV_2D", [y, dw, b.const("db", np.zeros(16, np.float32))], [z],
     "DepthwiseConv2DOptions", padding=P.SAME, strideH=1, strideW=1, depthMultiplier=2,
     dilationHFactor=1, dilationWFactor=1)
save("conv", b, [z])

# int8: CONV_2D with per-channel filter scales, RELU; FULLY_CONNECTED.
b = ModelBuilder()
x = b.input("x", [1, 4, 4, 2], np.int8, quant=(0.5, -3))
w = b.const("w", np.ones((2, 1, 1, 2), np.int8), quant=([0.25, 0.125], [0, 0], 0))
y = b.tensor("y", [1, 4, 4, 2], np.int8, quant=(1.0, 4))
b.op("CONV_2D", [x, w, b.const("b", np.array([1, 2], np.int32))], [y], "Conv2DOptions",
     padding=P.VALID, strideH=1, strideW=1, dilationHFactor=1, dilationWFactor=1,
     fusedActivationFunction=A.RELU)
save("conv_int8", b, [y])

# float16 weights behind DEQUANTIZE; QUANTIZE to uint8.
b = ModelBuilder()
x = b.input("x", [2, 3])
h = b.const("h", np.full((2, 3), 0.5, np.float16))
f = b.tensor("f", [2, 3])
b.op("DEQUANTIZE", [h], [f])
s = b.tensor("s", [2, 3])
b.op("ADD", [x, f], [s], "AddOptions")
q = b.tensor("q", [2, 3], np.uint8, quant=(0.1, 128))
b.op("QUANTIZE", [s], [q])
save("quant", b, [q])

# int8 FULLY_CONNECTED with a per-tensor filter: TFLite-mode Requant.
b = ModelBuilder()
x = b.input("x", [2, 4], np.int8, quant=(0.5, 1))
w = b.const("w", np.ones((3, 4), np.int8), quant=(0.25, 0))
y = b.tensor("y", [2, 3], np.int8, quant=(1.0, -2))
b.op("FULLY_CONNECTED", [x, w, -1], [y], "FullyConnectedOptions")
save("fc_int8", b, [y])
