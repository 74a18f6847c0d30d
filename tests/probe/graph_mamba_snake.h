// Graphs both device backends fuse alike (fusion_match.h's shared kernels): Mamba's convolution
// with its channel bias and SiLU, and an audio decoder's snake activation x + sin(a x)^2 / b.
#pragma once
#include <ggml.h>

// conv: the convolution's output named "conv" (SILU of conv+bias when bias); snake: "snake".
inline ggml_tensor *mambaConvolution(ggml_context *c, bool bias)
{
    ggml_tensor *sx = ggml_new_tensor_3d(c, GGML_TYPE_F32, 3 + 2, 32, 1); // d_conv-1+tokens, d_inner
    ggml_tensor *kernel = ggml_new_tensor_2d(c, GGML_TYPE_F32, 4, 32);
    ggml_tensor *conv = ggml_ssm_conv(c, sx, kernel);
    if (bias)
        conv = ggml_add(c, conv, ggml_new_tensor_1d(c, GGML_TYPE_F32, 32));
    conv = ggml_silu(c, conv);
    ggml_set_name(conv, "conv");
    return conv;
}

// x is time by channels; a and 1/b one number a channel.
inline ggml_tensor *snakeActivation(ggml_context *c, ggml_tensor *x)
{
    ggml_tensor *a = ggml_new_tensor_2d(c, GGML_TYPE_F32, 1, x->ne[1]);
    ggml_tensor *invB = ggml_new_tensor_2d(c, GGML_TYPE_F32, 1, x->ne[1]);
    ggml_tensor *y = ggml_add(c, ggml_mul(c, ggml_sqr(c, ggml_sin(c, ggml_mul(c, x, a))), invB), x);
    ggml_set_name(y, "snake");
    return y;
}
