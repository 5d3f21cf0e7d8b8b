//===- TopRecurrentOps.td - LSTM, GRU, RNN ------------------*- tablegen -*-===//
//
// One-layer recurrent networks with ONNX semantics. They are also the fused
// targets of composite LSTM/GRU cells written op by op (Keras style), so the
// attributes are explicit: every activation of every direction is spelled
// out with its own alpha and beta.
//
//===----------------------------------------------------------------------===//

#ifndef STRATA_TOP_RECURRENT_OPS
#define STRATA_TOP_RECURRENT_OPS

class Top_RecurrentOp<string mnemonic> : Top_Op<mnemonic, [Pure]> {
  code commonDescription = [{
    Shapes (`D` = number of directions, 2 for `bidirectional` else 1;
    `G` = number of gates; `H` = `hidden_size`; `I` = input size):

    - `input` (X): `[S, N, I]` (`layout` = 0) or `[N, S, I]` (`layout` = 1),
      float.
    - `weight` (W): `[D, G*H, I]`, gate blocks stacked along dim 1 in the
      gate order below; `recurrence` (R): `[D, G*H, H]`.
    - `bias` (B): `[D, 2*G*H]` = `[Wb gates..., Rb gates...]`, or `none`
      (all zero).
    - `sequence_lens`: `[N]` integers in `[0, S]`, or `none` (all `S`).
      Batch entry `n` runs for its first `sequence_lens[n]` steps; `Y` is
      zero past them and the final states are those of the last step run
      (zero when the length is 0, as ONNX Runtime computes it). The reverse
      direction starts at step `sequence_lens[n] - 1`.
    - `initial_h` (and `initial_c`): `[D, N, H]` (`layout` 0) or
      `[N, D, H]` (`layout` 1), or `none` (zeros).
    - Results: `Y` `[S, D, N, H]` (`layout` 0) or `[N, S, D, H]`
      (`layout` 1), every step's hidden state; `Y_h` (and `Y_c`) the final
      states, shaped like `initial_h`. Direction 0 is the forward one (or the
      only one); for `bidirectional`, direction 1 runs in reverse.

    Attributes:

    - `hidden_size`: H, positive.
    - `direction`: `"forward"`, `"reverse"` or `"bidirectional"`.
    - `activations`: K activation names per direction, forward first
      (2K entries for `bidirectional`): `Relu`, `Tanh`, `Sigmoid`, `Affine`
      (`alpha*x + beta`), `LeakyRelu` (alpha), `ThresholdedRelu` (alpha),
      `ScaledTanh` (`alpha*tanh(beta*x)`), `HardSigmoid`
      (`min(max(alpha*x + beta, 0), 1)`), `Elu` (alpha), `Softsign`,
      `Softplus`. Absent: the op's defaults below.
    - `activation_alpha`, `activation_beta`: one value per entry of
      `activations` (ignored by the functions that take no alpha / beta).
      Absent: the ONNX defaults of each function (LeakyRelu 0.01,
      ThresholdedRelu 1, HardSigmoid 0.2 / 0.5, Elu 1, others 0; Affine and
      ScaledTanh then need explicit values). Unlike ONNX, where alpha/beta
      are consumed only by the functions that take them, the lists here are
      aligned with `activations`; the ONNX importer re-aligns them.
    - `clip`: if present (positive), every gate pre-activation is clipped
      to `[-clip, clip]` before its activation; LSTM's `h(Ct)` takes the
      cell state unclipped (as ONNX Runtime computes it).
    - `layout`: 0 (sequence major) or 1 (batch major), as above.

    The reference interpreter computes in f32.
  }];
}

def Top_LSTMOp : Top_RecurrentOp<"LSTM"> {
  let summary = "One-layer LSTM (ONNX LSTM semantics)";
  let description = !strconcat([{
    Gates `G = 4` in the order `i, o, f, c` (input, output, forget, cell).
    With `f, g, h` the three activations of a direction (default
    `Sigmoid, Tanh, Tanh`) and `Xt*W^T` the product with the gate's block of
    W:

    ```
    it = f(Xt*Wi^T + Ht-1*Ri^T + Pi (.) Ct-1 + Wbi + Rbi)
    ft = f(Xt*Wf^T + Ht-1*Rf^T + Pf (.) Ct-1 + Wbf + Rbf)
    ct = g(Xt*Wc^T + Ht-1*Rc^T + Wbc + Rbc)
    Ct = ft (.) Ct-1 + it (.) ct
    ot = f(Xt*Wo^T + Ht-1*Ro^T + Po (.) Ct + Wbo + Rbo)
    Ht = ot (.) h(Ct)
    ```

    `peepholes` (P): `[D, 3*H]` in the order `i, o, f`, or `none` (zero).
    `input_forget`: couple the gates, `ft = 1 - it`.
  }], commonDescription);
  let arguments = (ins
    Top_Tensor:$input,
    Top_Tensor:$weight,
    Top_Tensor:$recurrence,
    Top_TensorOrNone:$bias,
    Top_TensorOrNone:$sequence_lens,
    Top_TensorOrNone:$initial_h,
    Top_TensorOrNone:$initial_c,
    Top_TensorOrNone:$peepholes,
    I64Attr:$hidden_size,
    Top_DefaultEnum<Top_RnnDirectionAttr, "Forward">:$direction,
    OptionalAttr<Top_RnnActivationArrayAttr>:$activations,
    OptionalAttr<DenseF64ArrayAttr>:$activation_alpha,
    OptionalAttr<DenseF64ArrayAttr>:$activation_beta,
    OptionalAttr<F64Attr>:$clip,
    DefaultValuedAttr<BoolAttr, "false">:$input_forget,
    DefaultValuedAttr<I64Attr, "0">:$layout
  );
  let results = (outs Top_Tensor:$Y, Top_Tensor:$Y_h, Top_Tensor:$Y_c);
}

def Top_GRUOp : Top_RecurrentOp<"GRU"> {
  let summary = "One-layer GRU (ONNX GRU semantics)";
  let description = !strconcat([{
    Gates `G = 3` in the order `z, r, h` (update, reset, hidden). With
    `f, g` the two activations of a direction (default `Sigmoid, Tanh`):

    ```
    zt = f(Xt*Wz^T + Ht-1*Rz^T + Wbz + Rbz)
    rt = f(Xt*Wr^T + Ht-1*Rr^T + Wbr + Rbr)
    ht = g(Xt*Wh^T + (rt (.) Ht-1)*Rh^T + Rbh + Wbh)     linear_before_reset = 0
    ht = g(Xt*Wh^T + rt (.) (Ht-1*Rh^T + Rbh) + Wbh)     linear_before_reset = 1
    Ht = (1 - zt) (.) ht + zt (.) Ht-1
    ```
  }], commonDescription);
  let arguments = (ins
    Top_Tensor:$input,
    Top_Tensor:$weight,
    Top_Tensor:$recurrence,
    Top_TensorOrNone:$bias,
    Top_TensorOrNone:$sequence_lens,
    Top_TensorOrNone:$initial_h,
    I64Attr:$hidden_size,
    Top_DefaultEnum<Top_RnnDirectionAttr, "Forward">:$direction,
    OptionalAttr<Top_RnnActivationArrayAttr>:$activations,
    OptionalAttr<DenseF64ArrayAttr>:$activation_alpha,
    OptionalAttr<DenseF64ArrayAttr>:$activation_beta,
    OptionalAttr<F64Attr>:$clip,
    DefaultValuedAttr<BoolAttr, "false">:$linear_before_reset,
    DefaultValuedAttr<I64Attr, "0">:$layout
  );
  let results = (outs Top_Tensor:$Y, Top_Tensor:$Y_h);
}

def Top_RNNOp : Top_RecurrentOp<"RNN"> {
  let summary = "One-layer simple RNN (ONNX RNN semantics)";
  let description = !strconcat([{
    One gate (`G = 1`) and one activation `f` per direction (default
    `Tanh`): `Ht = f(Xt*Wi^T + Ht-1*Ri^T + Wbi + Rbi)`.
  }], commonDescription);
  let arguments = (ins
    Top_Tensor:$input,
    Top_Tensor:$weight,
    Top_Tensor:$recurrence,
    Top_TensorOrNone:$bias,
    Top_TensorOrNone:$sequence_lens,
    Top_TensorOrNone:$initial_h,
    I64Attr:$hidden_size,
    Top_DefaultEnum<Top_RnnDirectionAttr, "Forward">:$direction,
    OptionalAttr<Top_RnnActivationArrayAttr>:$activations,
    OptionalAttr<DenseF64ArrayAttr>:$activation_alpha,
    OptionalAttr<DenseF64ArrayAttr>:$activation_beta,
    OptionalAttr<F64Attr>:$clip,
    DefaultValuedAttr<I64Attr, "0">:$layout
  );
  let results = (outs Top_Tensor:$Y, Top_Tensor:$Y_h);
}

#endif // STRATA_TOP_RECURRENT_OPS
