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

Error Session::checkInput(size_t index, uint8_t dtype, const int64_t *dims,
                          size_t rank, const void *data, uint64_t size,
                          std::vector<int64_t> &shape) const {
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
  shape.assign(dims, dims + rank);
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
  return {};
}

/// Whether `dtype`'s API bytes differ from the artifact's (sub-byte types):
/// a borrowed input of it is copied at each run.
static bool needsLayout(uint8_t dtype) {
  uint8_t probe = 0xff;
  toArtifactLayout(dtype, &probe, 1);
  return probe != 0xff;
}

/// Compiled code and kernels load and store elements at their natural
/// alignment (LLVM's default for a load without an alignment attribute is
/// the type's ABI alignment; the kernels use unaligned vector loads), so a
/// caller's buffer must be aligned to its element size, not more.
static Error checkAlignment(const std::string &what, const void *data,
                            uint8_t dtype) {
  uint64_t align = dtypeSize(dtype);
  if (data && align > 1 && reinterpret_cast<uintptr_t>(data) % align)
    return {STRATA_INVALID_ARGUMENT,
            what + ": the pointer " + std::to_string(uintptr_t(data)) +
                " is not aligned to its element size (" +
                std::to_string(align) + " bytes for " + dtypeName(dtype) + ")"};
  return {};
}

Error Session::reserveInput(size_t index, uint64_t size) {
  if (!inputs[index].bytes.reserve(size))
    return {STRATA_OUT_OF_MEMORY, "input '" + model.inputs[index].name +
                                      "': cannot allocate " +
                                      std::to_string(size) + " bytes"};
  return {};
}

Error Session::setInput(size_t index, uint8_t dtype, const int64_t *dims,
                        size_t rank, const void *data, uint64_t size) {
  std::vector<int64_t> shape;
  if (Error e = checkInput(index, dtype, dims, rank, data, size, shape))
    return e;
  if (Error e = reserveInput(index, size))
    return e;
  Input &in = inputs[index];
  if (size) {
    std::memcpy(in.bytes.data(), data, size);
    toArtifactLayout(dtype, in.bytes.data(), size);
  }
  in.shape = std::move(shape);
  in.bound = nullptr;
  in.set = true;
  return {};
}

Error Session::bindInput(size_t index, uint8_t dtype, const int64_t *dims,
                         size_t rank, const void *data, uint64_t size) {
  std::vector<int64_t> shape;
  if (Error e = checkInput(index, dtype, dims, rank, data, size, shape))
    return e;
  if (Error e = checkAlignment("input '" + model.inputs[index].name + "'", data,
                               dtype))
    return e;
  // A sub-byte dtype's bytes need rewriting (toArtifactLayout): those are
  // copied at each run instead (into session memory, never the caller's).
  if (needsLayout(dtype))
    if (Error e = reserveInput(index, size))
      return e;
  Input &in = inputs[index];
  in.shape = std::move(shape);
  in.bound = static_cast<const uint8_t *>(data);
  in.boundSize = size;
  in.set = true;
  return {};
}

Error Session::bindOutput(size_t index, void *data, uint64_t size) {
  if (index >= model.outputs.size())
    return {STRATA_INVALID_ARGUMENT,
            "output index " + std::to_string(index) +
                " is out of range (model '" + model.name + "' has " +
                std::to_string(model.outputs.size()) + " outputs)"};
  const TensorInfo &t = model.outputs[index];
  std::string what = "output '" + t.name + "'";
  if (!data && size)
    return {STRATA_INVALID_ARGUMENT, what + ": data is null"};
  if (Error e = checkAlignment(what, data, t.dtype))
    return e;
  Output &out = outputs[index];
  out.bound = static_cast<uint8_t *>(data);
  out.boundSize = data ? size : 0;
  ran = false; // an earlier run's view may point elsewhere
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
    if (out.bound && out.boundSize < out.size) {
      int r = variant->outputRuntimeShape[o];
      std::string shape =
          r < 0
              ? shapeString(out.shape)
              : shapeString(
                    variant->buffers[variant->runtimeShapes[r].buffer].shape) +
                    ", the bound of its run-time shape";
      return {STRATA_INVALID_ARGUMENT,
              "output '" + model.outputs[o].name + "' is bound to " +
                  std::to_string(out.boundSize) +
                  " bytes; the variant run needs " + std::to_string(out.size) +
                  " (" + dtypeName(model.outputs[o].dtype) + " " + shape + ")"};
    }
    if (!out.bound && !out.bytes.reserve(out.size))
      return {STRATA_OUT_OF_MEMORY,
              "cannot allocate output '" + model.outputs[o].name + "'"};
  }
  // Caller memory: a bound output must not overlap a bound input (a
  // dispatch may write the output before it reads the input) or another
  // bound output.
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Output &out = outputs[o];
    if (!out.bound || !out.size)
      continue;
    auto overlaps = [&](const uint8_t *p, uint64_t n) {
      return p && n && p < out.bound + out.size && out.bound < p + n;
    };
    for (size_t i = 0; i < inputs.size(); ++i)
      if (overlaps(inputs[i].bound, inputs[i].boundSize))
        return {STRATA_INVALID_ARGUMENT,
                "output '" + model.outputs[o].name +
                    "' is bound to memory that overlaps input '" +
                    model.inputs[i].name + "'"};
    for (size_t p = o + 1; p < outputs.size(); ++p)
      if (overlaps(outputs[p].bound, outputs[p].size))
        return {STRATA_INVALID_ARGUMENT,
                "outputs '" + model.outputs[o].name + "' and '" +
                    model.outputs[p].name +
                    "' are bound to overlapping memory"};
  }
  // A bound sub-byte input: copied into session memory in the artifact's
  // layout (the caller's bytes are never written).
  for (size_t i = 0; i < inputs.size(); ++i) {
    Input &in = inputs[i];
    if (in.bound && in.boundSize && needsLayout(model.inputs[i].dtype)) {
      std::memcpy(in.bytes.data(), in.bound, in.boundSize);
      toArtifactLayout(model.inputs[i].dtype, in.bytes.data(), in.boundSize);
    }
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
      case BufferKind::Input: {
        // Read only: the planner places no result (in place or not) in an
        // input's buffer, and dispatch arguments are bufferized read-only
        // (docs/runtime.md, "Borrowed memory").
        const Input &in = inputs[bp.index];
        p = const_cast<uint8_t *>(needsLayout(model.inputs[bp.index].dtype)
                                      ? in.bytes.data()
                                      : in.data());
        break;
      }
      case BufferKind::Output:
        p = outputs[bp.index].data();
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
    toApiLayout(model.outputs[o].dtype, outputs[o].data(), outputs[o].size);
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
  view.data = o.data();
  view.size_bytes = o.size;
  return {};
}

} // namespace strata::runtime
