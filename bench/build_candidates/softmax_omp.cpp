// Row softmax with OpenMP over rows.
#include <cmath>
#include <omp.h>
torch::Tensor softmax_rows(torch::Tensor x) {
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    const int64_t rows = input.size(0), cols = input.size(1);
    const float* src = input.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    #pragma omp parallel for
    for (int64_t r = 0; r < rows; ++r) {
        const float* row = src + r * cols;
        float* o = dst + r * cols;
        float m = row[0];
        for (int64_t c = 1; c < cols; ++c) m = std::max(m, row[c]);
        float s = 0.f;
        for (int64_t c = 0; c < cols; ++c) { o[c] = std::exp(row[c] - m); s += o[c]; }
        const float inv = 1.f / s;
        for (int64_t c = 0; c < cols; ++c) o[c] *= inv;
    }
    return out;
}
