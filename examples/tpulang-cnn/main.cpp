//===- main.cpp - a small CNN built with the TpuLang C++ API --------------===//
//
// conv_v2 (3x3, pad 1) -> relu -> maxpool 2x2 -> reshape -> matmul (+ bias).
// Weights are random from a fixed seed. Usage: tpulang-cnn OUTPUT_DIR
// writes OUTPUT_DIR/cnn_origin.mlir and OUTPUT_DIR/cnn_TOP_F32_all_weight.npz.
//
//===----------------------------------------------------------------------===//

#include "strata/TpuLang/TpuLang.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <vector>

namespace tl = strata::tpulang;

static std::vector<float> randomValues(std::mt19937 &rng, size_t n,
                                       float scale) {
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (float &x : v)
    x = dist(rng);
  return v;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  std::filesystem::path out(argv[1]);
  std::filesystem::create_directories(out);
  std::mt19937 rng(20240601);

  try {
    tl::init("CPU");
    // Input image: 1 x 3 x 8 x 8.
    tl::Tensor image({1, 3, 8, 8}, "float32", "image");
    // conv1: 8 filters of 3x3 over 3 channels, bias per output channel.
    tl::Tensor w1({8, 3, 3, 3}, "float32", "conv1_weight",
                  randomValues(rng, 8 * 3 * 3 * 3, 0.3f), "coeff");
    tl::Tensor b1({1, 8, 1, 1}, "float32", "conv1_bias",
                  randomValues(rng, 8, 0.1f), "coeff");
    tl::Tensor conv = tl::conv_v2(image, w1, b1, tl::IntList{1, 1},
                                  tl::IntList{1, 1}, tl::IntList{1, 1, 1, 1},
                                  /*group=*/1, std::nullopt, std::nullopt,
                                  std::nullopt, std::string("conv1"));
    tl::Tensor act = tl::relu(conv, std::string("relu1"));
    tl::Tensor pool = tl::maxpool2d(act, tl::IntList{2, 2}, tl::IntList{2, 2},
                                    std::nullopt, false, std::nullopt,
                                    std::nullopt, std::string("pool1"));
    // 1 x 8 x 4 x 4 -> 1 x 128 -> fully connected to 10 classes.
    tl::Tensor flat = tl::reshape(pool, {1, -1}, std::string("flatten"));
    tl::Tensor fcW({128, 10}, "float32", "fc_weight",
                   randomValues(rng, 128 * 10, 0.1f), "coeff");
    tl::Tensor fcB({10}, "float32", "fc_bias", randomValues(rng, 10, 0.1f),
                   "coeff");
    tl::Tensor logits = tl::matmul(flat, fcW, fcB, false, false, false, true,
                                   std::nullopt, std::string("logits"));
    std::printf("conv1 %s -> pool1 %s -> logits %s\n",
                strata::shapeToString(conv.shape()).c_str(),
                strata::shapeToString(pool.shape()).c_str(),
                strata::shapeToString(logits.shape()).c_str());
    tl::compile((out / "cnn").string(), {image}, {logits});
    tl::deinit();
  } catch (const tl::Error &e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  std::printf("wrote %s and %s\n", (out / "cnn_origin.mlir").c_str(),
              (out / "cnn_TOP_F32_all_weight.npz").c_str());
  return 0;
}
