//===- artifact_fuzzer.cpp - libFuzzer target for the artifact loader -----===//
//
// Each input is a .strata file. It is loaded twice: as it is (the header's
// checksums reject almost every mutation), and with the header's table
// checksum and file size recomputed, so mutations of the FlatBuffers table
// reach the FlatBuffers verifier and the meaning checks. The data segment's
// checksum is never recomputed: executable code is trusted once it matches
// what the compiler wrote, so the fuzzer must not make the runtime dlopen
// or run mutated code.
//
// A model that loads is inspected through the C API and, when all its
// dispatches are built-in kernels (whose bindings the runtime checks) and
// its buffers are small, run on zero inputs. Besides crashes and sanitizer
// reports, the target aborts when a call fails without a message.
//
//===----------------------------------------------------------------------===//

#include "strata/Artifact/Format.h"
#include "strata/Artifact/artifact_generated.h"
#include "strata/Runtime/strata_runtime.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {
namespace fb = strata::artifact::fb;

[[noreturn]] void fail(const char *what, const char *detail) {
  std::fprintf(stderr, "artifact_fuzzer: %s\n%s\n", what, detail);
  std::abort();
}

/// Frees `st`; aborts on an error without a message. True on success.
bool ok(strata_status *st) {
  if (!st)
    return true;
  const char *message = strata_status_message(st);
  if (!message || !*message)
    fail("an error without a message", "");
  strata_status_free(st);
  return false;
}

constexpr uint64_t kMaxBytes = 16 << 20;

/// True when every dispatch is a built-in kernel and every buffer and arena
/// is small: then running the model is safe to ask of the fuzzer.
bool safeToRun(const std::string &bytes) {
  auto *p = reinterpret_cast<const uint8_t *>(bytes.data());
  strata::artifact::Header h = strata::artifact::decodeHeader(p);
  const fb::Model *m = fb::GetModel(p + h.tableOffset); // verified already
  for (const fb::Variant *v : *m->variants()) {
    if (v->arena_size() > kMaxBytes)
      return false;
    if (v->buffers())
      for (const fb::Buffer *b : *v->buffers())
        if (b->size() > kMaxBytes)
          return false;
    if (v->dispatches())
      for (const fb::Dispatch *d : *v->dispatches())
        if (d->kind() != fb::DispatchKind::Kernel ||
            d->workgroup_count() > 64)
          return false;
  }
  return true;
}

void exercise(const std::string &bytes) {
  strata_model *model = nullptr;
  if (!ok(strata_model_load_memory(bytes.data(), bytes.size(), &model)))
    return;
  size_t inputs = 0, outputs = 0, variants = 0;
  const char *name = nullptr;
  if (!ok(strata_model_name(model, &name)) ||
      !ok(strata_model_input_count(model, &inputs)) ||
      !ok(strata_model_output_count(model, &outputs)) ||
      !ok(strata_model_variant_count(model, &variants)))
    fail("inspecting a loaded model failed", "");
  std::vector<strata_tensor_info> infos(inputs);
  for (size_t i = 0; i < inputs; ++i)
    if (!ok(strata_model_input_info(model, i, &infos[i])))
      fail("input_info failed", "");
  for (size_t i = 0; i < outputs; ++i) {
    strata_tensor_info info;
    if (!ok(strata_model_output_info(model, i, &info)))
      fail("output_info failed", "");
  }
  if (safeToRun(bytes)) {
    // Run every variant on zeros, with its own input shapes.
    auto *p = reinterpret_cast<const uint8_t *>(bytes.data());
    strata::artifact::Header h = strata::artifact::decodeHeader(p);
    const fb::Model *m = fb::GetModel(p + h.tableOffset);
    strata_session *session = nullptr;
    if (!ok(strata_session_create(model, 2, &session)))
      fail("session_create failed", "");
    for (const fb::Variant *v : *m->variants()) {
      bool set = true;
      for (size_t i = 0; set && i < inputs; ++i) {
        const auto *dims = v->input_shapes()->Get(uint32_t(i))->dims();
        uint64_t bytesNeeded = strata_dtype_size(infos[i].dtype);
        for (int64_t d : *dims)
          bytesNeeded *= uint64_t(d);
        if (bytesNeeded > kMaxBytes) {
          set = false;
          break;
        }
        std::vector<uint8_t> zeros(bytesNeeded);
        std::vector<int64_t> shape(dims->begin(), dims->end());
        set = ok(strata_session_set_input(session, i, infos[i].dtype,
                                          shape.data(), shape.size(),
                                          zeros.data(), zeros.size()));
        if (!set)
          fail("setting a variant's own input shape failed", "");
      }
      if (set && ok(strata_session_run(session)))
        for (size_t o = 0; o < outputs; ++o) {
          strata_tensor_view view;
          if (!ok(strata_session_output(session, o, &view)))
            fail("output after a successful run failed", "");
        }
    }
    strata_session_release(session);
  }
  strata_model_release(model);
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  exercise(bytes);
  if (size < strata::artifact::kHeaderSize ||
      std::memcmp(data, strata::artifact::kMagic, 8) != 0)
    return 0;
  auto *p = reinterpret_cast<uint8_t *>(bytes.data());
  strata::artifact::Header h = strata::artifact::decodeHeader(p);
  h.fileSize = size;
  uint64_t end;
  if (!__builtin_add_overflow(h.tableOffset, h.tableSize, &end) &&
      end <= size)
    h.tableCrc = strata::artifact::crc32c(p + h.tableOffset, h.tableSize);
  strata::artifact::encodeHeader(h, p);
  exercise(bytes);
  return 0;
}
