#pragma once
// The collecting forms of a cache policy's fill: L1CachePolicy and L2CachePolicy each define
// fill_each(line, sectors, slot, release), which hands every request a fill completes to
// `release`; these gather them into a vector (the functional replay and the tests use them,
// the timed caches call fill_each() directly).

#include <cstdint>
#include <utility>
#include <vector>

#include "model/tag_array.h"
#include "model/types.h"

namespace locsim {

template <class Policy, class Req>
class CachePolicyFills {
 public:
  // A fill of `line` arrived with `sectors`: they become valid; returns, in arrival order, the
  // requests that now have every sector they waited for. The line stays reserved while other
  // sectors of it are in flight.
  std::vector<Req> fill(Addr line, std::uint32_t sectors) {
    std::vector<Req> done;
    fill(line, sectors, done);
    return done;
  }
  // The same into `done` (cleared first): no allocation once the caller's vector has grown.
  // `slot`: the line's frame if the caller knows it, checked; else the line is looked up.
  void fill(Addr line, std::uint32_t sectors, std::vector<Req>& done,
            std::uint32_t slot = kNoSlot) {
    done.clear();
    static_cast<Policy*>(this)->fill_each(line, sectors, slot,
                                          [&done](Req&& r) { done.push_back(std::move(r)); });
  }
};

}  // namespace locsim
