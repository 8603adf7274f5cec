// Device memory layout of a built-in workload: where its data structures live.
#pragma once
#include <cstdint>

#include "model/types.h"

namespace locsim {

// A device allocator: page-aligned (64 KiB) bump allocation from a base address.
class DeviceAllocator {
 public:
  explicit DeviceAllocator(Addr base = 0x10000000ull, std::uint64_t align = 65536)
      : next_(base), align_(align) {}
  Addr alloc(std::uint64_t bytes) {
    Addr a = next_;
    next_ += (bytes + align_ - 1) / align_ * align_;
    return a;
  }

 private:
  Addr next_;
  std::uint64_t align_;
};

}  // namespace locsim
