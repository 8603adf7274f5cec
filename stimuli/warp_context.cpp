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
}

Idx3 WarpContext::thread_idx_slow(unsigned lane) const {
  const std::uint32_t t = warp_ * kLanesPerWarp + lane;
  if (lane >= kLanesPerWarp || !((live_ >> lane) & 1u)) return {};
  return {t % block_.x, (t / block_.x) % block_.y, t / (block_.x * block_.y)};
}

}  // namespace locsim
