#include "model/types.h"

namespace locsim {

const char* to_string(AccessKind k) {
  switch (k) {
    case AccessKind::Load: return "load";
    case AccessKind::Store: return "store";
    case AccessKind::Atomic: return "atomic";
    case AccessKind::Prefetch: return "prefetch";
  }
  return "?";
}

std::uint32_t ByteMask::sector_mask(unsigned sector_bytes) const {
  std::uint32_t m = 0;
  for (unsigned s = 0; s * sector_bytes < 128; ++s)
    for (unsigned b = s * sector_bytes; b < (s + 1) * sector_bytes; ++b)
      if (test(b)) {
        m |= 1u << s;
        break;
      }
  return m;
}

}  // namespace locsim
