#include "stimuli/warp_context.h"

#include <algorithm>
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
  const std::uint32_t t0 = warp * kLanesPerWarp;
  tid0_ = {t0 % block.x, (t0 / block.x) % block.y, t0 / (block.x * block.y)};
  const std::uint32_t live = std::min(kLanesPerWarp, threads - t0);
  live_ = live == kLanesPerWarp ? ~std::uint32_t{0} : (std::uint32_t{1} << live) - 1;
  row_ = std::min(live, block.x - tid0_.x);
  // The lanes after the row: step x fastest from the row's end (no division per lane).
  Idx3 t{0, tid0_.y, tid0_.z};
  if (++t.y == block.y) {
    t.y = 0;
    ++t.z;
  }
  for (unsigned l = live; l < kLanesPerWarp; ++l) tid_[l] = Lane{0, 0, 0};  // past a partial warp
  for (unsigned l = row_; l < live; ++l) {
    tid_[l] = Lane{t.x, t.y, t.z};
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
