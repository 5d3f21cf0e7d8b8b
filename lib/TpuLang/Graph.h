//===- Graph.h - TpuLang graph internals ------------------------*- C++ -*-===//
//
// The global graph behind the TpuLang API and the helpers the op wrappers
// share. Not installed: only lib/TpuLang uses it.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_LIB_TPULANG_GRAPH_H
#define STRATA_LIB_TPULANG_GRAPH_H

#include "strata/TpuLang/TpuLang.h"
#include "strata/Dialect/Top/IR/TopOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"

#include <map>
#include <set>
#include <sstream>

namespace strata::tpulang::detail {

/// The state behind a Tensor handle.
struct TensorImpl {
  IntList shape;
  std::string dtype;
  DType hostType = DType::F32;
  std::string name;
  std::string ttype = "neuron";
  std::optional<strata::Tensor> data;
  std::optional<FloatOrList> scale;
  std::optional<IntOrList> zeroPoint;
  /// The dim per-channel parameters run along: 1 (channels of an NCHW
  /// activation) unless the tensor's role says otherwise (setQuantAxis).
  int64_t quantAxis = 1;
  /// True for op results.
  bool produced = false;
  /// The graph (by id) the value below lives in; 0 if not materialized.
  uint64_t graphId = 0;
  mlir::Value value;
};

/// The global graph: a module with one function being built.
struct Graph {
  Graph();
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp func;
  uint64_t id = 0;
  /// The last top.Input / top.Weight / top.None op; new ones go after it.
  mlir::Operation *lastHeader = nullptr;
  mlir::Value none;
  /// Graph inputs in block-argument order.
  std::vector<std::shared_ptr<TensorImpl>> inputs;
  /// Weight data by weight name.
  std::map<std::string, strata::Tensor> weights;
  std::set<std::string> names;
  std::map<std::string, int64_t> nameCounters;
  /// While a composite body is built (composite()): its own id (values
  /// created inside it carry it) and name; 0 otherwise. `func`,
  /// `lastHeader` and `none` then refer to the composite's function.
  uint64_t compositeId = 0;
  std::string compositeName;
  /// Ids of composite bodies already built (their tensors are internal).
  std::set<uint64_t> finishedComposites;

  /// The id that values created now get: the composite's, else the graph's.
  uint64_t currentId() const { return compositeId ? compositeId : id; }

  mlir::Block &body() { return func.getBody().front(); }
  /// A builder at the end of the body (for ops).
  mlir::OpBuilder opBuilder();
  /// A builder after the header ops (inputs, weights).
  mlir::OpBuilder headerBuilder();
  /// A name "<prefix>_<n>" not used yet (not registered).
  std::string freshName(const std::string &prefix);
};

/// A new id, distinct from every graph's and scope's (for composite bodies).
uint64_t freshScopeId();

/// The current graph; throws Error naming `op` if init() was not called.
Graph &graph(const std::string &op);

/// Access to Tensor internals.
struct Access {
  static const std::shared_ptr<TensorImpl> &impl(const Tensor &t) {
    return t.impl;
  }
  static Tensor make(std::shared_ptr<TensorImpl> impl) {
    return Tensor(std::move(impl));
  }
};

/// Streams values into an Error message.
class Msg {
public:
  template <typename T> Msg &operator<<(const T &v) {
    os << v;
    return *this;
  }
  Msg &operator<<(const IntList &v);
  Msg &operator<<(const FloatList &v);
  [[noreturn]] void raise() const { throw Error(os.str()); }
  std::string str() const { return os.str(); }

private:
  std::ostringstream os;
};

/// "[1, 2, 3]".
std::string fmt(const IntList &v);
std::string fmt(const IntOrList &v);

/// Parses a dtype name; throws naming op and parameter.
DType parseDType(const std::string &op, const std::string &param,
                 const std::string &dtype);
/// The MLIR type of a tensor (quantized element type if it has a scale).
mlir::Type mlirTypeOf(Graph &g, TensorImpl &t, const std::string &op);
/// The element type for `dtype` with no quantization.
mlir::Type plainElementType(Graph &g, const std::string &dtype);

/// Sets the dim `t`'s per-channel quantization runs along from its role as
/// parameter `param` of `op` (a convolution weight: dim 0, its output
/// channels), before `t` is materialized; an error naming op, param and dims
/// if `t` is already in the graph, quantized per channel along another dim.
void setQuantAxis(const std::string &op, const std::string &param,
                  const Tensor &t, int64_t axis);

/// The IR value of `t` in the current graph, creating its top.Input /
/// top.Weight on first use.
mlir::Value valueOf(const std::string &op, const Tensor &t);
/// `t`'s value, or the graph's `none` value.
mlir::Value valueOrNone(const std::string &op, const std::optional<Tensor> &t);

/// Reserves an output name: `name` if given (throws if taken), else a fresh
/// "<op>_<n>".
std::string outputName(Graph &g, const std::string &op,
                       const std::optional<std::string> &name);

/// Runs shape inference on a freshly created op (unranked results), sets the
/// result types (`elementTypes`, one per result) and verifies the op. Throws
/// Error "<op>: <diagnostic>" on failure, after erasing the op. Returns one
/// Tensor per result (dtypes as given), all named `name` (the interpreter
/// names result i of a multi-result op "<name>_<i>").
std::vector<Tensor> finishOp(const std::string &op, mlir::Operation *created,
                             llvm::ArrayRef<mlir::Type> elementTypes,
                             llvm::ArrayRef<std::string> dtypes,
                             const std::string &name);

/// Creates an `OpTy` at the end of the graph with unranked results of
/// `elementTypes`, infers its shapes and verifies it (see finishOp).
template <typename OpTy>
std::vector<Tensor> buildOp(const std::string &op,
                            llvm::ArrayRef<mlir::Value> operands,
                            llvm::ArrayRef<mlir::NamedAttribute> attrs,
                            llvm::ArrayRef<mlir::Type> elementTypes,
                            llvm::ArrayRef<std::string> dtypes,
                            const std::string &name) {
  Graph &g = graph(op);
  mlir::OpBuilder b = g.opBuilder();
  llvm::SmallVector<mlir::Type> types;
  for (mlir::Type t : elementTypes)
    types.push_back(mlir::UnrankedTensorType::get(t));
  auto loc = mlir::NameLoc::get(mlir::StringAttr::get(&g.context, name));
  OpTy created = OpTy::create(b, loc, mlir::TypeRange(types),
                              mlir::ValueRange(operands), attrs);
  return finishOp(op, created.getOperation(), elementTypes, dtypes, name);
}

/// Single-result buildOp; reserves the output name first.
template <typename OpTy>
Tensor buildOne(const std::string &op, llvm::ArrayRef<mlir::Value> operands,
                llvm::ArrayRef<mlir::NamedAttribute> attrs,
                mlir::Type elementType, const std::string &dtype,
                const std::string &name) {
  return buildOp<OpTy>(op, operands, attrs, {elementType}, {dtype}, name)[0];
}

} // namespace strata::tpulang::detail

#endif // STRATA_LIB_TPULANG_GRAPH_H
