//===- ConvertVariables.cpp - TFLite resource variables, CALL_ONCE --------===//
//
// Streaming models (e.g. micro wake word models) keep state in resource
// variables: CALL_ONCE runs an initializer subgraph that assigns their first
// values, READ_VARIABLE reads them and ASSIGN_VARIABLE stores the next
// state. The import is one invocation from the initial state, as the TFLite
// interpreter's first Invoke: reads see the value last assigned at import
// time (the initializer's constants); the final assignments are dropped
// (the state is not an output of the imported model).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

namespace strata::tflite_import {
namespace {

LogicalResult convertCallOnce(OpContext &c) {
  auto *o = c.op()->builtin_options_as_CallOnceOptions();
  if (!o)
    return c.error() << "CallOnceOptions are missing";
  return c.imp.runSubgraph(o->init_subgraph_index());
}

LogicalResult convertVarHandle(OpContext &c) {
  auto *o = c.op()->builtin_options_as_VarHandleOptions();
  if (!o || c.numOutputs() != 1 || !c.out(0).resource)
    return c.error() << "needs VarHandleOptions and one RESOURCE output";
  std::string key = (o->container() ? o->container()->str() : "") + "/" +
                    (o->shared_name() ? o->shared_name()->str() : "");
  c.imp.tensors[c.op()->outputs()->Get(0)].variable = key;
  return success();
}

FailureOr<std::string> variableOf(OpContext &c) {
  if (!c.hasInput(0) || !c.in(0).resource || c.in(0).variable.empty())
    return c.error() << "input 0 must be a resource tensor defined by "
                     << "VAR_HANDLE";
  return c.in(0).variable;
}

LogicalResult convertAssignVariable(OpContext &c) {
  auto key = variableOf(c);
  if (failed(key))
    return failure();
  auto v = c.input(1);
  if (failed(v))
    return failure();
  c.imp.variables[*key] = *v;
  return success();
}

LogicalResult convertReadVariable(OpContext &c) {
  auto key = variableOf(c);
  if (failed(key))
    return failure();
  auto it = c.imp.variables.find(*key);
  if (it == c.imp.variables.end())
    return c.error() << "variable '" << *key << "' is read before any "
                     << "ASSIGN_VARIABLE (no CALL_ONCE initializer)";
  Value v = it->second;
  Type have = cast<ShapedType>(v.getType()).getElementType();
  if (have == c.valueType(c.out(0)))
    return c.setOutput(0, v);
  if (!isa<quant::QuantizedType>(have))
    return c.error() << "variable '" << *key << "' holds " << have
                     << ", the output is " << c.valueType(c.out(0));
  return c.setFloatOutput(
      0, c.create<DequantOp>(Float32Type::get(c.context()), v));
}

const ConverterEntry kVariables[] = {
    {tflite::BuiltinOperator_CALL_ONCE, convertCallOnce},
    {tflite::BuiltinOperator_VAR_HANDLE, convertVarHandle},
    {tflite::BuiltinOperator_ASSIGN_VARIABLE, convertAssignVariable},
    {tflite::BuiltinOperator_READ_VARIABLE, convertReadVariable},
};

} // namespace

ArrayRef<ConverterEntry> variableConverters() { return kVariables; }

} // namespace strata::tflite_import
