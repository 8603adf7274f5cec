#include "stimuli/warp_context.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace locsim {

void WarpContext::out_of_launch() const {
  const std::uint32_t threads = block_.count();
  throw std::out_of_range("warp " + std::to_string(warp_) + " of CTA " + std::to_string(cta_) +
                          " is outside a launch of " + std::to_string(grid_.count()) + " CTAs x " +
                          std::to_string(threads) + " threads");
}

void WarpContext::store_lanes(std::uint32_t live) {
  // The lanes after the row: step x fastest from the row's end (no division per lane).
  Idx3 t{0, tid0_.y, tid0_.z};
  if (++t.y == block_.y) {
    t.y = 0;
    ++t.z;
  }
  for (unsigned l = live; l < kLanesPerWarp; ++l) tid_[l] = Lane{0, 0, 0};  // past a partial warp
  for (unsigned l = row_; l < live; ++l) {
    tid_[l] = Lane{t.x, t.y, t.z};
    if (++t.x == block_.x) {
      t.x = 0;
      if (++t.y == block_.y) {
        t.y = 0;
        ++t.z;
      }
    }
  }
}

}  // namespace locsim
