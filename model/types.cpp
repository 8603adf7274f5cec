#include "model/types.h"

namespace locsim {

const char* to_string(AccessKind k) {
  switch (k) {
    case AccessKind::Load:
      return "load";
    case AccessKind::Store:
      return "store";
    case AccessKind::Atomic:
      return "atomic";
    case AccessKind::Prefetch:
      return "prefetch";
  }
  return "?";
}

std::uint32_t ByteMask::small_sector_mask(unsigned sector_bytes) const {
  // Each sector's bits tested with one mask.
  std::uint32_t m = 0;
  const std::uint64_t field = (std::uint64_t{1} << sector_bytes) - 1;
  const unsigned per_word = 64 / sector_bytes;
  // A 32-bit mask names at most 32 sectors (the most a line has, CacheGeometry::validate).
  for (unsigned i = 0; i < 2; ++i)
    for (unsigned s = 0; s < per_word && i * per_word + s < 32; ++s)
      if ((w[i] >> (s * sector_bytes)) & field) m |= 1u << (i * per_word + s);
  return m;
}

}  // namespace locsim
