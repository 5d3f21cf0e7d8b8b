//===- Inspect.cpp - strata inspect ---------------------------------------===//
//
// strata inspect MODEL.strata [--json]: loads (and so verifies) an artifact
// through the runtime and prints what it holds: signature, variants with
// their buffers and dispatches, executables and sizes. Everything comes from
// the runtime's read-only accessors (strata_runtime.h), not from parsing the
// file here: what is printed is what the runtime verified and would run.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "RuntimeUtils.h"

#include "strata/Runtime/Runtime.hpp"
#include "strata/Support/InputFile.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace llvm;

namespace strata::cli {

cl::SubCommand InspectCommand("inspect",
                              "Print what a compiled model (.strata) holds");

static cl::opt<std::string> model(cl::Positional, cl::Required,
                                  cl::desc("<model.strata>"),
                                  cl::sub(InspectCommand));
static cl::opt<bool> asJson("json", cl::desc("print JSON instead of text"),
                            cl::sub(InspectCommand));

static constexpr const char *kTool = "strata inspect";

static const char *kindName(strata_buffer_kind k) {
  switch (k) {
  case STRATA_BUFFER_ARENA:
    return "arena";
  case STRATA_BUFFER_INPUT:
    return "input";
  case STRATA_BUFFER_OUTPUT:
    return "output";
  case STRATA_BUFFER_CONSTANT:
    return "constant";
  }
  return "unknown";
}

static std::vector<int64_t> dimsOf(size_t rank, const int64_t *dims) {
  return std::vector<int64_t>(dims, dims + rank);
}

/// "1 byte", "64 bytes", "1.50 MiB (1572864 bytes)".
static std::string bytesString(uint64_t n) {
  std::string exact = std::to_string(n) + (n == 1 ? " byte" : " bytes");
  if (n < 1024)
    return exact;
  const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = double(n);
  int u = -1;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return std::string(buf) + " (" + exact + ")";
}

// ---- text ----------------------------------------------------------------

static std::string tensorLine(const strata_tensor_info &t) {
  std::string s = std::string("'") + t.name + "' " +
                  strata_dtype_name(t.dtype) + " " +
                  shapeString(t.rank, t.dims);
  if (t.has_quant) {
    char scale[32];
    std::snprintf(scale, sizeof scale, "%.9g", t.scale);
    s += " quant(scale " + std::string(scale) + ", zero_point " +
         std::to_string(t.zero_point) + ")";
  }
  return s;
}

/// "input 0 'x' f32 [1, 4]", "arena @64 f32 [2, 3]", "constant @0 ...".
static std::string bufferText(const rt::Model &m, const strata_buffer_info &b) {
  std::string s = kindName(b.kind);
  switch (b.kind) {
  case STRATA_BUFFER_INPUT:
    s += " '" + std::string(m.input(b.index).name) + "'";
    break;
  case STRATA_BUFFER_OUTPUT:
    s += " '" + std::string(m.output(b.index).name) + "'";
    break;
  default:
    s += " @" + std::to_string(b.offset);
  }
  return s + " " + strata_dtype_name(b.dtype) + " " +
         shapeString(b.rank, b.dims);
}

static void printText(const rt::Model &m, raw_ostream &os) {
  strata_artifact_info a = m.artifactInfo();
  os << "model '" << m.name() << "'\n";
  os << "  producer: " << (*a.producer ? a.producer : "(none)") << "\n";
  os << "  format version: " << a.version_major << "." << a.version_minor
     << "\n";
  os << "  file size: " << bytesString(a.file_size) << "\n";
  os << "inputs (" << m.inputCount() << "):\n";
  for (size_t i = 0; i < m.inputCount(); ++i)
    os << "  " << i << ": " << tensorLine(m.input(i)) << "\n";
  os << "outputs (" << m.outputCount() << "):\n";
  for (size_t i = 0; i < m.outputCount(); ++i)
    os << "  " << i << ": " << tensorLine(m.output(i)) << "\n";

  size_t variants = m.variantCount();
  os << "variants (" << variants << "):\n";
  for (size_t v = 0; v < variants; ++v) {
    strata_variant_info vi = m.variantInfo(v);
    os << "  variant " << v << ": inputs ";
    for (size_t i = 0; i < m.inputCount(); ++i) {
      std::vector<int64_t> s = m.variantShape(v, false, i);
      os << (i ? ", " : "") << shapeString(s.size(), s.data());
    }
    if (!m.inputCount())
      os << "(none)";
    os << " -> outputs ";
    for (size_t i = 0; i < m.outputCount(); ++i) {
      std::vector<int64_t> s = m.variantShape(v, true, i);
      os << (i ? ", " : "") << shapeString(s.size(), s.data());
    }
    os << "\n    arena: " << bytesString(vi.arena_size) << "\n";
    os << "    buffers (" << vi.buffer_count << "):\n";
    for (size_t b = 0; b < vi.buffer_count; ++b) {
      strata_buffer_info bi = m.bufferInfo(v, b);
      os << "      " << b << ": " << bufferText(m, bi) << ", "
         << bytesString(bi.size_bytes) << "\n";
    }
    os << "    dispatches (" << vi.dispatch_count << "):\n";
    for (size_t d = 0; d < vi.dispatch_count; ++d) {
      strata_dispatch_info di = m.dispatchInfo(v, d);
      os << "      " << d << ": " << di.device << " ";
      if (di.kind == STRATA_DISPATCH_NATIVE)
        os << "native '" << di.symbol << "' of executable '"
           << m.executableInfo(di.executable).name << "'";
      else
        os << "kernel '" << di.symbol << "'";
      os << ", " << di.workgroup_count
         << (di.workgroup_count == 1 ? " workgroup" : " workgroups")
         << ", params [";
      for (size_t p = 0; p < di.param_count; ++p)
        os << (p ? ", " : "") << di.params[p];
      os << "]\n";
      for (size_t k = 0; k < di.binding_count; ++k)
        os << "         binding " << k << ": buffer " << di.bindings[k] << " ("
           << bufferText(m, m.bufferInfo(v, di.bindings[k])) << ")\n";
    }
  }
  os << "executables (" << a.executable_count << "):\n";
  for (size_t e = 0; e < a.executable_count; ++e) {
    strata_executable_info ei = m.executableInfo(e);
    os << "  " << e << ": '" << ei.name << "' " << ei.device << " " << ei.format
       << ", " << bytesString(ei.code_size) << ", symbols:";
    for (size_t s = 0; s < ei.symbol_count; ++s)
      os << " " << m.executableSymbol(e, s);
    os << "\n";
  }
  os << "constants: " << bytesString(a.constants_size) << " (data segment "
     << bytesString(a.data_size) << ")\n";
}

// ---- JSON ----------------------------------------------------------------

static void shapeJson(json::OStream &j, const std::vector<int64_t> &s) {
  j.array([&] {
    for (int64_t d : s)
      j.value(d);
  });
}

static void tensorJson(json::OStream &j, const strata_tensor_info &t) {
  j.object([&] {
    j.attribute("name", t.name);
    j.attribute("dtype", strata_dtype_name(t.dtype));
    j.attributeBegin("shape");
    shapeJson(j, dimsOf(t.rank, t.dims));
    j.attributeEnd();
    if (t.has_quant)
      j.attributeObject("quant", [&] {
        j.attribute("scale", t.scale);
        j.attribute("zero_point", t.zero_point);
      });
    else
      j.attribute("quant", nullptr);
  });
}

static void printJson(const rt::Model &m, raw_ostream &os) {
  strata_artifact_info a = m.artifactInfo();
  json::OStream j(os, 1);
  j.object([&] {
    j.attribute("name", m.name());
    j.attribute("producer", a.producer);
    j.attribute("format_version", std::to_string(a.version_major) + "." +
                                      std::to_string(a.version_minor));
    j.attribute("file_size", int64_t(a.file_size));
    j.attribute("data_size", int64_t(a.data_size));
    j.attribute("constants_size", int64_t(a.constants_size));
    j.attributeArray("inputs", [&] {
      for (size_t i = 0; i < m.inputCount(); ++i)
        tensorJson(j, m.input(i));
    });
    j.attributeArray("outputs", [&] {
      for (size_t i = 0; i < m.outputCount(); ++i)
        tensorJson(j, m.output(i));
    });
    j.attributeArray("variants", [&] {
      for (size_t v = 0; v < m.variantCount(); ++v) {
        strata_variant_info vi = m.variantInfo(v);
        j.object([&] {
          j.attributeArray("input_shapes", [&] {
            for (size_t i = 0; i < m.inputCount(); ++i)
              shapeJson(j, m.variantShape(v, false, i));
          });
          j.attributeArray("output_shapes", [&] {
            for (size_t i = 0; i < m.outputCount(); ++i)
              shapeJson(j, m.variantShape(v, true, i));
          });
          j.attribute("arena_size", int64_t(vi.arena_size));
          j.attributeArray("buffers", [&] {
            for (size_t b = 0; b < vi.buffer_count; ++b) {
              strata_buffer_info bi = m.bufferInfo(v, b);
              j.object([&] {
                j.attribute("kind", kindName(bi.kind));
                if (bi.kind == STRATA_BUFFER_INPUT ||
                    bi.kind == STRATA_BUFFER_OUTPUT)
                  j.attribute("index", int64_t(bi.index));
                else
                  j.attribute("offset", int64_t(bi.offset));
                j.attribute("size", int64_t(bi.size_bytes));
                j.attribute("dtype", strata_dtype_name(bi.dtype));
                j.attributeBegin("shape");
                shapeJson(j, dimsOf(bi.rank, bi.dims));
                j.attributeEnd();
              });
            }
          });
          j.attributeArray("dispatches", [&] {
            for (size_t d = 0; d < vi.dispatch_count; ++d) {
              strata_dispatch_info di = m.dispatchInfo(v, d);
              j.object([&] {
                j.attribute("device", di.device);
                bool native = di.kind == STRATA_DISPATCH_NATIVE;
                j.attribute("kind", native ? "native" : "kernel");
                if (native)
                  j.attribute("executable", int64_t(di.executable));
                j.attribute("symbol", di.symbol);
                j.attributeArray("bindings", [&] {
                  for (size_t k = 0; k < di.binding_count; ++k)
                    j.value(int64_t(di.bindings[k]));
                });
                j.attributeArray("params", [&] {
                  for (size_t p = 0; p < di.param_count; ++p)
                    j.value(di.params[p]);
                });
                j.attribute("workgroup_count", di.workgroup_count);
              });
            }
          });
        });
      }
    });
    j.attributeArray("executables", [&] {
      for (size_t e = 0; e < a.executable_count; ++e) {
        strata_executable_info ei = m.executableInfo(e);
        j.object([&] {
          j.attribute("name", ei.name);
          j.attribute("device", ei.device);
          j.attribute("format", ei.format);
          j.attribute("code_offset", int64_t(ei.code_offset));
          j.attribute("code_size", int64_t(ei.code_size));
          j.attributeArray("symbols", [&] {
            for (size_t s = 0; s < ei.symbol_count; ++s)
              j.value(m.executableSymbol(e, s));
          });
        });
      }
    });
  });
  os << "\n";
}

int inspect() {
  std::string error;
  {
    // The runtime maps the file itself; this applies the checks every
    // command makes first (a regular file, --max-file-size).
    InputFile probe;
    if (!probe.open(model, "model", error)) {
      errs() << kTool << ": " << error << "\n";
      return 1;
    }
  }
  try {
    rt::Model m = rt::Model::loadFile(model);
    if (asJson)
      printJson(m, outs());
    else
      printText(m, outs());
  } catch (const rt::Error &e) {
    errs() << kTool << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}

} // namespace strata::cli
