#include "model/coalescer.h"

#include <algorithm>

namespace locsim {

namespace {

// Whether contiguous_requests() applies (far from the top of the address space, so that no
// line end there wraps around).
bool contiguous_ok(Addr base, std::uint32_t access_bytes, std::uint32_t sector_bytes) {
  return access_bytes <= sector_bytes && access_bytes <= 16 && (base & (access_bytes - 1)) == 0 &&
         base <= ~Addr{0} - 2048;
}

// The requests of a fully active warp at base + lane * access_bytes when contiguous_ok(): one
// contiguous byte range, so each line's request follows from the range alone, in increasing
// address order (= lowest lane first); no element straddles a line or a sector.
void contiguous_requests(Addr base, std::uint32_t access_bytes, std::uint32_t line_bytes,
                         std::uint32_t sector_bytes, std::vector<LineRequest>& out) {
  const Addr end = base + Addr{kWarpSize} * access_bytes;
  const Addr lmask = ~Addr{line_bytes - 1};
  const unsigned sector_shift = log2_floor(sector_bytes), elem_shift = log2_floor(access_bytes);
  if (((base ^ (end - 1)) & lmask) == 0) {  // the whole warp in one line: its only request
    LineRequest& r = out.emplace_back();
    r.line_addr = base & lmask;
    const unsigned off = static_cast<unsigned>(base - r.line_addr), n = kWarpSize * access_bytes;
    r.bytes.set_range(off, n);
    const unsigned s0 = off >> sector_shift, s1 = (off + n - 1) >> sector_shift;
    r.sector_mask = static_cast<std::uint32_t>(((std::uint64_t{2} << s1) - 1) &
                                               ~((std::uint64_t{1} << s0) - 1));
    r.lane_mask = ~std::uint32_t{0};
    return;
  }
  for (Addr a = base; a < end;) {
    const Addr line = a & lmask;
    const Addr stop = std::min<Addr>(end, line + line_bytes);
    LineRequest r;
    r.line_addr = line;
    const unsigned off = static_cast<unsigned>(a - line), n = static_cast<unsigned>(stop - a);
    r.bytes.set_range(off, n);
    const unsigned s0 = off >> sector_shift, s1 = (off + n - 1) >> sector_shift;
    r.sector_mask = static_cast<std::uint32_t>(((std::uint64_t{2} << s1) - 1) &
                                               ~((std::uint64_t{1} << s0) - 1));
    const unsigned l0 = static_cast<unsigned>((a - base) >> elem_shift),
                   l1 = static_cast<unsigned>((stop - base) >> elem_shift);
    r.lane_mask = static_cast<std::uint32_t>(((std::uint64_t{1} << (l1 - l0)) - 1) << l0);
    out.push_back(r);
    a = stop;
  }
}

// The most common case of all: a fully active warp accessing consecutive, naturally aligned
// elements (addrs[l] = addrs[0] + l * access_bytes), e.g. a[i] with i the thread index. The
// accessed bytes are one contiguous range, so each line's request follows from the range alone,
// in increasing address order (= lowest lane first); no element straddles a line or a sector.
// Same result as the general path; returns false, with `out` untouched, otherwise.
bool coalesce_contiguous(const std::array<Addr, kWarpSize>& addrs, std::uint32_t active_mask,
                         std::uint32_t access_bytes, std::uint32_t line_bytes,
                         std::uint32_t sector_bytes, std::vector<LineRequest>& out) {
  if (active_mask != ~std::uint32_t{0}) return false;
  const Addr base = addrs[0];
  if (!contiguous_ok(base, access_bytes, sector_bytes)) return false;
  if (!detail::lanes_contiguous(addrs, base, access_bytes)) return false;
  contiguous_requests(base, access_bytes, line_bytes, sector_bytes, out);
  return true;
}

// The common case: every active lane's access is naturally aligned and no wider than a sector,
// so it lies in one sector of one line and in one 64-bit word of the byte mask. Same result as
// the general path, at a fraction of its cost per lane (issue 10: coalescing was ~8 % of a
// memory-bound run's host instructions). One pass over the lanes: the masks of the current line
// are gathered in locals and merged into `out` when the line changes (neighbouring lanes usually
// share a line). Returns false, with `out` empty, otherwise.
bool coalesce_aligned(const std::array<Addr, kWarpSize>& addrs, std::uint32_t active_mask,
                      std::uint32_t access_bytes, std::uint32_t line_bytes,
                      std::uint32_t sector_bytes, std::vector<LineRequest>& out) {
  if (access_bytes > sector_bytes || access_bytes > 16) return false;
  const Addr amask = access_bytes - 1;
  const Addr lmask = ~Addr{line_bytes - 1};
  const unsigned sector_shift = log2_floor(sector_bytes);
  const std::uint64_t lane_bits = (std::uint64_t{1} << access_bytes) - 1;
  std::size_t cur = 0;
  Addr cur_line = 0;
  std::uint64_t bytes[2] = {0, 0};
  std::uint32_t sectors = 0, lanes = 0;
  auto merge = [&]() {
    LineRequest& r = out[cur];
    r.bytes.w[0] |= bytes[0];
    r.bytes.w[1] |= bytes[1];
    r.sector_mask |= sectors;
    r.lane_mask |= lanes;
  };
  for (std::uint32_t m = active_mask; m != 0; m &= m - 1) {
    const unsigned lane = static_cast<unsigned>(__builtin_ctz(m));
    const Addr a = addrs[lane];
    if (a & amask) {
      out.clear();
      return false;
    }
    const Addr line = a & lmask;
    if (lanes == 0 || line != cur_line) {
      if (lanes) merge();
      std::size_t i = 0;
      while (i < out.size() && out[i].line_addr != line) ++i;
      if (i == out.size()) {
        out.push_back(LineRequest{});
        out.back().line_addr = line;
      }
      cur = i;
      cur_line = line;
      bytes[0] = bytes[1] = 0;
      sectors = lanes = 0;
    }
    const unsigned off = static_cast<unsigned>(a - line);
    bytes[off >> 6] |= lane_bits << (off & 63);
    sectors |= 1u << (off >> sector_shift);
    lanes |= 1u << lane;  // non-zero from the first lane on: a line is open
  }
  if (lanes) merge();
  return true;
}
}  // namespace

void coalesce(const std::array<Addr, kWarpSize>& addrs, std::uint32_t active_mask,
              std::uint32_t access_bytes, std::uint32_t line_bytes, std::uint32_t sector_bytes,
              std::vector<LineRequest>& out) {
  coalesce(addrs, active_mask, access_bytes, line_bytes, sector_bytes, out,
           line_bytes / sector_bytes);
}

void detail::coalesce_other(const std::array<Addr, kWarpSize>& addrs, std::uint32_t active_mask,
                            std::uint32_t access_bytes, std::uint32_t line_bytes,
                            std::uint32_t sector_bytes, std::vector<LineRequest>& out) {
  out.clear();
  if (coalesce_contiguous(addrs, active_mask, access_bytes, line_bytes, sector_bytes, out)) return;
  if (coalesce_aligned(addrs, active_mask, access_bytes, line_bytes, sector_bytes, out)) return;
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

void detail::coalesce_linear_other(Addr base, std::uint32_t access_bytes, std::uint32_t line_bytes,
                                   std::uint32_t sector_bytes, std::vector<LineRequest>& out) {
  out.clear();
  if (contiguous_ok(base, access_bytes, sector_bytes)) {
    contiguous_requests(base, access_bytes, line_bytes, sector_bytes, out);
    return;
  }
  std::array<Addr, kWarpSize> addrs;  // rare (unaligned, wide or at the top): the general path
  for (unsigned l = 0; l < kWarpSize; ++l) addrs[l] = base + Addr{l} * access_bytes;
  coalesce_other(addrs, ~std::uint32_t{0}, access_bytes, line_bytes, sector_bytes, out);
}

std::uint32_t shared_bank_conflict_degree(const std::array<Addr, kWarpSize>& addrs,
                                          std::uint32_t active_mask, std::uint32_t banks,
                                          std::uint32_t bank_bytes) {
  // The most distinct words any one bank must deliver; the same word in several lanes is a
  // broadcast. Each bank chains the distinct words seen in it, so a lane compares only with its
  // own bank's words (an all-pairs count took half of matmul's host time: one call per shared
  // memory warp instruction).
  constexpr unsigned char kNone = 0xFF;
  constexpr std::uint32_t kDirect = 64;  // banks up to this are slots themselves
  Addr words[kWarpSize];
  unsigned char next[kWarpSize];  // the next distinct word in the same bank
  unsigned char head[kDirect], count[kDirect];
  Addr slot_bank[kDirect];  // with more banks: the bank a slot stands for
  const bool direct = banks <= kDirect;
  const std::uint32_t slots = direct ? banks : 0;
  std::fill(head, head + slots, kNone);
  unsigned n = 0, used = 0;  // distinct words; slots in use when not direct
  std::uint32_t degree = 0;
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    if (!((active_mask >> lane) & 1u)) continue;
    const Addr w = addrs[lane] / bank_bytes;
    const Addr b = w % banks;
    unsigned s;
    if (direct) {
      s = static_cast<unsigned>(b);
    } else {
      for (s = 0; s < used && slot_bank[s] != b; ++s) {
      }
      if (s == used) {
        slot_bank[used++] = b;
        head[s] = kNone;
      }
    }
    if (head[s] == kNone) {
      head[s] = static_cast<unsigned char>(n);
      count[s] = 1;
    } else {
      unsigned i = head[s], last = i;
      for (; i != kNone; i = next[i]) {
        if (words[i] == w) break;
        last = i;
      }
      if (i != kNone) continue;  // broadcast
      next[last] = static_cast<unsigned char>(n);
      ++count[s];
    }
    words[n] = w;
    next[n++] = kNone;
    if (count[s] > degree) degree = count[s];
  }
  return degree;
}

}  // namespace locsim
