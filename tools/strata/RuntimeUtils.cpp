//===- RuntimeUtils.cpp - binding host tensors to the runtime -------------===//
//
// Host tensors in and out of a runtime session, for the commands that run
// artifacts (strata run, strata check-equiv).
//
//===----------------------------------------------------------------------===//

#include "RuntimeUtils.h"

#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace llvm;

namespace strata::cli {

bool bindInputs(StringRef tool, const rt::Model &m, rt::Session &session,
                const TensorMap &inputs, const std::string &from) {
  for (const auto &[name, tensor] : inputs) {
    std::optional<strata_dtype> dtype = toRuntimeDType(tensor.dtype());
    if (!dtype) {
      // The runtime names a wrong dtype by its own names; this one it has
      // none for, so say what the input wants here.
      std::string want;
      for (size_t i = 0; i < m.inputCount(); ++i)
        if (m.input(i).name == name)
          want = std::string(strata_dtype_name(m.input(i).dtype));
      errs() << tool << ": '" << from << "': array '" << name << "' is "
             << dtypeName(tensor.dtype())
             << (want.empty() ? ", a type the runtime does not take"
                              : ", not " + want + " as the model's input")
             << "\n";
      return false;
    }
    try {
      session.setInput(name, *dtype, tensor.shape(), tensor.raw(),
                       tensor.byteSize());
    } catch (const rt::Error &e) {
      errs() << tool << ": '" << from << "': " << e.what() << "\n";
      return false;
    }
  }
  std::string missing;
  for (size_t i = 0; i < m.inputCount(); ++i) {
    strata_tensor_info info = m.input(i);
    if (!inputs.contains(info.name))
      missing += (missing.empty() ? "" : ", ") + std::string("'") + info.name +
                 "' (" + strata_dtype_name(info.dtype) + " " +
                 shapeString(info.rank, info.dims) + ")";
  }
  if (!missing.empty()) {
    errs() << tool << ": "
           << (from.empty() ? "no --input given; the model needs"
                            : "'" + from + "' has no array for")
           << " input " << missing << "\n";
    return false;
  }
  return true;
}

bool collectOutputs(StringRef tool, const rt::Model &m,
                    const rt::Session &session, TensorMap &out) {
  for (size_t i = 0; i < m.outputCount(); ++i) {
    strata_tensor_view view = session.output(i);
    std::optional<DType> dtype = fromRuntimeDType(view.dtype);
    if (!dtype) {
      errs() << tool << ": output '" << view.name << "' has dtype "
             << strata_dtype_name(view.dtype) << ", which npz cannot hold\n";
      return false;
    }
    Tensor t(*dtype, std::vector<int64_t>(view.dims, view.dims + view.rank));
    if (t.byteSize() != view.size_bytes) {
      errs() << tool << ": output '" << view.name << "' is " << view.size_bytes
             << " bytes, not the " << t.byteSize() << " its shape needs\n";
      return false;
    }
    if (view.size_bytes)
      std::memcpy(t.raw(), view.data, view.size_bytes);
    out.set(view.name, std::move(t));
  }
  return true;
}

} // namespace strata::cli
