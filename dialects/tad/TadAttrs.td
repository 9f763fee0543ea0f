//===- TadAttrs.td - tad dialect attributes ----------------*- tablegen -*-===//
//
// Attributes that tie functions together: a derivative request names its
// primal, and a custom rule names its forward and pullback functions.
//
//===----------------------------------------------------------------------===//

#ifndef TAD_ATTRS_TD
#define TAD_ATTRS_TD

include "dialects/tad/TadDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tad_DerivativeKind : I32EnumAttr<"DerivativeKind",
    "what a generated derivative function returns", [
      I32EnumAttrCase<"grad", 0>,
      I32EnumAttrCase<"value_and_grad", 1>,
      I32EnumAttrCase<"vjp", 2>
    ]> {
  let cppNamespace = "::tad";
  let genSpecializedAttr = 0;
}

class Tad_Attr<string name, string attrMnemonic> :
    AttrDef<Tad_Dialect, name> {
  let mnemonic = attrMnemonic;
}

def Tad_DerivativeAttr : Tad_Attr<"Derivative", "derivative"> {
  let summary = "marks a function declaration as a requested derivative";
  let description = [{
    Placed as `tad.derivative` on a bodiless `func.func`; the AD pass gives
    the function its body. The declaration's type follows from the primal's:

    - `grad`: the primal's parameters to the cotangents of the `wrt`
      parameters; the primal returns one scalar.
    - `value_and_grad`: the primal's parameters to all of the primal's
      results followed by the cotangents of the `wrt` parameters; the
      first result is the scalar that is differentiated, the others are
      returned as they are (auxiliary values).
    - `vjp`: the primal's parameters followed by one cotangent per primal
      result, to the cotangents of the `wrt` parameters.

    `wrt` lists parameter positions of the primal, each at most once.

    ```mlir
    func.func private @loss_grad(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
        attributes {tad.derivative = #tad.derivative<grad of @loss wrt [1]>}
    ```
  }];
  let parameters = (ins
    EnumParameter<Tad_DerivativeKind>:$kind,
    "::mlir::FlatSymbolRefAttr":$primal,
    ArrayRefParameter<"int64_t">:$wrt
  );
  let assemblyFormat = "`<` $kind `of` $primal `wrt` ` ` `[` $wrt `]` `>`";
}

def Tad_CustomRuleAttr : Tad_Attr<"CustomRule", "custom_rule"> {
  let summary = "binds a user-written forward and pullback to a function";
  let description = [{
    Placed as `tad.custom_rule` on a primal `func.func`. Where AD meets a call
    of the primal, it calls `forward` instead, which returns the primal's
    results followed by the values it saves, and in the backward sweep calls
    `pullback` on the saved values, then the primal parameters that
    `saved_params` lists (by position: the call's own arguments, which the
    forward need not return), then one cotangent per primal result; the
    pullback returns one cotangent per primal parameter.
    A derivative requested of the primal itself differentiates the primal's
    body, so a pullback may request the derivative of its own primal without
    recursion.

    ```mlir
    func.func @layer(%x: tensor<4xf32>) -> tensor<4xf32>
        attributes {tad.custom_rule = #tad.custom_rule<forward = @layer_fwd,
                                                       pullback = @layer_pb,
                                                       saved_params = [0]>}
    ```

    A saved parameter is passed rather than returned so that the forward's
    results hold only values it computes: a returned parameter would be a
    second buffer of the same value, kept until the pullback.
  }];
  let parameters = (ins "::mlir::FlatSymbolRefAttr":$forward,
                        "::mlir::FlatSymbolRefAttr":$pullback,
                        OptionalArrayRefParameter<"int64_t">:$savedParams);
  let assemblyFormat = [{
    `<` `forward` `=` $forward `,` `pullback` `=` $pullback
    (`,` `saved_params` `=` `[` $savedParams^ `]`)? `>`
  }];
}

#endif // TAD_ATTRS_TD
