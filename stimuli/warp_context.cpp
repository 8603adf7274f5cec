#include "stimuli/warp_context.h"

#include <stdexcept>
#include <string>

namespace locsim {

WarpContext::WarpContext(Dim3 grid, Dim3 block, std::uint32_t cta, std::uint32_t warp)
    : grid_(grid), block_(block), cta_(cta), warp_(warp) {
  const std::uint32_t threads = block.count();
  if (cta >= grid.count() || warp * kLanesPerWarp >= threads)
    throw std::out_of_range("warp " + std::to_string(warp) + " of CTA " + std::to_string(cta) +
                            " is outside a launch of " + std::to_string(grid.count()) + " CTAs x " +
                            std::to_string(threads) + " threads");
  block_idx_ = {cta % grid.x, (cta / grid.x) % grid.y, cta / (grid.x * grid.y)};
  // Decompose the first thread id, then step x fastest (cheaper than 3 divisions per lane: this
  // runs at every CTA launch).
  const std::uint32_t t0 = warp * kLanesPerWarp;
  Idx3 t{t0 % block.x, (t0 / block.x) % block.y, t0 / (block.x * block.y)};
  for (unsigned l = 0; l < kLanesPerWarp && t0 + l < threads; ++l) {
    live_ |= 1u << l;
    tid_[l] = t;
    if (++t.x == block.x) {
      t.x = 0;
      if (++t.y == block.y) {
        t.y = 0;
        ++t.z;
      }
    }
  }
}

}  // namespace locsim
