// LayerNorm over the last dimension with affine parameters; no extra flags (stock -O0).
#include <cmath>
#include <vector>
torch::Tensor layer_norm_fwd(torch::Tensor x, torch::Tensor weight, torch::Tensor bias, double eps) {
    auto input = x.contiguous();
    const int64_t cols = input.size(-1);
    const int64_t rows = input.numel() / cols;
    auto out = torch::empty_like(input);
    const float* src = input.data_ptr<float>();
    const float* w = weight.data_ptr<float>();
    const float* b = bias.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    for (int64_t r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (int64_t c = 0; c < cols; ++c) mean += src[r * cols + c];
        mean /= cols;
        for (int64_t c = 0; c < cols; ++c) { double d = src[r * cols + c] - mean; var += d * d; }
        const double inv = 1.0 / std::sqrt(var / cols + eps);
        for (int64_t c = 0; c < cols; ++c)
            dst[r * cols + c] = static_cast<float>((src[r * cols + c] - mean) * inv) * w[c] + b[c];
    }
    return out;
}
