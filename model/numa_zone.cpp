#include "model/numa_zone.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace locsim {

namespace {
std::string hex(Addr a) {
  std::ostringstream os;
  os << "0x" << std::hex << a;
  return os.str();
}
}  // namespace

unsigned numa_zone_bits(std::uint32_t zones) {
  if (zones == 0 || zones > 64 || (zones & (zones - 1)) != 0)
    throw std::invalid_argument("NUMA zones = " + std::to_string(zones) +
                                " (must be a power of two from 1 to 64)");
  unsigned n = 0;
  while ((1u << n) < zones) ++n;
  return n;
}

NumaZoneMap::NumaZoneMap(std::uint32_t zones)
    : zones_(zones), bits_(numa_zone_bits(zones)), next_frame_(zones, 0) {}

void NumaZoneMap::insert(Range r) {
  for (const Range& o : ranges_)
    if (r.base < o.end && o.base < r.end)
      throw std::invalid_argument("NUMA placement of '" + r.name + "': overlaps '" + o.name +
                                  "' (ranges padded to their granularity)");
  ranges_.push_back(std::move(r));
  std::sort(ranges_.begin(), ranges_.end(),
            [](const Range& a, const Range& b) { return a.base < b.base; });
}

void NumaZoneMap::place_pages(const std::string& name, Addr base, std::uint64_t bytes,
                              const std::vector<std::uint32_t>& page_zone) {
  const std::string what = "NUMA placement of '" + name + "'";
  if (bytes == 0) throw std::invalid_argument(what + ": empty range");
  if (base % kNumaPageBytes != 0)
    throw std::invalid_argument(what + ": base " + hex(base) + " is not 64 KB aligned");
  const std::uint64_t pages = (bytes + kNumaPageBytes - 1) / kNumaPageBytes;
  if (page_zone.size() != pages)
    throw std::invalid_argument(what + ": " + std::to_string(page_zone.size()) +
                                " page zones for " + std::to_string(pages) + " pages");
  Range r{base, base + pages * kNumaPageBytes, kNumaPageStartBit, name, page_zone, {}};
  std::vector<std::uint64_t> next = next_frame_;  // committed only if the range is accepted
  for (std::uint32_t z : page_zone) {
    if (z >= zones_) throw std::invalid_argument(what + ": zone " + std::to_string(z));
    r.page_frame.push_back(next[z]++);
  }
  insert(std::move(r));
  next_frame_ = std::move(next);
}

void NumaZoneMap::place(const std::string& name, Addr base, std::uint64_t bytes,
                        unsigned start_bit) {
  const std::string what = "NUMA placement of '" + name + "'";
  if (start_bit < kNumaMinStartBit || start_bit > kNumaMaxStartBit)
    throw std::invalid_argument(what + ": start bit " + std::to_string(start_bit) +
                                " (must be 7 to 16)");
  if (bytes == 0) throw std::invalid_argument(what + ": empty range");
  const std::uint64_t align = alignment(start_bit);
  if (base % align != 0)
    throw std::invalid_argument(what + ": base " + hex(base) + " is not a multiple of " +
                                std::to_string(align) + " bytes (2^(start bit + zone bits))");
  insert({base, base + (bytes + align - 1) / align * align, start_bit, name, {}, {}});
}

const NumaZoneMap::Range* NumaZoneMap::find(Addr a) const {
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), a,
                             [](Addr v, const Range& r) { return v < r.base; });
  if (it == ranges_.begin()) return nullptr;
  --it;
  return a < it->end ? &*it : nullptr;
}

unsigned NumaZoneMap::start_bit(Addr a) const {
  const Range* r = find(a);
  return r ? r->bit : kNumaXorStartBit;
}

std::uint32_t NumaZoneMap::zone(Addr a) const {
  const Range* r = find(a);
  if (!r) return xor_zone(a, zones_);
  if (r->bit == kNumaPageStartBit) return r->page_zone[(a - r->base) / kNumaPageBytes];
  return zone_at_bit(a, r->bit, zones_);
}

Addr NumaZoneMap::local(Addr a) const {
  const Range* r = find(a);
  if (!r) return remove_zone_bits(a, kNumaXorStartBit, bits_);
  if (r->bit == kNumaPageStartBit)
    return kNumaPageLocalBase + r->page_frame[(a - r->base) / kNumaPageBytes] * kNumaPageBytes +
           (a % kNumaPageBytes);
  return remove_zone_bits(a, r->bit, bits_);
}

FirstTouchPages::FirstTouchPages(std::uint64_t page_bytes) {
  if (page_bytes == 0 || (page_bytes & (page_bytes - 1)) != 0)
    throw std::invalid_argument("first-touch page size " + std::to_string(page_bytes) +
                                " (must be a power of two)");
  page_shift_ = 0;
  while ((std::uint64_t{1} << page_shift_) < page_bytes) ++page_shift_;
}

std::uint32_t FirstTouchPages::touch(Addr a, std::uint32_t toucher_zone) {
  return zone_.emplace(a >> page_shift_, toucher_zone).first->second;
}

std::optional<std::uint32_t> FirstTouchPages::zone(Addr a) const {
  auto it = zone_.find(a >> page_shift_);
  if (it == zone_.end()) return std::nullopt;
  return it->second;
}

}  // namespace locsim
