// NUMA zones of a multi-module GPU (seed 000 §4.6, Fig. 13, footnote 3; rules R7.1-R7.6, B3, B4
// and M10 of ../shared/specs/seed000.md). Pure arithmetic: no SystemC.
//
// With Z zones (a power of two, n = log2 Z bits), a data structure placed at start bit b has its
// zone in address bits [b, b+n): 2^b bytes go to one zone, the next 2^b to the next, so
// b = 7 interleaves 128 B bursts and b = 16 64 KB pages. Inside a zone the n zone bits are
// removed from the address (interpretation I-10), so channel, bank and row decode see a dense
// zone-local address. Addresses outside every placed structure use the NUMA Baseline's XOR hash
// (B3, I-13), whose zone is a permutation of bits [8, 8+n) for fixed other bits, so removing
// those bits is again a bijection.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/types.h"

namespace locsim {

constexpr unsigned kNumaMinStartBit = 7;   // the minimum DRAM burst, 128 B (footnote 3)
constexpr unsigned kNumaMaxStartBit = 16;  // 64 KB pages; coarser uses the page table (R7.2)
constexpr unsigned kNumaXorStartBit = 8;   // the bits the Baseline's hash permutes
// R7.2: a granularity coarser than 64 KB maps 64 KB pages through the page table, each page to
// the zone of the tile it belongs to. Algorithm 2 and the zone map name that choice "bit 17".
constexpr unsigned kNumaPageStartBit = 17;
constexpr std::uint64_t kNumaPageBytes = 65536;
// Zone-local addresses of page-table-placed pages start here, above every address a bit-field
// placement or the XOR hash can produce, so the two never alias.
constexpr Addr kNumaPageLocalBase = Addr{1} << 52;

// log2(zones); throws std::invalid_argument unless zones is a power of two in [1, 64].
unsigned numa_zone_bits(std::uint32_t zones);

// R7.1: the zone of `a` under start bit b.
inline std::uint32_t zone_at_bit(Addr a, unsigned b, std::uint32_t zones) {
  return static_cast<std::uint32_t>((a >> b) & (zones - 1));
}
// I-10: `a` with the n zone bits at position b removed (bits below b kept, bits above shifted
// down by n). Together with the zone this is a bijection.
inline Addr remove_zone_bits(Addr a, unsigned b, unsigned n) {
  return ((a >> (b + n)) << b) | (a & ((Addr{1} << b) - 1));
}
// The inverse: the address whose zone is `zone` and whose zone-local address is `local`.
inline Addr insert_zone_bits(Addr local, std::uint32_t zone, unsigned b, unsigned n) {
  return ((local >> b) << (b + n)) | (Addr{zone} << b) | (local & ((Addr{1} << b) - 1));
}

// B3 / I-13: the NUMA Baseline's static XOR hash, ((a>>8) ^ (a>>14) ^ (a>>20)) mod Z.
inline std::uint32_t xor_zone(Addr a, std::uint32_t zones) {
  return static_cast<std::uint32_t>(((a >> 8) ^ (a >> 14) ^ (a >> 20)) & (zones - 1));
}

// The one zone decoder every block that routes by address shares (R7.6): per-structure start
// bits inside placed ranges, the XOR hash elsewhere.
class NumaZoneMap {
 public:
  explicit NumaZoneMap(std::uint32_t zones);

  std::uint32_t zones() const { return zones_; }
  unsigned zone_bits() const { return bits_; }

  // Places [base, base+bytes) at start bit b. The range is padded up to a multiple of
  // 2^(b+n) and must start on one, so that every zone-local address belongs to exactly one
  // address (two structures, or a structure and its XOR-mapped neighbours, never share one).
  // Throws std::invalid_argument naming the structure: b outside [7, 16], misaligned base, or an
  // overlap with a placed range.
  void place(const std::string& name, Addr base, std::uint64_t bytes, unsigned start_bit);
  // The alignment a structure needs to be placed at start bit b: 2^(b+n) bytes.
  std::uint64_t alignment(unsigned start_bit) const {
    return std::uint64_t{1} << (start_bit + bits_);
  }

  // R7.2: places [base, base+bytes) page by page, page p in zone page_zone[p] (64 KB pages,
  // base 64 KB aligned). Each zone gives its pages frames in placement order; their zone-local
  // addresses start at kNumaPageLocalBase. Throws like place().
  void place_pages(const std::string& name, Addr base, std::uint64_t bytes,
                   const std::vector<std::uint32_t>& page_zone);

  // The start bit governing `a`: its structure's (kNumaPageStartBit for page-table placement),
  // or kNumaXorStartBit outside every one.
  unsigned start_bit(Addr a) const;
  std::uint32_t zone(Addr a) const;
  Addr local(Addr a) const;
  std::size_t num_placed() const { return ranges_.size(); }

 private:
  struct Range {
    Addr base, end;  // padded: [base, end)
    unsigned bit;
    std::string name;
    std::vector<std::uint32_t> page_zone;   // page-table placement: zone per page
    std::vector<std::uint64_t> page_frame;  // and its frame within that zone
  };
  // Adds r; throws std::invalid_argument naming both ranges when it overlaps a placed one.
  void insert(Range r);
  const Range* find(Addr a) const;

  std::uint32_t zones_;
  unsigned bits_;
  std::vector<std::uint64_t> next_frame_;  // per zone, for page-table placement
  std::vector<Range> ranges_;              // sorted by base
};

// B4: FirstTouch-Distrib's page table. A page is placed in the zone of the SM that touches it
// first and never moves (placement cost ignored, as the spec's interpretation says).
class FirstTouchPages {
 public:
  explicit FirstTouchPages(std::uint64_t page_bytes = 65536);
  // The zone of a's page, placing it in `toucher_zone` if this is its first touch.
  std::uint32_t touch(Addr a, std::uint32_t toucher_zone);
  std::optional<std::uint32_t> zone(Addr a) const;
  std::size_t pages() const { return zone_.size(); }

 private:
  unsigned page_shift_;
  std::unordered_map<Addr, std::uint32_t> zone_;
};

// M10: access efficiency (local / all accesses that reach the memory side) and the access
// distribution over zones (Figs. 18, 19).
class NumaAccessCounter {
 public:
  explicit NumaAccessCounter(std::uint32_t zones) : per_zone_(zones, 0) {}
  void count(std::uint32_t requester_zone, std::uint32_t data_zone) {
    ++per_zone_.at(data_zone);
    ++total_;
    if (requester_zone == data_zone) ++local_;
  }
  std::uint64_t local() const { return local_; }
  std::uint64_t total() const { return total_; }
  double efficiency() const { return total_ ? double(local_) / double(total_) : 0.0; }
  // Fraction of the accesses that went to zone z.
  double share(std::uint32_t z) const {
    return total_ ? double(per_zone_.at(z)) / double(total_) : 0.0;
  }

 private:
  std::vector<std::uint64_t> per_zone_;
  std::uint64_t local_ = 0, total_ = 0;
};

}  // namespace locsim
