//===- Verify.cpp - Checks a .strata artifact before use
//-------------------===//
//
// Three stages, each error message naming what is wrong and where:
//   1. the header: magic, version, every region inside the file (overflow-
//      checked), checksums;
//   2. the FlatBuffers verifier over the table;
//   3. meaning: signature, variants, buffers, dispatches, executables.
// Nothing is allocated from a size in the file before that size is checked
// against the file's length.
//
//===----------------------------------------------------------------------===//

#include "Model.h"
#include "strata/Artifact/Format.h"
#include "strata/Artifact/artifact_generated.h"

#include <cmath>
#include <set>

namespace strata::runtime {

namespace fb = strata::artifact::fb;
using artifact::kDataAlignment;
using artifact::kHeaderSize;

namespace {
/// Caps that keep a hostile file from making the verifier do unbounded work
/// beyond the file's own size.
constexpr size_t kMaxRank = 32;
constexpr int64_t kMaxWorkgroups = int64_t(1) << 24;

Error invalid(std::string message) {
  return {STRATA_INVALID_ARTIFACT, "invalid artifact: " + std::move(message)};
}

/// [offset, offset + size) lies inside [0, limit).
bool inside(uint64_t offset, uint64_t size, uint64_t limit) {
  uint64_t end;
  return !__builtin_add_overflow(offset, size, &end) && end <= limit;
}

std::string rangeString(uint64_t offset, uint64_t size) {
  return "[" + std::to_string(offset) + ", +" + std::to_string(size) + ")";
}

bool knownDType(uint8_t d) {
  return d >= uint8_t(fb::DType::F32) && d <= uint8_t(fb::DType::MAX);
}

/// The FlatBuffers verifier checks a vector's length field for 4-byte
/// alignment only; int64 elements must be 8-byte aligned to be read. An
/// empty vector has nothing to read, and FlatBuffers' builder does not align
/// one (the shape [] of a scalar, empty params), so it is never misaligned.
bool misaligned(const flatbuffers::Vector<int64_t> *v) {
  return v && v->size() != 0 &&
         reinterpret_cast<uintptr_t>(v->Data()) % alignof(int64_t) != 0;
}

std::vector<int64_t> dimsOf(const flatbuffers::Vector<int64_t> *v) {
  return v ? std::vector<int64_t>(v->begin(), v->end())
           : std::vector<int64_t>();
}

/// Bytes of a static shape of `dtype`; false on a negative dim or overflow.
bool byteSize(const std::vector<int64_t> &shape, uint8_t dtype,
              uint64_t &bytes) {
  uint64_t n = dtypeSize(dtype);
  for (int64_t d : shape)
    if (d < 0 || __builtin_mul_overflow(n, uint64_t(d), &n))
      return false;
  bytes = n;
  return true;
}

Error checkTensor(const fb::TensorDesc *t, const std::string &where,
                  TensorInfo &out) {
  if (!t)
    return invalid(where + " is missing");
  if (!t->name() || t->name()->size() == 0)
    return invalid(where + " has no name");
  out.name = t->name()->str();
  std::string at = where + " '" + out.name + "'";
  out.dtype = uint8_t(t->dtype());
  if (!knownDType(out.dtype))
    return invalid(at + " has unknown dtype " + std::to_string(out.dtype));
  if (!t->shape() || misaligned(t->shape()))
    return invalid(at + " has no shape or a misaligned one");
  if (t->shape()->size() > kMaxRank)
    return invalid(at + " has rank " + std::to_string(t->shape()->size()) +
                   " (at most " + std::to_string(kMaxRank) + ")");
  out.shape = dimsOf(t->shape());
  for (int64_t d : out.shape)
    if (d < -1)
      return invalid(at + " has dim " + std::to_string(d) + " in shape " +
                     shapeString(out.shape) + " (dims are >= 0, or -1)");
  if (const fb::Quantization *q = t->quant()) {
    if (!std::isfinite(q->scale()) || q->scale() <= 0)
      return invalid(at + " has quantization scale " +
                     std::to_string(q->scale()) + " (must be finite and > 0)");
    out.hasQuant = true;
    out.scale = q->scale();
    out.zeroPoint = q->zero_point();
  }
  return {};
}

/// A variant's input or output shapes: static instances of the signature's,
/// except that an output dim may stay -1 (`allowRuntimeDims`, format 1.2)
/// where the signature's is -1: a dim decided at run time, which needs a
/// RuntimeShape (checked with the runtime shapes).
Error checkSignatureShapes(
    const flatbuffers::Vector<flatbuffers::Offset<fb::Shape>> *shapes,
    const std::vector<TensorInfo> &sig, const std::string &where,
    const char *what, std::vector<std::vector<int64_t>> &out,
    bool allowRuntimeDims = false) {
  size_t n = shapes ? shapes->size() : 0;
  if (n != sig.size())
    return invalid(where + " has " + std::to_string(n) + " " + what +
                   " shapes, the signature has " + std::to_string(sig.size()) +
                   " " + what + "s");
  for (size_t i = 0; i < n; ++i) {
    const fb::Shape *s = shapes->Get(i);
    if (s && misaligned(s->dims()))
      return invalid(where + ": " + what + " shape " + std::to_string(i) +
                     " is misaligned");
    std::vector<int64_t> dims = s ? dimsOf(s->dims()) : std::vector<int64_t>();
    const TensorInfo &t = sig[i];
    bool ok = s && s->dims() && dims.size() == t.shape.size();
    for (size_t d = 0; ok && d < dims.size(); ++d)
      ok = (dims[d] >= 0 || (allowRuntimeDims && dims[d] == -1)) &&
           (t.shape[d] == -1 || t.shape[d] == dims[d]);
    // (A -1 dim counts as 1 for the overflow check: the byte size of a
    // run-time shape is its buffer's bound, checked with the buffer.)
    std::vector<int64_t> sized = dims;
    for (int64_t &d : sized)
      d = d == -1 ? 1 : d;
    uint64_t bytes;
    if (!ok || !byteSize(sized, t.dtype, bytes))
      return invalid(where + ": " + what + " '" + t.name + "' has shape " +
                     shapeString(dims) +
                     ", which is not a static instance "
                     "of the signature's " +
                     shapeString(t.shape));
    out.push_back(std::move(dims));
  }
  return {};
}

Error checkBuffer(const fb::Buffer *b, const std::string &where,
                  const Model &model, const VariantPlan &v, BufferPlan &out) {
  if (!b)
    return invalid(where + " is missing");
  out.kind = BufferKind(uint8_t(b->kind()));
  out.index = b->index();
  out.offset = b->offset();
  out.size = b->size();
  out.dtype = uint8_t(b->dtype());
  if (uint8_t(out.kind) > uint8_t(BufferKind::Constant))
    return invalid(where + " has unknown kind " +
                   std::to_string(uint8_t(out.kind)));
  if (!knownDType(out.dtype))
    return invalid(where + " has unknown dtype " + std::to_string(out.dtype));
  if (!b->shape() || misaligned(b->shape()) || b->shape()->size() > kMaxRank)
    return invalid(where + " has no shape, a misaligned one or a rank above " +
                   std::to_string(kMaxRank));
  out.shape = dimsOf(b->shape());
  uint64_t bytes;
  if (!byteSize(out.shape, out.dtype, bytes))
    return invalid(where + " has shape " + shapeString(out.shape) +
                   ", which is not static or overflows");
  if (bytes != out.size)
    return invalid(where + " has size " + std::to_string(out.size) +
                   " bytes, but " + dtypeName(out.dtype) + " " +
                   shapeString(out.shape) + " is " + std::to_string(bytes));
  switch (out.kind) {
  case BufferKind::Arena:
    if (!inside(out.offset, out.size, v.arenaSize))
      return invalid(where + " " + rangeString(out.offset, out.size) +
                     " is outside the arena (" + std::to_string(v.arenaSize) +
                     " bytes)");
    break;
  case BufferKind::Constant:
    if (out.offset % kDataAlignment != 0)
      return invalid(where + ": constant offset " + std::to_string(out.offset) +
                     " is not " + std::to_string(kDataAlignment) +
                     "-byte aligned");
    if (!inside(out.offset, out.size, model.dataSize))
      return invalid(where + ": constant " + rangeString(out.offset, out.size) +
                     " is outside the data segment (" +
                     std::to_string(model.dataSize) + " bytes)");
    break;
  case BufferKind::Input:
  case BufferKind::Output: {
    bool in = out.kind == BufferKind::Input;
    const auto &sig = in ? model.inputs : model.outputs;
    const auto &shapes = in ? v.inputShapes : v.outputShapes;
    const char *what = in ? "input" : "output";
    if (out.index >= sig.size())
      return invalid(where + " names " + what + " " +
                     std::to_string(out.index) + ", the model has " +
                     std::to_string(sig.size()));
    if (out.offset != 0)
      return invalid(where + ": " + what + " buffers start at offset 0, not " +
                     std::to_string(out.offset));
    // A -1 of the variant's output shape (decided at run time) matches any
    // bound; the runtime shapes check that the buffer has one.
    bool sameShape = out.shape.size() == shapes[out.index].size();
    for (size_t d = 0; sameShape && d < out.shape.size(); ++d)
      sameShape = shapes[out.index][d] == -1 ||
                  shapes[out.index][d] == out.shape[d];
    if (out.dtype != sig[out.index].dtype || !sameShape)
      return invalid(where + " is " + dtypeName(out.dtype) + " " +
                     shapeString(out.shape) + ", but " + what + " '" +
                     sig[out.index].name + "' is " +
                     dtypeName(sig[out.index].dtype) + " " +
                     shapeString(shapes[out.index]) + " in this variant");
    break;
  }
  }
  return {};
}

Error checkDispatch(const fb::Dispatch *d, const std::string &where,
                    const Model &model, const VariantPlan &v,
                    DispatchPlan &out) {
  if (!d)
    return invalid(where + " is missing");
  if (!d->device() || d->device()->size() == 0)
    return invalid(where + " names no device");
  out.device = d->device()->str();
  uint8_t kind = uint8_t(d->kind());
  if (kind > uint8_t(fb::DispatchKind::Kernel))
    return invalid(where + " has unknown kind " + std::to_string(kind));
  out.native = d->kind() == fb::DispatchKind::Native;
  if (!d->symbol() || d->symbol()->size() == 0)
    return invalid(where + " names no " + (out.native ? "function" : "kernel"));
  out.symbol = d->symbol()->str();
  out.executable = d->executable();
  if (out.native) {
    if (out.executable >= model.executablePlans.size())
      return invalid(where + " names executable " +
                     std::to_string(out.executable) + ", the model has " +
                     std::to_string(model.executablePlans.size()));
    const ExecutablePlan &e = model.executablePlans[out.executable];
    if (e.device != out.device)
      return invalid(where + " runs on device '" + out.device +
                     "' but executable '" + e.name + "' is for '" + e.device +
                     "'");
    bool listed = false;
    for (const std::string &s : e.symbols)
      listed |= s == out.symbol;
    if (!listed)
      return invalid(where + " calls '" + out.symbol + "', which executable '" +
                     e.name + "' does not list");
  }
  out.workgroupCount = d->workgroup_count();
  if (out.workgroupCount < 1 || out.workgroupCount > kMaxWorkgroups)
    return invalid(where + " has workgroup count " +
                   std::to_string(out.workgroupCount) + " (1 to " +
                   std::to_string(kMaxWorkgroups) + ")");
  if (misaligned(d->params()))
    return invalid(where + " has misaligned params");
  if (d->params())
    out.params.assign(d->params()->begin(), d->params()->end());
  if (d->bindings())
    out.bindings.assign(d->bindings()->begin(), d->bindings()->end());
  for (size_t i = 0; i < out.bindings.size(); ++i)
    if (out.bindings[i] >= v.buffers.size())
      return invalid(where + ": binding " + std::to_string(i) +
                     " names buffer " + std::to_string(out.bindings[i]) +
                     ", the variant has " + std::to_string(v.buffers.size()));
  // Two arena buffers bound to one dispatch either do not overlap or are the
  // same bytes (in place); a partial overlap is a planning error.
  for (size_t i = 0; i < out.bindings.size(); ++i)
    for (size_t j = i + 1; j < out.bindings.size(); ++j) {
      const BufferPlan &a = v.buffers[out.bindings[i]];
      const BufferPlan &b = v.buffers[out.bindings[j]];
      if (a.kind != BufferKind::Arena || b.kind != BufferKind::Arena)
        continue;
      bool disjoint = a.offset + a.size <= b.offset ||
                      b.offset + b.size <= a.offset || a.size == 0 ||
                      b.size == 0;
      bool same = a.offset == b.offset && a.size == b.size;
      if (!disjoint && !same)
        return invalid(where + ": bindings " + std::to_string(i) + " " +
                       rangeString(a.offset, a.size) + " and " +
                       std::to_string(j) + " " + rangeString(b.offset, b.size) +
                       " partially overlap in the arena");
    }
  return {};
}

/// Format 1.2's run-time shapes: each names a data buffer (arena or output)
/// bound by its dispatch and an I64 arena buffer of its rank for the dims,
/// disjoint from it; one per buffer; every output with a -1 dim has one,
/// and no output without one. Fills the variant's per-dispatch and
/// per-output tables and each output's capacity.
Error checkRuntimeShapes(
    const flatbuffers::Vector<flatbuffers::Offset<fb::RuntimeShape>> *list,
    const std::string &where, const Model &model, VariantPlan &v) {
  v.runtimeShapesAfter.assign(v.dispatches.size(), {});
  v.outputRuntimeShape.assign(model.outputs.size(), -1);
  std::set<uint32_t> seen;
  for (size_t ri = 0; list && ri < list->size(); ++ri) {
    const fb::RuntimeShape *r = list->Get(ri);
    std::string at = where + ": runtime shape " + std::to_string(ri);
    if (!r)
      return invalid(at + " is missing");
    RuntimeShapePlan p;
    p.buffer = r->buffer();
    p.shapeBuffer = r->shape_buffer();
    p.dispatch = r->dispatch();
    p.origin = r->origin() ? r->origin()->str() : "";
    if (p.buffer >= v.buffers.size() || p.shapeBuffer >= v.buffers.size() ||
        p.dispatch >= v.dispatches.size())
      return invalid(at + " names buffer " + std::to_string(p.buffer) +
                     ", shape buffer " + std::to_string(p.shapeBuffer) +
                     " and dispatch " + std::to_string(p.dispatch) +
                     "; the variant has " + std::to_string(v.buffers.size()) +
                     " buffers and " + std::to_string(v.dispatches.size()) +
                     " dispatches");
    const BufferPlan &b = v.buffers[p.buffer];
    const BufferPlan &s = v.buffers[p.shapeBuffer];
    if (b.kind != BufferKind::Arena && b.kind != BufferKind::Output)
      return invalid(at + ": buffer " + std::to_string(p.buffer) +
                     " is not an arena or output buffer");
    if (s.kind != BufferKind::Arena || s.dtype != uint8_t(fb::DType::I64) ||
        s.shape != std::vector<int64_t>{int64_t(b.shape.size())})
      return invalid(at + ": shape buffer " + std::to_string(p.shapeBuffer) +
                     " is not an i64 arena buffer of shape [" +
                     std::to_string(b.shape.size()) + "]");
    if (b.kind == BufferKind::Arena && !(b.offset + b.size <= s.offset ||
                                         s.offset + s.size <= b.offset))
      return invalid(at + ": the shape buffer " +
                     rangeString(s.offset, s.size) + " overlaps the buffer " +
                     rangeString(b.offset, b.size));
    bool bound = false;
    for (uint32_t x : v.dispatches[p.dispatch].bindings)
      bound |= x == p.buffer;
    if (!bound)
      return invalid(at + ": dispatch " + std::to_string(p.dispatch) +
                     " does not bind buffer " + std::to_string(p.buffer));
    if (!seen.insert(p.buffer).second)
      return invalid(at + ": buffer " + std::to_string(p.buffer) +
                     " has two runtime shapes");
    if (b.kind == BufferKind::Output) {
      if (v.outputRuntimeShape[b.index] != -1)
        return invalid(at + ": output '" + model.outputs[b.index].name +
                       "' has two runtime shapes");
      v.outputRuntimeShape[b.index] = int(ri);
    }
    v.runtimeShapesAfter[p.dispatch].push_back(uint32_t(ri));
    v.runtimeShapes.push_back(std::move(p));
  }
  v.outputCapacity.assign(model.outputs.size(), 0);
  for (size_t o = 0; o < model.outputs.size(); ++o) {
    bool runtimeDims = false;
    for (int64_t d : v.outputShapes[o])
      runtimeDims |= d == -1;
    if (runtimeDims != (v.outputRuntimeShape[o] != -1))
      return invalid(where + ": output '" + model.outputs[o].name +
                     "' has shape " + shapeString(v.outputShapes[o]) +
                     (runtimeDims ? " but no runtime shape"
                                  : " and a runtime shape"));
    if (runtimeDims) {
      // Every buffer of the output is then the one with the runtime shape:
      // others would write it with another layout.
      for (uint32_t bi = 0; bi < v.buffers.size(); ++bi)
        if (v.buffers[bi].kind == BufferKind::Output &&
            v.buffers[bi].index == o &&
            bi != v.runtimeShapes[v.outputRuntimeShape[o]].buffer)
          return invalid(where + ": output '" + model.outputs[o].name +
                         "' has a runtime shape and a second buffer " +
                         std::to_string(bi));
      v.outputCapacity[o] = v.buffers[v.runtimeShapes[v.outputRuntimeShape[o]]
                                           .buffer]
                                .size;
    } else {
      byteSize(v.outputShapes[o], model.outputs[o].dtype, v.outputCapacity[o]);
    }
  }
  return {};
}

Error checkHeader(const uint8_t *file, uint64_t size, Model &model,
                  artifact::Header &h) {
  if (size < kHeaderSize)
    return invalid("the file has " + std::to_string(size) +
                   " bytes, too short for the " + std::to_string(kHeaderSize) +
                   "-byte header");
  if (std::memcmp(file, artifact::kMagic, sizeof(artifact::kMagic)) != 0)
    return invalid("not a Strata artifact (the magic is not \"STRATA\\0\\0\")");
  h = artifact::decodeHeader(file);
  model.versionMajor = h.versionMajor;
  model.versionMinor = h.versionMinor;
  if (h.versionMajor != artifact::kVersionMajor)
    return invalid("format version " + std::to_string(h.versionMajor) + "." +
                   std::to_string(h.versionMinor) +
                   " is not supported (this runtime reads " +
                   std::to_string(artifact::kVersionMajor) + ".x)");
  if (h.fileSize != size)
    return invalid("the header says the file has " +
                   std::to_string(h.fileSize) + " bytes, it has " +
                   std::to_string(size) +
                   (size < h.fileSize ? " (truncated)" : ""));
  if (h.headerSize < kHeaderSize || h.headerSize > size)
    return invalid("header size " + std::to_string(h.headerSize) +
                   " is out of range");
  if (h.tableOffset < h.headerSize || h.tableOffset % 8 != 0 ||
      h.tableSize < 8 || !inside(h.tableOffset, h.tableSize, size))
    return invalid("FlatBuffers table " +
                   rangeString(h.tableOffset, h.tableSize) +
                   " is not an 8-byte aligned region after the header and "
                   "inside the file (" +
                   std::to_string(size) + " bytes)");
  if (h.dataOffset % kDataAlignment != 0 ||
      h.dataOffset < h.tableOffset + h.tableSize ||
      !inside(h.dataOffset, h.dataSize, size))
    return invalid("data segment " + rangeString(h.dataOffset, h.dataSize) +
                   " is not a " + std::to_string(kDataAlignment) +
                   "-byte aligned region after the table and inside the file "
                   "(" +
                   std::to_string(size) + " bytes)");
  uint32_t crc = artifact::crc32c(file + h.tableOffset, h.tableSize);
  if (crc != h.tableCrc)
    return invalid("the FlatBuffers table's checksum does not match "
                   "(corrupted file)");
  crc = artifact::crc32c(file + h.dataOffset, h.dataSize);
  if (crc != h.dataCrc)
    return invalid("the data segment's checksum does not match "
                   "(corrupted file)");
  return {};
}
} // namespace

Error verifyArtifact(const uint8_t *file, uint64_t size, Model &model) {
  artifact::Header h;
  if (Error e = checkHeader(file, size, model, h))
    return e;
  model.data = file + h.dataOffset;
  model.dataSize = h.dataSize;

  const uint8_t *table = file + h.tableOffset;
  flatbuffers::Verifier verifier(table, h.tableSize, /*max_depth=*/64,
                                 /*max_tables=*/1u << 20);
  if (!fb::VerifyModelBuffer(verifier))
    return invalid("the FlatBuffers table fails structural verification");
  const fb::Model *m = fb::GetModel(table);

  if (!m->name())
    return invalid("the model has no name");
  model.name = m->name()->str();
  model.producer = m->producer() ? m->producer()->str() : "";

  const fb::Signature *sig = m->signature();
  if (!sig || !sig->outputs() || sig->outputs()->size() == 0)
    return invalid("the signature has no outputs");
  for (int pass = 0; pass < 2; ++pass) {
    const auto *list = pass == 0 ? sig->inputs() : sig->outputs();
    auto &out = pass == 0 ? model.inputs : model.outputs;
    const char *what = pass == 0 ? "input" : "output";
    std::set<std::string> names;
    for (size_t i = 0; list && i < list->size(); ++i) {
      TensorInfo t;
      if (Error e = checkTensor(list->Get(i),
                                std::string(what) + " " + std::to_string(i), t))
        return e;
      if (!names.insert(t.name).second)
        return invalid(std::string("two ") + what + "s are named '" + t.name +
                       "'");
      out.push_back(std::move(t));
    }
  }

  const auto *exes = m->executables();
  for (size_t i = 0; exes && i < exes->size(); ++i) {
    const fb::Executable *e = exes->Get(i);
    std::string where = "executable " + std::to_string(i);
    if (!e || !e->name() || !e->device() || !e->format() || !e->symbols())
      return invalid(where + " lacks a name, device, format or symbol list");
    ExecutablePlan p;
    p.name = e->name()->str();
    p.device = e->device()->str();
    p.format = e->format()->str();
    p.codeOffset = e->code_offset();
    p.codeSize = e->code_size();
    where += " '" + p.name + "'";
    if (p.codeOffset % kDataAlignment != 0 ||
        !inside(p.codeOffset, p.codeSize, model.dataSize))
      return invalid(where + ": code " + rangeString(p.codeOffset, p.codeSize) +
                     " is not a " + std::to_string(kDataAlignment) +
                     "-byte aligned region of the data segment (" +
                     std::to_string(model.dataSize) + " bytes)");
    std::set<std::string> seen;
    for (const auto *s : *e->symbols()) {
      if (!s || s->size() == 0 || !seen.insert(s->str()).second)
        return invalid(where + " lists an empty or repeated symbol");
      p.symbols.push_back(s->str());
    }
    model.executablePlans.push_back(std::move(p));
  }

  const auto *variants = m->variants();
  if (!variants || variants->size() == 0)
    return invalid("the model has no variants");
  for (size_t vi = 0; vi < variants->size(); ++vi) {
    const fb::Variant *fv = variants->Get(vi);
    std::string where = "variant " + std::to_string(vi);
    if (!fv)
      return invalid(where + " is missing");
    VariantPlan v;
    v.arenaSize = fv->arena_size();
    if (Error e = checkSignatureShapes(fv->input_shapes(), model.inputs, where,
                                       "input", v.inputShapes))
      return e;
    if (Error e = checkSignatureShapes(fv->output_shapes(), model.outputs,
                                       where, "output", v.outputShapes,
                                       /*allowRuntimeDims=*/true))
      return e;
    for (size_t other = 0; other < model.variants.size(); ++other)
      if (model.variants[other].inputShapes == v.inputShapes)
        return invalid(where + " has the same input shapes as variant " +
                       std::to_string(other));
    const auto *buffers = fv->buffers();
    for (size_t bi = 0; buffers && bi < buffers->size(); ++bi) {
      BufferPlan b;
      if (Error e = checkBuffer(buffers->Get(bi),
                                where + ": buffer " + std::to_string(bi), model,
                                v, b))
        return e;
      v.buffers.push_back(std::move(b));
    }
    for (size_t o = 0; o < model.outputs.size(); ++o) {
      bool has = false;
      for (const BufferPlan &b : v.buffers)
        has |= b.kind == BufferKind::Output && b.index == o;
      if (!has)
        return invalid(where + ": output '" + model.outputs[o].name +
                       "' has no buffer");
    }
    const auto *dispatches = fv->dispatches();
    for (size_t di = 0; dispatches && di < dispatches->size(); ++di) {
      DispatchPlan d;
      if (Error e = checkDispatch(dispatches->Get(di),
                                  where + ": dispatch " + std::to_string(di),
                                  model, v, d))
        return e;
      v.dispatches.push_back(std::move(d));
    }
    if (Error e = checkRuntimeShapes(fv->runtime_shapes(), where, model, v))
      return e;
    model.variants.push_back(std::move(v));
  }
  return {};
}

} // namespace strata::runtime
