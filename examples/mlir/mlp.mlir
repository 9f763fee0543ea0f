// A two-layer MLP with a mean-squared-error loss and an auxiliary L2 loss on
// the hidden activations, in the tad dialect: what the frontend will emit for
// examples/mlp.tad. The second layer is a checkpointed region.
func.func @mlp_loss(%x: tensor<64x256xf32>, %y: tensor<64x10xf32>,
                    %w1: tensor<256x128xf32>, %b1: tensor<128xf32>,
                    %w2: tensor<128x10xf32>, %b2: tensor<10xf32>)
    -> (tensor<f32>, tensor<f32>) {
  %xw = tad.matmul %x, %w1 : tensor<64x256xf32>, tensor<256x128xf32> -> tensor<64x128xf32>
  %bb1 = tad.broadcast %b1 dims [1] : tensor<128xf32> -> tensor<64x128xf32>
  %z1 = tad.add %xw, %bb1 : tensor<64x128xf32>
  %h = tad.relu %z1 : tensor<64x128xf32>
  %out = tad.checkpoint(%h, %w2, %b2)
      : (tensor<64x128xf32>, tensor<128x10xf32>, tensor<10xf32>) -> tensor<64x10xf32> {
  ^bb0(%a: tensor<64x128xf32>, %w: tensor<128x10xf32>, %b: tensor<10xf32>):
    %m = tad.matmul %a, %w : tensor<64x128xf32>, tensor<128x10xf32> -> tensor<64x10xf32>
    %bb = tad.broadcast %b dims [1] : tensor<10xf32> -> tensor<64x10xf32>
    %z = tad.add %m, %bb : tensor<64x10xf32>
    tad.yield %z : tensor<64x10xf32>
  }
  %d = tad.sub %out, %y : tensor<64x10xf32>
  %sq = tad.mul %d, %d : tensor<64x10xf32>
  %loss = tad.reduce_mean %sq axes [0, 1] : tensor<64x10xf32> -> tensor<f32>
  %h2 = tad.mul %h, %h : tensor<64x128xf32>
  %aux = tad.reduce_mean %h2 axes [0, 1] : tensor<64x128xf32> -> tensor<f32>
  %one = tad.constant dense<1.0> : tensor<f32>
  %scaled = tad.mul %aux, %one : tensor<f32>
  %total = tad.add %loss, %scaled : tensor<f32>
  return %total, %aux : tensor<f32>, tensor<f32>
}
