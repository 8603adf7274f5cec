// Set-associative tag array with LRU replacement, linear, XOR or Fermi-hash set indexing and
// optional sectors.
// Used by L1D, L2 and (later) shadow tags; holds no data and knows nothing about timing.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "model/types.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace locsim {

// Linear: line address modulo the set count. Xor: upper line-address bits folded onto the index.
// FermiHash: the GTX480 L1's hash measured by Nugteren et al. (HPCA 2014) and used by GPGPU-Sim's
// GTX480 configuration ('H'); defined for 32 and 64 sets of 128 B lines only.
enum class SetIndexing { Linear, Xor, FermiHash };

// Config spelling of a set-index function ("linear", "xor", "fermi-hash") and back.
const char* set_indexing_name(SetIndexing i);
SetIndexing set_indexing_from_name(const std::string& name);

struct CacheGeometry {
  std::uint32_t sets = 32;
  std::uint32_t ways = 4;
  std::uint32_t line_bytes = 128;
  std::uint32_t sector_bytes = 128;  // == line_bytes: not sectored
  SetIndexing indexing = SetIndexing::Linear;

  std::uint32_t sectors_per_line() const { return line_bytes / sector_bytes; }
  std::uint32_t full_sector_mask() const {
    // 64-bit shift: 32 sectors per line is legal and 1u << 32 is undefined.
    return static_cast<std::uint32_t>((std::uint64_t{1} << sectors_per_line()) - 1);
  }
  std::uint64_t capacity_bytes() const { return std::uint64_t{sets} * ways * line_bytes; }
  // Throws std::invalid_argument naming the problem (non power-of-two sets/line, more than 32
  // sectors ...).
  void validate() const;
};

// The address a cache indexes its sets with. A bank of an address-interleaved cache (an L2
// sub-partition) only ever sees addresses whose bank-selection bits are its own; indexing on the
// global address would leave most of its sets unused, so it indexes on the bank-local address.
class SetIndexAddress {
 public:
  virtual ~SetIndexAddress() = default;
  virtual Addr index_address(Addr a) const = 0;
};

// Members ordered so that a line takes 32 bytes (a set is scanned on every lookup).
struct TagLine {
  Addr line_addr = 0;          // address of the first byte of the line
  std::uint64_t last_use = 0;  // LRU stamp
  std::uint32_t valid_sectors = 0;
  std::uint32_t dirty_sectors = 0;
  bool valid = false;     // holds a tag (possibly with no valid sector yet)
  bool reserved = false;  // allocated on a miss, fill pending: cannot be evicted
  // Insertion priority (seed 000 §4.4, R4.1): 0 normal, 1 soft-pinned, 2 hard-pinned. Set at
  // allocation, kept on hits, cleared by unpin_all() and at kernel boundaries.
  std::uint8_t priority = 0;
};

// Outcome of a lookup that changes nothing.
enum class ProbeResult {
  Hit,          // tag present and every requested sector valid
  HitReserved,  // tag present, requested sectors still being filled (an MSHR hit candidate)
  SectorMiss,   // tag present (not reserved) but some requested sector invalid
  Miss,         // tag absent, a victim way is available
  MissNoVictim  // tag absent and every way of the set is reserved: reservation failure
};

struct Probe {
  ProbeResult result = ProbeResult::Miss;
  std::uint32_t set = 0;
  int way = -1;  // way holding the tag (hits), or the victim (Miss), -1 otherwise
};

struct Eviction {
  bool valid = false;  // a valid line was displaced
  Addr line_addr = 0;
  std::uint32_t dirty_sectors = 0;
};

// No frame (TagArray::slot()) known.
constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};

class TagArray {
 public:
  // index_addr (optional, must outlive the array): the address sets are indexed with; tags
  // always hold the global line address.
  explicit TagArray(const CacheGeometry& g, const SetIndexAddress* index_addr = nullptr);

  const CacheGeometry& geometry() const { return geo_; }
  // geometry().full_sector_mask(), kept (a division otherwise).
  std::uint32_t full_sector_mask() const { return full_mask_; }
  Addr line_addr(Addr a) const { return a & line_mask_; }
  std::uint32_t set_index(Addr a) const {
    // Inline for the common power-of-two linear index (every built-in L1D and L2 uses it).
    if (linear_pow2_) return static_cast<std::uint32_t>((index_of(a) >> line_shift_) & set_mask_);
    return hashed_set_index(a);
  }
  // Sectors of the line covered by [addr, addr+bytes).
  std::uint32_t sectors_of(Addr addr, std::uint32_t bytes) const;

  Probe probe(Addr addr, std::uint32_t sector_mask) const;
  // probe() with the line's set known (set_index(addr)), e.g. from set_of_index_address().
  Probe probe_in(std::uint32_t set, Addr addr, std::uint32_t sector_mask) const;
  // Whether sets are the index address's line number modulo a power of two (set_index()'s
  // inline case); then set_of_index_address(i) is set_index() of an address whose index
  // address is i.
  bool linear_pow2() const { return linear_pow2_; }
  std::uint32_t set_of_index_address(Addr i) const {
    return static_cast<std::uint32_t>((i >> line_shift_) & set_mask_);
  }
  // Marks a way most-recently used.
  void touch(std::uint32_t set, int way);
  // Allocates the line for addr (way from probe()): evicts the victim, marks the line valid and
  // reserved with no valid sector, with insertion priority `priority`. Precondition: probe()
  // returned Miss for addr. Always inline: GCC called it out of line from the L1's decision
  // (about 20 instructions of call, argument and result traffic per miss).
  [[gnu::always_inline]] inline Eviction allocate(Addr addr, const Probe& p,
                                                  std::uint8_t priority = 0);
  // A fill arrived: sectors become valid, the reservation is released. No-op if the tag is gone.
  void fill(Addr addr, std::uint32_t sector_mask);
  // Marks a present line's sectors reserved again for a sector miss (tag kept).
  void reserve_sectors(Addr addr);
  // Marks sectors dirty (write-back caches). Returns false if the tag is absent.
  bool mark_dirty(Addr addr, std::uint32_t sector_mask);
  // The index of (set, way) over the whole array (a hint for fill_at()).
  std::uint32_t slot(std::uint32_t set, int way) const {
    return set * geo_.ways + static_cast<std::uint32_t>(way);
  }
  // Frames (sets x ways): slot()'s range.
  std::size_t slots() const { return lines_.size(); }
  // The frame holding the line of `addr`, kNoSlot if none (out of line: the fills' fallback).
  std::uint32_t slot_of(Addr addr) const;
  // Whether frame `slot` holds the line of `addr` (false for a slot out of range).
  bool holds(std::uint32_t slot, Addr addr) const {
    return slot < lines_.size() && lines_[slot].line_addr == line_addr(addr) && lines_[slot].valid;
  }
  // fill_way() of frame `slot`, the line then reserved again if `reserved` (sectors of it still
  // in flight).
  void fill_slot(std::uint32_t slot, std::uint32_t sector_mask, bool reserved) {
    TagLine& l = lines_[slot];
    l.valid_sectors |= sector_mask;
    l.reserved = reserved;
  }
  // fill(addr, sector_mask), the line looked for first in `slot` (where it was allocated or
  // found): a line is only ever held in its own set and in one way of it.
  void fill_at(Addr addr, std::uint32_t slot, std::uint32_t sector_mask) {
    if (slot < lines_.size()) {
      TagLine& l = lines_[slot];
      if (l.line_addr == line_addr(addr) && l.valid) {
        l.valid_sectors |= sector_mask;
        l.reserved = false;
        return;
      }
    }
    fill(addr, sector_mask);
  }
  // fill() and mark_dirty() of the line in (set, way) (a probe()'s hit or allocated way), without
  // looking it up.
  void fill_way(std::uint32_t set, int way, std::uint32_t sector_mask) {
    TagLine& l = line(set, way);
    l.valid_sectors |= sector_mask;
    l.reserved = false;
  }
  void mark_dirty_way(std::uint32_t set, int way, std::uint32_t sector_mask) {
    line(set, way).dirty_sectors |= sector_mask;
  }
  // Drops the line if present; returns what was displaced (dirty data for write-back caches).
  Eviction invalidate(Addr addr);
  // invalidate() of the line in (set, way) (a find() or probe() hit), without looking it up
  // again (the L1's write-evict of a store hit).
  Eviction invalidate_way(std::uint32_t set, int way);
  // Drops every line (kernel-boundary L1 invalidation). Reserved lines stay, unpinned.
  void invalidate_all();
  // Every line back to priority 0 (seed 000 §4.4's periodic unpin timer, R4.3).
  void unpin_all();

  // Victim of a miss in `set`: an invalid way, else among the non-reserved ways those of the
  // lowest priority present, least recently used first; when every candidate is hard-pinned
  // (priority 2) way 0, or the lowest non-reserved way if way 0 is reserved (seed 000 §4.4,
  // R4.2/I-6: way 0 churns, the other pinned ways stay). -1 if every way is reserved.
  int victim(std::uint32_t set) const;

  const TagLine& line(std::uint32_t set, int way) const { return lines_[set * geo_.ways + way]; }
  TagLine& line(std::uint32_t set, int way) { return lines_[set * geo_.ways + way]; }
  // Way of addr in its set or -1.
  int find(Addr addr) const;
  // The same inline, and the set in `set`.
  int find(Addr addr, std::uint32_t& set) const {
    const Addr la = line_addr(addr);
    set = set_index(la);
    return find_in(set, la);
  }
  std::uint64_t valid_lines() const;

 private:
  Addr index_of(Addr a) const { return index_addr_ ? index_addr_->index_address(a) : a; }
  std::uint32_t hashed_set_index(Addr a) const;
  // A byte per line summarising its address (any function of the line address works: a match
  // is only a candidate, checked against the line itself).
  static std::uint8_t key_of(Addr la) {
    return static_cast<std::uint8_t>((la * 0x9E3779B97F4A7C15ull) >> 56);
  }
  // Way holding line address `la` in set `s`, or -1. A set's keys are compared at once (SSE2, up
  // to 32 ways), else eight at a time in a 64-bit word; every way whose key byte equals `la`'s is
  // flagged (in the word form bytes above a match may be flagged too), and only flagged ways are
  // checked against the line, lowest first. Always inline: the caches' decisions call it once
  // each.
  [[gnu::always_inline]] int find_in(std::uint32_t s, Addr la) const {
    const TagLine* l = &lines_[std::size_t(s) * geo_.ways];
    const std::uint8_t* k = keys(s);
    constexpr std::uint64_t lo = 0x0101010101010101ull, hi = 0x8080808080808080ull;
#if defined(__SSE2__)
    // Up to 32 ways: the set's keys in one or two 16-byte compares (the bytes past the last way,
    // padding or the set's links, are masked off).
    if (sse_ways_ != 0) {
      const __m128i key = _mm_set1_epi8(static_cast<char>(key_of(la)));
      auto match16 = [&](const std::uint8_t* p) {
        const __m128i word = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(word, key)));
      };
      std::uint32_t m = match16(k);
      if (sse_ways_ > 0xffffu) m |= match16(k + 16) << 16;
      for (m &= sse_ways_; m != 0; m &= m - 1) {
        const std::uint32_t w = static_cast<std::uint32_t>(__builtin_ctz(m));
        if (l[w].line_addr == la && l[w].valid) return static_cast<int>(w);
      }
      return -1;
    }
#endif
    const std::uint64_t pattern = lo * key_of(la);
    for (std::uint32_t base = 0; base < geo_.ways; base += 8) {
      std::uint64_t word;
      std::memcpy(&word, k + base, 8);
      if (kBigEndian) word = __builtin_bswap64(word);  // byte j is way base + j
      const std::uint64_t x = word ^ pattern;
      for (std::uint64_t m = (x - lo) & ~x & hi; m != 0; m &= m - 1) {
        const std::uint32_t w = base + static_cast<std::uint32_t>(__builtin_ctzll(m) >> 3);
        if (w < geo_.ways && l[w].line_addr == la && l[w].valid) return static_cast<int>(w);
      }
    }
    return -1;
  }
  static constexpr bool kBigEndian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
  // The line holding addr, or nullptr: one set computation for a lookup that then modifies it.
  TagLine* lookup(Addr addr, std::uint32_t* set = nullptr) {
    const Addr la = line_addr(addr);
    const std::uint32_t s = set_index(la);
    const int w = find_in(s, la);
    if (set) *set = s;
    return w < 0 ? nullptr : &line(s, w);
  }

  CacheGeometry geo_;
  const SetIndexAddress* index_addr_;
  Addr line_mask_;  // ~(line_bytes - 1), kept: line_addr() is asked several times per access
  unsigned line_shift_;
  unsigned set_bits_;
  Addr set_mask_;
  bool linear_pow2_;
  std::uint32_t full_mask_;
  // Way `way` of `set` becomes the most recently used.
  void to_front(std::uint32_t set, std::uint32_t way);

  std::vector<TagLine> lines_;
  // The ways' bits of find_in()'s 16-byte key compares, 0 with more than 32 ways.
  std::uint32_t sse_ways_ = 0;
  std::uint64_t stamp_ = 0;
  // Each set's ways in recency order, a list linked through the lines (way indices) from mru to
  // lru, moved whenever a line gets a new last_use stamp: among valid lines it is the order of
  // last_use. And the valid ways per set. A full set's victim is then found walking from its
  // least recently used way rather than scanning every way.
  struct Link {
    std::uint32_t newer, older;  // a way's own index at the ends
  };
  // first_invalid: the lowest way not valid (ways if none), the victim of a set not full.
  struct SetOrder {
    std::uint32_t mru, lru, valid_ways, first_invalid;
  };
  // The lowest way >= w of `set` not valid, or ways (out of line: allocate() stays small).
  std::uint32_t first_invalid_from(std::uint32_t set, std::uint32_t w) const;
  // What a lookup reads of a set besides its lines, in one block per set (on 64-byte boundaries):
  // its SetOrder, then key_of() of each way's line address (key_stride_ bytes: the ways, then
  // padding to a multiple of 8), then each way's Link. A 4-way set's block is one host cache
  // line (three arrays before: three lines per lookup), a 16-way set's order and keys one.
  // find_in()'s 16- or 32-byte key loads stay inside the block (the links follow the keys).
  class SetBlocks {
   public:
    SetBlocks() = default;
    // The first block at the buffer's first 64-byte boundary.
    SetBlocks(std::size_t sets, std::size_t stride) : buf_(sets * stride + 64) {
      at((64 - reinterpret_cast<std::uintptr_t>(buf_.data()) % 64) % 64);
    }
    // A copy keeps its original's offset: the bytes are copied as they are.
    SetBlocks(const SetBlocks& o) : buf_(o.buf_) { at(o.off_); }
    SetBlocks& operator=(const SetBlocks& o) {
      buf_ = o.buf_;
      at(o.off_);
      return *this;
    }
    // A move keeps the buffer, hence its alignment.
    SetBlocks(SetBlocks&& o) noexcept : buf_(std::move(o.buf_)) { at(o.off_); }
    SetBlocks& operator=(SetBlocks&& o) noexcept {
      buf_ = std::move(o.buf_);
      at(o.off_);
      return *this;
    }
    unsigned char* base() const { return base_; }

   private:
    void at(std::size_t off) {
      off_ = off;
      base_ = buf_.data() + off;
    }
    std::vector<unsigned char> buf_;
    std::size_t off_ = 0;
    unsigned char* base_ = nullptr;
  };
  unsigned char* block(std::uint32_t set) const {
    return blocks_.base() + set * block_stride_;
  }
  SetOrder& order(std::uint32_t set) const {
    return *reinterpret_cast<SetOrder*>(block(set));
  }
  std::uint8_t* keys(std::uint32_t set) const {
    return block(set) + sizeof(SetOrder);
  }
  Link* links(std::uint32_t set) const {
    return reinterpret_cast<Link*>(block(set) + links_offset_);
  }
  SetBlocks blocks_;
  std::size_t block_stride_ = 0;
  std::uint32_t key_stride_ = 8;
  std::uint32_t links_offset_ = 0;  // sizeof(SetOrder) + key_stride_
};

// Always inline: one per access of the L1 and the L2, whose own decisions then keep its result
// in registers.
[[gnu::always_inline]] inline Probe TagArray::probe(Addr addr, std::uint32_t sector_mask) const {
  // Every indexing gives a line's bytes one set: the set of the line address.
  return probe_in(set_index(line_addr(addr)), addr, sector_mask);
}

[[gnu::always_inline]] inline Probe TagArray::probe_in(std::uint32_t set, Addr addr,
                                                       std::uint32_t sector_mask) const {
  Probe p;
  const Addr la = line_addr(addr);
  p.set = set;
  const int w = find_in(p.set, la);
  if (w >= 0) {
    const TagLine& l = line(p.set, w);
    p.way = w;
    if ((l.valid_sectors & sector_mask) == sector_mask)
      p.result = ProbeResult::Hit;
    else
      p.result = l.reserved ? ProbeResult::HitReserved : ProbeResult::SectorMiss;
    return p;
  }
  // victim()'s first step inline: a full set whose least recently used line is neither
  // reserved nor pinned (a streaming access's usual miss).
  const SetOrder& o = order(p.set);
  if (o.valid_ways == geo_.ways) {
    const TagLine& lru = line(p.set, static_cast<int>(o.lru));
    if (!lru.reserved && lru.priority == 0) {
      p.way = static_cast<int>(o.lru);
      p.result = ProbeResult::Miss;
      return p;
    }
  }
  if (o.valid_ways < geo_.ways) {  // victim()'s answer too, without its scan of the set
    p.way = static_cast<int>(o.first_invalid);
    p.result = ProbeResult::Miss;
    return p;
  }
  p.way = victim(p.set);
  p.result = p.way < 0 ? ProbeResult::MissNoVictim : ProbeResult::Miss;
  return p;
}

// Inline: every miss allocates and every hit touches (issue 10).
inline void TagArray::to_front(std::uint32_t set, std::uint32_t way) {
  SetOrder& o = order(set);
  if (o.mru == way) return;
  Link* links = this->links(set);
  const Link l = links[way];
  // Unlink (way is not the MRU, so it has a newer neighbour) ...
  if (o.lru == way) {
    links[l.newer].older = l.newer;
    o.lru = l.newer;
  } else {
    links[l.newer].older = l.older;
    links[l.older].newer = l.newer;
  }
  // ... and insert at the front.
  links[way] = Link{way, o.mru};
  links[o.mru].newer = way;
  o.mru = way;
}

inline void TagArray::touch(std::uint32_t set, int way) {
  line(set, way).last_use = ++stamp_;
  to_front(set, static_cast<std::uint32_t>(way));
}

inline Eviction TagArray::allocate(Addr addr, const Probe& p, std::uint8_t priority) {
  TagLine& l = line(p.set, p.way);
  Eviction ev;
  if (l.valid) {
    ev.valid = l.valid_sectors != 0;
    ev.line_addr = l.line_addr;
    ev.dirty_sectors = l.dirty_sectors;
  } else {
    SetOrder& o = order(p.set);
    ++o.valid_ways;
    if (static_cast<std::uint32_t>(p.way) == o.first_invalid)
      o.first_invalid = first_invalid_from(p.set, o.first_invalid + 1);
  }
  l = TagLine();
  l.line_addr = line_addr(addr);
  keys(p.set)[p.way] = key_of(l.line_addr);
  l.valid = true;
  l.reserved = true;
  l.priority = priority;
  l.last_use = ++stamp_;
  to_front(p.set, static_cast<std::uint32_t>(p.way));
  return ev;
}

inline Eviction TagArray::invalidate_way(std::uint32_t set, int way) {
  SetOrder& o = order(set);
  --o.valid_ways;
  o.first_invalid = std::min(o.first_invalid, static_cast<std::uint32_t>(way));
  TagLine& l = line(set, way);
  Eviction ev;
  ev.valid = true;
  ev.line_addr = l.line_addr;
  ev.dirty_sectors = l.dirty_sectors;
  l = TagLine();
  return ev;
}

}  // namespace locsim
