//===- TopEnums.td - Top dialect enum attributes -----------*- tablegen -*-===//
//
// Every closed set of names a Top op attribute takes (modes, directions,
// layouts, fused activations) is an enum attribute of the dialect, printed
// `#top.<kind><<value>>`, e.g. `#top.pad_mode<reflect>`, `#top.layout<NHWC>`.
// An unknown value is a parse error naming the kind and the allowed values;
// a value of the wrong kind (or a plain string) is a verifier error naming
// the op's attribute and the allowed values.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TOP_ENUMS
#define STRATA_TOP_ENUMS

include "mlir/IR/EnumAttr.td"
include "strata/Dialect/Top/IR/TopBase.td"

/// A closed set of names: the C++ enum `strata::top::<name>` (with
/// `stringify<name>` / `symbolize<name>`) and the kind `kw` its attribute is
/// printed with. The parser's error names the kind and the allowed values.
class Top_Enum<string name, string kw, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, kw # " (one of " #
                  !interleave(!foreach(c, cases, c.str), ", ") # ")",
                  cases> {
  string keyword = kw;
  let cppNamespace = "::strata::top";
  let genSpecializedAttr = 0;
  let parameterParser = [{[&]() -> ::mlir::FailureOr<}] # cppType # [{> {
    auto loc = $_parser.getCurrentLocation();
    std::string word;
    if (::mlir::failed($_parser.parseKeywordOrString(&word)))
      return ::mlir::failure();
    if (auto value = }] # cppNamespace # "::" # stringToSymbolFnName #
      [{(word))
      return *value;
    return {(::llvm::LogicalResult)($_parser.emitError(loc)
        << "unknown }] # kw # [{ '" << word << "', expected one of: }] #
        !interleave(!foreach(c, cases, c.str), ", ") # [{")};
  }()}];
}

/// The dialect attribute of a `Top_Enum`, `#top.<kw><<value>>`.
class Top_EnumAttr<Top_Enum e> : EnumAttr<Top_Dialect, e, e.keyword> {
  let assemblyFormat = "`<` $value `>`";
}

/// An attribute of enum attribute `attr` defaulting to its case `sym` (the
/// C++ enumerator name).
class Top_DefaultEnum<Attr attr, string sym>
    : DefaultValuedAttr<attr, attr.returnType # "::" # sym>;

class Top_Case<string sym, int val, string str = sym>
    : I32EnumAttrCase<sym, val, str>;

//===----------------------------------------------------------------------===//
// Layout and fused activations
//===----------------------------------------------------------------------===//

def Top_Layout : Top_Enum<"Layout", "layout", [
    Top_Case<"NCHW", 0>, Top_Case<"NHWC", 1>]>;
def Top_LayoutAttr : Top_EnumAttr<Top_Layout>;

/// The epilogue activation of Conv, Deconv and MatMul.
def Top_EpilogueActivation : Top_Enum<"EpilogueActivation", "activation", [
    Top_Case<"Sigmoid", 0, "sigmoid">, Top_Case<"SiLU", 1, "silu">,
    Top_Case<"Gelu", 2, "gelu">, Top_Case<"GeluTanh", 3, "gelu_tanh">,
    Top_Case<"HardSwish", 4, "hardswish">,
    Top_Case<"HardSigmoid", 5, "hardsigmoid">,
    Top_Case<"LeakyRelu", 6, "leaky_relu">, Top_Case<"Clip", 7, "clip">]>;
def Top_EpilogueActivationAttr : Top_EnumAttr<Top_EpilogueActivation>;

def Top_GeluApproximation : Top_Enum<"GeluApproximation", "gelu_approximation", [
    Top_Case<"None", 0, "none">, Top_Case<"Tanh", 1, "tanh">]>;
def Top_GeluApproximationAttr : Top_EnumAttr<Top_GeluApproximation>;

//===----------------------------------------------------------------------===//
// Elementwise and math
//===----------------------------------------------------------------------===//

def Top_CompareMode : Top_Enum<"CompareMode", "compare_mode", [
    Top_Case<"Equal", 0>, Top_Case<"Greater", 1>,
    Top_Case<"GreaterOrEqual", 2>, Top_Case<"Less", 3>,
    Top_Case<"LessOrEqual", 4>, Top_Case<"NotEqual", 5>]>;
def Top_CompareModeAttr : Top_EnumAttr<Top_CompareMode>;

/// The rounding of a float to float8e8m0 (ONNX Cast-25 `round_mode`).
def Top_RoundMode : Top_Enum<"RoundMode", "round_mode", [
    Top_Case<"Up", 0, "up">, Top_Case<"Down", 1, "down">,
    Top_Case<"Nearest", 2, "nearest">]>;
def Top_RoundModeAttr : Top_EnumAttr<Top_RoundMode>;

def Top_ShiftDirection : Top_Enum<"ShiftDirection", "shift_direction", [
    Top_Case<"Left", 0, "LEFT">, Top_Case<"Right", 1, "RIGHT">]>;
def Top_ShiftDirectionAttr : Top_EnumAttr<Top_ShiftDirection>;

def Top_WindowKind : Top_Enum<"WindowKind", "window_kind", [
    Top_Case<"Hann", 0, "hann">, Top_Case<"Hamming", 1, "hamming">,
    Top_Case<"Blackman", 2, "blackman">]>;
def Top_WindowKindAttr : Top_EnumAttr<Top_WindowKind>;

def Top_ReduceMode : Top_Enum<"ReduceMode", "reduce_mode", [
    Top_Case<"Sum", 0, "ReduceSum">, Top_Case<"Mean", 1, "ReduceMean">,
    Top_Case<"Max", 2, "ReduceMax">, Top_Case<"Min", 3, "ReduceMin">,
    Top_Case<"Prod", 4, "ReduceProd">]>;
def Top_ReduceModeAttr : Top_EnumAttr<Top_ReduceMode>;

def Top_CumulativeMode : Top_Enum<"CumulativeMode", "cumulative_mode", [
    Top_Case<"Sum", 0, "sum">, Top_Case<"Prod", 1, "prod">]>;
def Top_CumulativeModeAttr : Top_EnumAttr<Top_CumulativeMode>;

def Top_ScatterReduction : Top_Enum<"ScatterReduction", "scatter_reduction", [
    Top_Case<"None", 0, "none">, Top_Case<"Add", 1, "add">,
    Top_Case<"Mul", 2, "mul">, Top_Case<"Min", 3, "min">,
    Top_Case<"Max", 4, "max">]>;
def Top_ScatterReductionAttr : Top_EnumAttr<Top_ScatterReduction>;

def Top_PadMode : Top_Enum<"PadMode", "pad_mode", [
    Top_Case<"Constant", 0, "constant">, Top_Case<"Reflect", 1, "reflect">,
    Top_Case<"Edge", 2, "edge">, Top_Case<"Wrap", 3, "wrap">]>;
def Top_PadModeAttr : Top_EnumAttr<Top_PadMode>;

def Top_RequantMode : Top_Enum<"RequantMode", "requant_mode", [
    Top_Case<"MultiplierShift", 0>, Top_Case<"TFLite", 1>,
    Top_Case<"Float", 2>, Top_Case<"TosaSingleRound", 3>,
    Top_Case<"TosaDoubleRound", 4>, Top_Case<"TFLiteHalfUp", 5>]>;
def Top_RequantModeAttr : Top_EnumAttr<Top_RequantMode>;

//===----------------------------------------------------------------------===//
// Resampling (Resize, GridSample, RoiAlign, DepthToSpace)
//===----------------------------------------------------------------------===//

/// The interpolation of Resize and GridSample.
def Top_Interpolation : Top_Enum<"Interpolation", "interpolation", [
    Top_Case<"Nearest", 0, "nearest">, Top_Case<"Linear", 1, "linear">,
    Top_Case<"Cubic", 2, "cubic">]>;
def Top_InterpolationAttr : Top_EnumAttr<Top_Interpolation>;

/// Resize's `coordinate_transformation_mode`.
def Top_CoordinateMode : Top_Enum<"CoordinateMode", "coordinate_mode", [
    Top_Case<"HalfPixel", 0, "half_pixel">,
    Top_Case<"HalfPixelSymmetric", 1, "half_pixel_symmetric">,
    Top_Case<"PytorchHalfPixel", 2, "pytorch_half_pixel">,
    Top_Case<"AlignCorners", 3, "align_corners">,
    Top_Case<"Asymmetric", 4, "asymmetric">,
    Top_Case<"TfCropAndResize", 5, "tf_crop_and_resize">]>;
def Top_CoordinateModeAttr : Top_EnumAttr<Top_CoordinateMode>;

def Top_NearestMode : Top_Enum<"NearestMode", "nearest_mode", [
    Top_Case<"RoundPreferFloor", 0, "round_prefer_floor">,
    Top_Case<"RoundPreferCeil", 1, "round_prefer_ceil">,
    Top_Case<"Floor", 2, "floor">, Top_Case<"Ceil", 3, "ceil">]>;
def Top_NearestModeAttr : Top_EnumAttr<Top_NearestMode>;

def Top_GridPadding : Top_Enum<"GridPadding", "grid_padding", [
    Top_Case<"Zeros", 0, "zeros">, Top_Case<"Border", 1, "border">,
    Top_Case<"Reflection", 2, "reflection">]>;
def Top_GridPaddingAttr : Top_EnumAttr<Top_GridPadding>;

/// RoiAlign's `coordinate_transformation_mode`.
def Top_RoiCoordinateMode : Top_Enum<"RoiCoordinateMode", "roi_coordinate_mode", [
    Top_Case<"HalfPixel", 0, "half_pixel">,
    Top_Case<"OutputHalfPixel", 1, "output_half_pixel">]>;
def Top_RoiCoordinateModeAttr : Top_EnumAttr<Top_RoiCoordinateMode>;

def Top_RoiPoolMode : Top_Enum<"RoiPoolMode", "roi_pool_mode", [
    Top_Case<"Avg", 0, "avg">, Top_Case<"Max", 1, "max">]>;
def Top_RoiPoolModeAttr : Top_EnumAttr<Top_RoiPoolMode>;

def Top_DepthToSpaceMode : Top_Enum<"DepthToSpaceMode", "depth_to_space_mode", [
    Top_Case<"DCR", 0>, Top_Case<"CRD", 1>]>;
def Top_DepthToSpaceModeAttr : Top_EnumAttr<Top_DepthToSpaceMode>;

//===----------------------------------------------------------------------===//
// Recurrent and transformer
//===----------------------------------------------------------------------===//

def Top_RnnDirection : Top_Enum<"RnnDirection", "rnn_direction", [
    Top_Case<"Forward", 0, "forward">, Top_Case<"Reverse", 1, "reverse">,
    Top_Case<"Bidirectional", 2, "bidirectional">]>;
def Top_RnnDirectionAttr : Top_EnumAttr<Top_RnnDirection>;

/// The gate activations of RNN, GRU and LSTM (ONNX names).
def Top_RnnActivation : Top_Enum<"RnnActivation", "rnn_activation", [
    Top_Case<"Relu", 0>, Top_Case<"Tanh", 1>, Top_Case<"Sigmoid", 2>,
    Top_Case<"Affine", 3>, Top_Case<"LeakyRelu", 4>,
    Top_Case<"ThresholdedRelu", 5>, Top_Case<"ScaledTanh", 6>,
    Top_Case<"HardSigmoid", 7>, Top_Case<"Elu", 8>, Top_Case<"Softsign", 9>,
    Top_Case<"Softplus", 10>]>;
def Top_RnnActivationAttr : Top_EnumAttr<Top_RnnActivation>;
def Top_RnnActivationArrayAttr
    : TypedArrayAttrBase<Top_RnnActivationAttr,
                         "array of rnn_activation (Relu, Tanh, Sigmoid, "
                         "Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, "
                         "HardSigmoid, Elu, Softsign, Softplus)">;

/// The state update of `top.LinearAttention`.
def Top_UpdateRule : Top_Enum<"UpdateRule", "update_rule", [
    Top_Case<"Linear", 0, "linear">, Top_Case<"Gated", 1, "gated">,
    Top_Case<"Delta", 2, "delta">, Top_Case<"GatedDelta", 3, "gated_delta">]>;
def Top_UpdateRuleAttr : Top_EnumAttr<Top_UpdateRule>;

#endif // STRATA_TOP_ENUMS
