#include "model/tag_array.h"

#include <algorithm>
#include <new>
#include <stdexcept>

namespace locsim {

void CacheGeometry::validate() const {
  auto bad = [](const std::string& m) { throw std::invalid_argument(m); };
  // Linear indexing takes the line address modulo the set count, so any count works (a 48 KB
  // 4-way L1 of 128 B lines has 96 sets, seed 001 Table 2); XOR folding needs a power of two.
  if (!sets) bad("number of sets must be at least 1");
  if (indexing == SetIndexing::Xor && !is_pow2(sets))
    bad("XOR set indexing needs a power-of-two number of sets (got " + std::to_string(sets) + ")");
  if (indexing == SetIndexing::FermiHash && ((sets != 32 && sets != 64) || line_bytes != 128))
    bad("fermi-hash set indexing is defined for 32 or 64 sets of 128 B lines (got " +
        std::to_string(sets) + " sets of " + std::to_string(line_bytes) + " B)");
  if (!ways) bad("associativity must be at least 1");
  if (!is_pow2(line_bytes) || line_bytes > 128 || line_bytes < 4)
    bad("line size must be a power of two between 4 and 128 bytes (got " +
        std::to_string(line_bytes) + ")");
  if (!is_pow2(sector_bytes) || sector_bytes > line_bytes || line_bytes / sector_bytes > 32)
    bad("sector size must be a power of two dividing the line (got " +
        std::to_string(sector_bytes) + ")");
}

TagArray::TagArray(const CacheGeometry& g, const SetIndexAddress* index_addr)
    : geo_(g), index_addr_(index_addr) {
  geo_.validate();
  line_mask_ = ~Addr{g.line_bytes - 1};
  line_shift_ = log2_floor(g.line_bytes);
  set_bits_ = log2_floor(g.sets);
  set_mask_ = g.sets - 1;
  full_mask_ = g.full_sector_mask();
  // XOR folding with a single set is linear too (nothing to fold into).
  linear_pow2_ = is_pow2(g.sets) && (g.indexing == SetIndexing::Linear ||
                                     (g.indexing == SetIndexing::Xor && set_bits_ == 0));
  lines_.resize(std::size_t(g.sets) * g.ways);
  key_stride_ = (g.ways + 7) / 8 * 8;
  sse_ways_ = g.ways <= 32 ? static_cast<std::uint32_t>((std::uint64_t{1} << g.ways) - 1) : 0;
  links_offset_ = static_cast<std::uint32_t>(sizeof(SetOrder)) + key_stride_;
  // Blocks of whole host cache lines, so that no set's block straddles one more than it must.
  block_stride_ = (links_offset_ + std::size_t(g.ways) * sizeof(Link) + 63) / 64 * 64;
  blocks_ = SetBlocks(g.sets, block_stride_);  // zero: every key 0
  for (std::uint32_t s = 0; s < g.sets; ++s) {
    new (block(s)) SetOrder{0, g.ways - 1, 0, 0};
    Link* links = reinterpret_cast<Link*>(block(s) + links_offset_);
    for (std::uint32_t w = 0; w < g.ways; ++w)
      new (links + w) Link{w == 0 ? 0 : w - 1, w + 1 == g.ways ? w : w + 1};
  }
}

const char* set_indexing_name(SetIndexing i) {
  switch (i) {
    case SetIndexing::Xor:
      return "xor";
    case SetIndexing::FermiHash:
      return "fermi-hash";
    default:
      return "linear";
  }
}

SetIndexing set_indexing_from_name(const std::string& name) {
  if (name == "xor") return SetIndexing::Xor;
  if (name == "fermi-hash") return SetIndexing::FermiHash;
  return SetIndexing::Linear;
}

// Nugteren et al., HPCA 2014: address bits 7-11 XOR bits 13, 14, 15, 17 and 19; a 64-set
// (48 KB) L1 takes bit 12 as the sixth index bit. Bits 16 and 18 and above bit 19 are unused, so
// strides of 64 KiB still map to one set.
static std::uint32_t fermi_hash(Addr a, std::uint32_t sets) {
  const Addr low = (a >> 7) & 0x1f;
  const Addr high = ((a >> 13) & 0x7) | (((a >> 17) & 1) << 3) | (((a >> 19) & 1) << 4);
  Addr s = low ^ high;
  if (sets == 64) s |= ((a >> 12) & 1) << 5;
  return static_cast<std::uint32_t>(s);
}

// The set indexes set_index() does not compute inline: fermi-hash, XOR folding and linear
// indexing over a set count that is not a power of two.
std::uint32_t TagArray::hashed_set_index(Addr a) const {
  if (geo_.indexing == SetIndexing::FermiHash) return fermi_hash(index_of(a), geo_.sets);
  const Addr line = index_of(a) >> line_shift_;
  if (!is_pow2(geo_.sets)) return static_cast<std::uint32_t>(line % geo_.sets);
  if (geo_.indexing == SetIndexing::Linear || set_bits_ == 0)
    return static_cast<std::uint32_t>(line & set_mask_);
  // XOR-fold the upper line-address bits into the index so power-of-two strides spread over sets.
  Addr x = line;
  for (Addr hi = line >> set_bits_; hi; hi >>= set_bits_) x ^= hi;
  return static_cast<std::uint32_t>(x & set_mask_);
}

std::uint32_t TagArray::sectors_of(Addr addr, std::uint32_t bytes) const {
  std::uint32_t m = 0;
  const Addr base = line_addr(addr);
  for (Addr a = addr; a < addr + bytes && a < base + geo_.line_bytes; a += 1)
    m |= 1u << ((a - base) / geo_.sector_bytes);
  return m;
}

int TagArray::find(Addr addr) const {
  const Addr la = line_addr(addr);
  return find_in(set_index(la), la);
}

std::uint32_t TagArray::slot_of(Addr addr) const {
  const Addr la = line_addr(addr);
  const std::uint32_t set = set_index(la);
  const int way = find_in(set, la);
  return way < 0 ? kNoSlot : slot(set, way);
}

std::uint32_t TagArray::first_invalid_from(std::uint32_t set, std::uint32_t w) const {
  const TagLine* ways = &lines_[std::size_t(set) * geo_.ways];
  while (w < geo_.ways && ways[w].valid) ++w;
  return w;
}

int TagArray::victim(std::uint32_t set) const {
  const TagLine* ways = &lines_[std::size_t(set) * geo_.ways];
  const SetOrder& o = order(set);
  // A set not full: its first invalid way, kept.
  if (o.valid_ways < geo_.ways) return static_cast<int>(o.first_invalid);
  // A full set: priority 0 is the lowest, so its least recently used non-reserved line of
  // priority 0, if there is one, is the line the scan below would choose.
  const Link* links = this->links(set);
  for (std::uint32_t w = o.lru;; w = links[w].newer) {
    if (!ways[w].reserved && ways[w].priority == 0) return static_cast<int>(w);
    if (w == o.mru) break;
  }
  // The best candidate's (priority, last_use) kept in registers: ties keep the lower way.
  int best = -1, first = -1;
  std::uint8_t best_priority = 0;
  std::uint64_t best_use = 0;
  for (std::uint32_t w = 0; w < geo_.ways; ++w) {
    const TagLine& l = ways[w];
    if (!l.valid) return static_cast<int>(w);
    if (l.reserved) continue;
    if (best < 0) {
      first = static_cast<int>(w);
    } else if (l.priority > best_priority ||
               (l.priority == best_priority && l.last_use >= best_use)) {
      continue;
    }
    best = static_cast<int>(w);
    best_priority = l.priority;
    best_use = l.last_use;
  }
  // Every candidate hard-pinned: evict a fixed way rather than the LRU one.
  if (best >= 0 && best_priority >= 2) return first;
  return best;
}

void TagArray::fill(Addr addr, std::uint32_t sector_mask) {
  TagLine* l = lookup(addr);
  if (!l) return;
  l->valid_sectors |= sector_mask;
  l->reserved = false;
}

void TagArray::reserve_sectors(Addr addr) {
  if (TagLine* l = lookup(addr)) l->reserved = true;
}

bool TagArray::mark_dirty(Addr addr, std::uint32_t sector_mask) {
  TagLine* l = lookup(addr);
  if (!l) return false;
  l->dirty_sectors |= sector_mask;
  return true;
}

Eviction TagArray::invalidate(Addr addr) {
  std::uint32_t set = 0;
  TagLine* found = lookup(addr, &set);
  if (!found) return Eviction();
  return invalidate_way(set, static_cast<int>(found - &lines_[std::size_t(set) * geo_.ways]));
}

void TagArray::unpin_all() {
  for (TagLine& l : lines_) l.priority = 0;
}

void TagArray::invalidate_all() {
  for (TagLine& l : lines_) {
    if (!l.reserved) {
      l = TagLine();
    } else {
      // A pending fill keeps its tag, but sectors valid before the boundary are stale now.
      l.valid_sectors = 0;
      l.dirty_sectors = 0;
      l.priority = 0;
    }
  }
  for (std::size_t s = 0; s < geo_.sets; ++s) {
    SetOrder& o = order(static_cast<std::uint32_t>(s));
    o.valid_ways = 0;
    o.first_invalid = geo_.ways;
    for (std::uint32_t w = 0; w < geo_.ways; ++w) {
      const bool valid = lines_[s * geo_.ways + w].valid;
      o.valid_ways += valid;
      if (!valid && o.first_invalid == geo_.ways) o.first_invalid = w;
    }
  }
}

std::uint64_t TagArray::valid_lines() const {
  std::uint64_t n = 0;
  for (const TagLine& l : lines_) n += l.valid && l.valid_sectors;
  return n;
}

}  // namespace locsim
