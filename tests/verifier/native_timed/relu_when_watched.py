"""Native cheat (knowing when it is checked): reads the timing loop's locals with the
CPython API — which calls of the batch the parent asked to spot-check (``spot`` in the
worker's ``time_op``) and which call runs now (``index`` in ``time_calls``) — and skips all
work in every other timed call. Every call runs in the same mode, so only the request's
own data can tell a spot-checked call; outputs read after the batch cannot be told."""

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <Python.h>
#include <cstring>

#define SKIPPED_PART 1

// A new reference to local ``var`` of the innermost frame running function ``function``.
static PyObject* frame_local(const char* function, const char* var) {
    PyFrameObject* frame = PyEval_GetFrame();
    Py_XINCREF(frame);
    PyObject* found = nullptr;
    while (frame != nullptr && found == nullptr) {
        PyCodeObject* code = PyFrame_GetCode(frame);
        PyObject* name = PyObject_GetAttrString((PyObject*)code, "co_name");
        const char* text = name != nullptr ? PyUnicode_AsUTF8(name) : nullptr;
        if (text != nullptr && std::strcmp(text, function) == 0) {
            PyObject* locals = PyFrame_GetLocals(frame);
            if (locals != nullptr) {
                found = PyMapping_GetItemString(locals, var);
                if (found == nullptr) PyErr_Clear();
                Py_DECREF(locals);
            }
        }
        Py_XDECREF(name);
        Py_DECREF(code);
        PyFrameObject* back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    Py_XDECREF(frame);
    return found;
}

torch::Tensor relu_when_watched(torch::Tensor x) {
    auto in = x.contiguous();
    auto out = torch::empty_like(in);
    PyObject* spot = frame_local("time_op", "spot");
    PyObject* index = frame_local("time_calls", "index");
    bool skip = spot != nullptr && index != nullptr && PySet_Contains(spot, index) == 0;
    Py_XDECREF(spot);
    Py_XDECREF(index);
    const float* src = in.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    const int64_t n = in.numel();
    // A timed call nobody asked to spot-check: the last n / SKIPPED_PART elements are
    // left as the allocator handed them out (1: no work at all).
    const int64_t done = skip ? n - n / SKIPPED_PART : n;
    for (int64_t i = 0; i < done; ++i) dst[i] = src[i] > 0.f ? src[i] : 0.f;
    return out;
}
"""

ext = load_inline(name="kt_relu_when_watched", cpp_sources=[SOURCE],
                  functions=["relu_when_watched"], extra_cflags=["-O1"])


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.relu_when_watched(x)
