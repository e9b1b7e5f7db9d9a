"""Native cheat (the parent's JSON parser as cover): during its first call the kernel
writes a frame of its own onto every socket its worker holds (the private channel to the
parent among them): a valid header and, as the body, ``DEPTH`` nested JSON arrays. The
parent parses a frame before it checks anything in it; CPython's parser recurses once per
level, so ``json.loads`` raised ``RecursionError``, which is no ``ValueError``: it escaped
the frame reader's "malformed" handling and ``check()`` itself raised, a harness failure
instead of the candidate's verdict. Computes relu honestly."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

DEPTH = 200000

SOURCE = r"""
#include <torch/extension.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cstdint>
#include <string>

static bool sent = false;

static void send_nested(int64_t depth) {
    sent = true;
    std::string body(depth, '[');
    body.append(depth, ']');
    uint32_t size = htonl(static_cast<uint32_t>(body.size()));
    for (int fd = 3; fd < 256; ++fd) {
        int type = 0;
        socklen_t length = sizeof(type);
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM)
            continue;
        if (write(fd, &size, sizeof(size)) == sizeof(size))
            (void)!write(fd, body.data(), body.size());
    }
}

torch::Tensor relu_replying(torch::Tensor x, int64_t depth) {
    if (!sent) send_nested(depth);
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    const float* in = input.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    for (int64_t i = 0; i < input.numel(); ++i) dst[i] = in[i] > 0.f ? in[i] : 0.f;
    return out;
}
"""

ext = load_inline(name="kt_relu_replying", cpp_sources=[SOURCE], functions=["relu_replying"],
                  extra_cflags=["-O1"])


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.relu_replying(x, DEPTH)
