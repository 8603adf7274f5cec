// Running a kernel's streams outside the simulator: for tests and for analyses that need the
// accesses before launch (per-CTA access sets for PAVER's locality graph, LDesc tiles).
#pragma once
#include <cstdint>

#include "model/workload/kernel.h"

namespace locsim {

// Calls f(const WarpInst&) for each instruction of one warp, Exit included, with every lane of a
// linear instruction written (WarpInst::fill_lanes()).
template <class F>
void for_each_warp_inst(const Kernel& k, std::uint32_t cta, std::uint32_t warp, F&& f) {
  auto s = k.warp_stream(cta, warp);
  WarpInst in;
  while (s->next(in)) {
    in.fill_lanes();
    f(static_cast<const WarpInst&>(in));
  }
}

// Calls f(warp, const WarpInst&) for each instruction of each warp of a CTA, warp by warp.
template <class F>
void for_each_cta_inst(const Kernel& k, std::uint32_t cta, F&& f) {
  for (std::uint32_t w = 0; w < k.warps_per_cta(); ++w)
    for_each_warp_inst(k, cta, w, [&](const WarpInst& in) { f(w, in); });
}

}  // namespace locsim
