// decode/ggml_tables.hpp — the lookup tables of ggml's quant types (ggml's src/ggml-common.h):
// the IQ lattice grids (each entry packs 8 or 4 grid bytes, first element in the lowest byte),
// the IQ2/IQ3 sign patterns and the non-linear value tables. The grids are data files
// (ggml_grids_*.cpp, written by scripts/gen_ggml_tables.py).
#pragma once

#include <cstdint>

namespace tensor_inspect::ggml_tables {

extern const std::uint8_t kIq2xsSigns[128];    ///< ksigns_iq2xs: 7 sign bits + parity bit
extern const std::uint32_t kIq3xxsGrid[256];   ///< iq3xxs_grid: 4 bytes per entry
extern const std::uint32_t kIq3sGrid[512];     ///< iq3s_grid
extern const std::uint64_t kIq2xxsGrid[256];   ///< iq2xxs_grid: 8 bytes per entry
extern const std::uint64_t kIq2xsGrid[512];    ///< iq2xs_grid
extern const std::uint64_t kIq2sGrid[1024];    ///< iq2s_grid
extern const std::uint64_t kIq1sGrid[2048];    ///< iq1s_grid: 8 int8 (-1, 0, 1) per entry

/// kvalues_iq4nl: IQ4_NL's and IQ4_XS's 16 non-linear levels.
inline constexpr std::int8_t kIq4nlValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                                 1,    13,   25,  38,  53,  69,  89,  113};
/// kvalues_fp4 (kvalues_mxfp4): the E2M1 values doubled, shared by MXFP4 and NVFP4.
inline constexpr std::int8_t kFp4Values[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
/// IQ1S_DELTA and IQ1M_DELTA.
inline constexpr float kIq1Delta = 0.125f;

}  // namespace tensor_inspect::ggml_tables
