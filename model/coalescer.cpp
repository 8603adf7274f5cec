#include "model/coalescer.h"

#include <algorithm>

namespace locsim {

void coalesce(const std::array<Addr, kWarpSize>& addrs, std::uint32_t active_mask,
              std::uint32_t access_bytes, std::uint32_t line_bytes, std::uint32_t sector_bytes,
              std::vector<LineRequest>& out) {
  out.clear();
  const Addr lmask = ~Addr{line_bytes - 1};
  std::size_t last = 0;
  auto add = [&](Addr a, unsigned n, unsigned lane) {
    const Addr line = a & lmask;
    // Neighbouring lanes usually touch the line the previous lane did: check it first.
    LineRequest* r = !out.empty() && out[last].line_addr == line ? &out[last] : nullptr;
    for (std::size_t i = 0; !r && i < out.size(); ++i)
      if (out[i].line_addr == line) {
        r = &out[i];
        last = i;
      }
    if (!r) {
      out.push_back(LineRequest{});
      last = out.size() - 1;
      r = &out.back();
      r->line_addr = line;
    }
    const unsigned off = static_cast<unsigned>(a - line);
    r->bytes.set_range(off, n);
    const unsigned s0 = off / sector_bytes, s1 = (off + n - 1) / sector_bytes;
    r->sector_mask |= static_cast<std::uint32_t>(((std::uint64_t{2} << s1) - 1) &
                                                 ~((std::uint64_t{1} << s0) - 1));
    r->lane_mask |= 1u << lane;
  };
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    if (!((active_mask >> lane) & 1u)) continue;
    const Addr a = addrs[lane];
    // An access straddling line boundaries is split into one piece per line it touches. Counted
    // in bytes left, not by an end address: in the last line of the 64-bit space `a + size` and
    // the next line's address wrap to 0 (which hung or dropped the access); the address
    // arithmetic wraps like the hardware's.
    Addr p = a;
    for (std::uint64_t left = access_bytes; left > 0;) {
      const std::uint64_t room = line_bytes - (p & (line_bytes - 1));
      const unsigned n = static_cast<unsigned>(std::min<std::uint64_t>(left, room));
      add(p, n, lane);
      left -= n;
      p += n;
    }
  }
}

std::uint32_t shared_bank_conflict_degree(const std::array<Addr, kWarpSize>& addrs,
                                          std::uint32_t active_mask, std::uint32_t banks,
                                          std::uint32_t bank_bytes) {
  // Distinct words per bank; the same word in several lanes is a broadcast.
  Addr words[kWarpSize];
  unsigned n = 0;
  std::uint32_t degree = 0;
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    if (!((active_mask >> lane) & 1u)) continue;
    const Addr w = addrs[lane] / bank_bytes;
    bool seen = false;
    for (unsigned i = 0; i < n && !seen; ++i) seen = words[i] == w;
    if (!seen) words[n++] = w;
  }
  for (unsigned i = 0; i < n; ++i) {
    std::uint32_t c = 0;
    for (unsigned j = 0; j < n; ++j) c += (words[j] % banks) == (words[i] % banks);
    if (c > degree) degree = c;
  }
  return degree;
}

}  // namespace locsim
