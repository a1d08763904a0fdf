// decode/ggml_blocks.hpp — one decoder per ggml block type, each the loop of ggml's
// dequantize_row_<type> (ggml-quants.c) for one block: float32 arithmetic in ggml's order of
// operations, so results are bit-identical to ggml's reference (non-SIMD) path. The table of
// decode/ggml_types.cpp points at them; nothing else calls them.
#pragma once

#include <cstdint>

namespace tensor_inspect::ggml_blocks {

using u8 = std::uint8_t;

/// An int code as float: the conversion ggml's C makes implicitly (one definition for the
/// block files, which a unity build compiles together).
inline float f(int v) { return static_cast<float>(v); }

/// Q4_K/Q5_K: scale and min of sub-block j from the 12 packed bytes (ggml-quants.c's
/// get_scale_min_k4); also the vector loop's (ggml_fast.cpp).
inline void scale_min_k4(int j, const u8* q, int& sc, int& m) {
  if (j < 4) {
    sc = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

// ggml_legacy.cpp: blocks of 32 to 128 elements.
void q4_0(const u8* b, float* y);
void q4_1(const u8* b, float* y);
void q5_0(const u8* b, float* y);
void q5_1(const u8* b, float* y);
void q8_0(const u8* b, float* y);
void mxfp4(const u8* b, float* y);
void nvfp4(const u8* b, float* y);
void q1_0(const u8* b, float* y);
void q2_0(const u8* b, float* y);
void iq4_nl(const u8* b, float* y);

// ggml_kquants.cpp: super-blocks of QK_K = 256 elements.
void q2_k(const u8* b, float* y);
void q3_k(const u8* b, float* y);
void q4_k(const u8* b, float* y);
void q5_k(const u8* b, float* y);
void q6_k(const u8* b, float* y);
void q8_k(const u8* b, float* y);
void tq1_0(const u8* b, float* y);
void tq2_0(const u8* b, float* y);

// ggml_iquants.cpp: the lattice quants, 256 elements.
void iq2_xxs(const u8* b, float* y);
void iq2_xs(const u8* b, float* y);
void iq2_s(const u8* b, float* y);
void iq3_xxs(const u8* b, float* y);
void iq3_s(const u8* b, float* y);
void iq1_s(const u8* b, float* y);
void iq1_m(const u8* b, float* y);
void iq4_xs(const u8* b, float* y);

}  // namespace tensor_inspect::ggml_blocks
