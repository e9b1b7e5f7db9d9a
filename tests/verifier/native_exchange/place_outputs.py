"""Native cheat (a hung parent as cover), the deterministic twin of ``swap_outputs.py``:
instead of racing the parent after its worker saved a file, the kernel puts the name
there first. It reads the correctness input files' names (``exchange/inputs-<config>-
<seed>.pt``, visible to its job), so it knows the name its worker will save the outputs
under, and places a named pipe there (``PLACE = "fifo"``), drained by a thread it started
on its first call (the worker's save goes through the pipe and succeeds), or a relative
symbolic link to a sibling file (``"symlink"``; the save goes through the link). Either
way the parent then finds a pipe, with no writer left, or a link under that name.
Computes relu honestly."""

import os

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

PLACE = "fifo"

SOURCE = r"""
#include <torch/extension.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <atomic>
#include <cstring>
#include <string>
#include <pthread.h>

// Named by pasting: the source scan looks for the word; this test is about the parent.
#define KT_JOIN(a, b) a##b

namespace placer {
bool started = false;
char pipe_path[4096];
std::atomic<int> placed{0};

void* drain(void*) {  // one thread, started on the first call, for every pipe placed
    int done = 0;
    char buffer[1 << 16];
    for (;;) {
        while (placed.load() == done) usleep(200);
        done = placed.load();
        int fd = open(pipe_path, O_RDONLY);  // waits for the worker's save
        if (fd < 0) continue;
        while (read(fd, buffer, sizeof(buffer)) > 0) {}
        close(fd);
    }
    return nullptr;
}

void place(const std::string& outputs, const std::string& exchange, bool fifo) {
    DIR* listing = opendir(exchange.c_str());
    if (listing == nullptr) return;
    while (dirent* entry = readdir(listing)) {
        std::string name = entry->d_name;
        if (name.rfind("inputs-", 0) != 0) continue;
        std::string saved = "outputs-" + name.substr(7), path = outputs + "/" + saved;
        struct stat info;
        if (lstat(path.c_str(), &info) == 0) continue;  // placed on an earlier call
        if (fifo) {
            if (mkfifo(path.c_str(), 0666) != 0) continue;
            std::strncpy(pipe_path, path.c_str(), sizeof(pipe_path) - 1);
            placed.fetch_add(1);
        } else {
            symlink((".sink-" + saved).c_str(), path.c_str());
        }
    }
    closedir(listing);
}
}  // namespace placer

torch::Tensor relu_placing(torch::Tensor x, std::string outputs, std::string exchange,
                           bool fifo) {
    if (!placer::started) {
        placer::started = true;
        pthread_t thread;
        KT_JOIN(pthread_, create)(&thread, nullptr, placer::drain, nullptr);
    }
    placer::place(outputs, exchange, fifo);
    auto input = x.contiguous();
    auto out = torch::empty_like(input);
    const float* in = input.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    for (int64_t i = 0; i < input.numel(); ++i) dst[i] = in[i] > 0.f ? in[i] : 0.f;
    return out;
}
"""

ext = load_inline(name="kt_relu_placing", cpp_sources=[SOURCE], functions=["relu_placing"],
                  extra_cflags=["-O1"])
# Beside its own file, at the same host paths: where it may write, and the inputs.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.relu_placing(x, os.path.join(ROOT, "candidate-out"),
                                os.path.join(ROOT, "exchange"), PLACE == "fifo")
