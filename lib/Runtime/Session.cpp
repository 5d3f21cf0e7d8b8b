//===- Session.cpp - Runs a model
//------------------------------------------===//

#include "Session.h"

#include <cstdlib>
#include <cstring>

namespace strata::runtime {

AlignedBytes::~AlignedBytes() { std::free(ptr); }

AlignedBytes::AlignedBytes(AlignedBytes &&other) noexcept
    : ptr(other.ptr), capacity(other.capacity) {
  other.ptr = nullptr;
  other.capacity = 0;
}

bool AlignedBytes::reserve(uint64_t size) {
  if (ptr && size <= capacity)
    return true;
  uint64_t rounded = (size + 63) / 64 * 64;
  if (rounded < size)
    return false;
  if (rounded == 0)
    rounded = 64;
  void *p = std::aligned_alloc(64, rounded);
  if (!p)
    return false;
  std::free(ptr);
  ptr = static_cast<uint8_t *>(p);
  capacity = rounded;
  return true;
}

Session::Session(const Model &model, size_t threads)
    : model(model), pool(threads), inputs(model.inputs.size()),
      outputs(model.outputs.size()) {}

Error Session::setInput(size_t index, uint8_t dtype, const int64_t *dims,
                        size_t rank, const void *data, uint64_t size) {
  if (index >= model.inputs.size())
    return {STRATA_INVALID_ARGUMENT,
            "input index " + std::to_string(index) +
                " is out of range (model '" + model.name + "' has " +
                std::to_string(model.inputs.size()) + " inputs)"};
  const TensorInfo &t = model.inputs[index];
  std::string what = "input '" + t.name + "'";
  if (dtype != t.dtype)
    return {STRATA_INVALID_ARGUMENT,
            what + " is " + dtypeName(t.dtype) + ", not " + dtypeName(dtype)};
  if (rank && !dims)
    return {STRATA_INVALID_ARGUMENT, what + ": dims is null"};
  std::vector<int64_t> shape(dims, dims + rank);
  bool fits = rank == t.shape.size();
  for (size_t i = 0; fits && i < rank; ++i)
    fits = shape[i] >= 0 && (t.shape[i] == -1 || t.shape[i] == shape[i]);
  if (!fits)
    return {STRATA_INVALID_ARGUMENT, what + " has shape " +
                                         shapeString(t.shape) + ", not " +
                                         shapeString(shape)};
  uint64_t bytes = dtypeSize(dtype);
  for (int64_t d : shape)
    if (__builtin_mul_overflow(bytes, uint64_t(d), &bytes))
      return {STRATA_INVALID_ARGUMENT,
              what + ": shape " + shapeString(shape) + " overflows"};
  if (bytes != size)
    return {STRATA_INVALID_ARGUMENT,
            what + " " + dtypeName(dtype) + " " + shapeString(shape) + " is " +
                std::to_string(bytes) + " bytes, not " + std::to_string(size)};
  if (size && !data)
    return {STRATA_INVALID_ARGUMENT, what + ": data is null"};
  Input &in = inputs[index];
  if (!in.bytes.reserve(size))
    return {STRATA_OUT_OF_MEMORY,
            what + ": cannot allocate " + std::to_string(size) + " bytes"};
  if (size) {
    std::memcpy(in.bytes.data(), data, size);
    toArtifactLayout(dtype, in.bytes.data(), size);
  }
  in.shape = std::move(shape);
  in.set = true;
  return {};
}

Error Session::run() {
  ran = false;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i].set)
      return {STRATA_INVALID_ARGUMENT,
              "input '" + model.inputs[i].name + "' is not set"};
  const VariantPlan *variant = nullptr;
  for (const VariantPlan &v : model.variants) {
    bool match = true;
    for (size_t i = 0; match && i < inputs.size(); ++i)
      match = v.inputShapes[i] == inputs[i].shape;
    if (match) {
      variant = &v;
      break;
    }
  }
  if (!variant) {
    std::string have, want;
    for (size_t i = 0; i < inputs.size(); ++i)
      have += (i ? ", " : "") + shapeString(inputs[i].shape);
    for (const VariantPlan &v : model.variants) {
      want += want.empty() ? "" : "; ";
      for (size_t i = 0; i < v.inputShapes.size(); ++i)
        want += (i ? ", " : "") + shapeString(v.inputShapes[i]);
    }
    return {STRATA_INVALID_ARGUMENT,
            "model '" + model.name + "' was not compiled for input shapes " +
                have + " (its variants take: " + want + ")"};
  }
  if (!arena.reserve(variant->arenaSize))
    return {STRATA_OUT_OF_MEMORY, "cannot allocate the arena (" +
                                      std::to_string(variant->arenaSize) +
                                      " bytes)"};
  for (size_t o = 0; o < outputs.size(); ++o) {
    Output &out = outputs[o];
    out.shape = variant->outputShapes[o];
    // A run-time shape's bound, else the static size (both verified).
    out.size = variant->outputCapacity[o];
    if (!out.bytes.reserve(out.size))
      return {STRATA_OUT_OF_MEMORY,
              "cannot allocate output '" + model.outputs[o].name + "'"};
  }
  runtimeDims.assign(variant->runtimeShapes.size(), {});
  for (size_t di = 0; di < variant->dispatches.size(); ++di) {
    const DispatchPlan &d = variant->dispatches[di];
    bindings.clear();
    for (uint32_t b : d.bindings) {
      const BufferPlan &bp = variant->buffers[b];
      uint8_t *p = nullptr;
      switch (bp.kind) {
      case BufferKind::Arena:
        p = arena.data() + bp.offset;
        break;
      case BufferKind::Input:
        p = inputs[bp.index].bytes.data();
        break;
      case BufferKind::Output:
        p = outputs[bp.index].bytes.data();
        break;
      case BufferKind::Constant:
        p = const_cast<uint8_t *>(model.data + bp.offset);
        break;
      }
      bindings.push_back(p);
    }
    std::string error;
    if (!d.function->run(bindings.data(), d.params.data(), d.workgroupCount,
                         pool, error))
      return {STRATA_RUN_FAILED,
              "dispatch " + std::to_string(di) + " failed: " + error};
    for (uint32_t r : variant->runtimeShapesAfter[di])
      if (Error e = readRuntimeShape(*variant, r, di))
        return e;
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (int r = variant->outputRuntimeShape[o]; r >= 0) {
      outputs[o].shape = runtimeDims[r];
      outputs[o].size = dtypeSize(model.outputs[o].dtype);
      for (int64_t d : outputs[o].shape)
        outputs[o].size *= uint64_t(d); // within the bound: checked
    }
    toApiLayout(model.outputs[o].dtype, outputs[o].bytes.data(),
                outputs[o].size);
  }
  ran = true;
  return {};
}

Error Session::readRuntimeShape(const VariantPlan &variant, uint32_t r,
                                size_t dispatch) {
  const RuntimeShapePlan &rs = variant.runtimeShapes[r];
  const BufferPlan &b = variant.buffers[rs.buffer];
  const BufferPlan &s = variant.buffers[rs.shapeBuffer];
  std::vector<int64_t> dims(b.shape.size());
  if (!dims.empty())
    std::memcpy(dims.data(), arena.data() + s.offset, dims.size() * 8);
  // Each dim within its bound (so the bytes are within the buffer); an
  // output's static dims as the variant says.
  bool ok = true;
  for (size_t i = 0; ok && i < dims.size(); ++i)
    ok = dims[i] >= 0 && dims[i] <= b.shape[i] &&
         (b.kind != BufferKind::Output ||
          variant.outputShapes[b.index][i] == -1 ||
          variant.outputShapes[b.index][i] == dims[i]);
  if (!ok)
    return {STRATA_RUN_FAILED,
            "dispatch " + std::to_string(dispatch) + " (" + rs.origin +
                "): the result's run-time shape " + shapeString(dims) +
                " exceeds its compiled bound " + shapeString(b.shape) +
                " (docs/runtime.md, run-time shapes)"};
  runtimeDims[r] = std::move(dims);
  return {};
}

Error Session::output(size_t index, strata_tensor_view &view) const {
  if (index >= outputs.size())
    return {STRATA_INVALID_ARGUMENT,
            "output index " + std::to_string(index) +
                " is out of range (model '" + model.name + "' has " +
                std::to_string(outputs.size()) + " outputs)"};
  if (!ran)
    return {STRATA_INVALID_ARGUMENT,
            "the outputs are read after a successful run"};
  const Output &o = outputs[index];
  view.name = model.outputs[index].name.c_str();
  view.dtype = strata_dtype(model.outputs[index].dtype);
  view.rank = o.shape.size();
  view.dims = o.shape.data();
  view.data = o.bytes.data();
  view.size_bytes = o.size;
  return {};
}

} // namespace strata::runtime
